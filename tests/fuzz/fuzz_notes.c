/* Fuzz target: merging a fetched results note (refs/notes/perfgate) into
 * the one held, through the notes' gate (tests/fuzz/notes_merge.h). */
#include "tests/fuzz/notes_merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_fuzz_notes_merge(data, size, &pg_notekind_runs);
    return 0;
}
