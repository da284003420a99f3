/* Fuzz target: merging a fetched stacks note (refs/notes/perfgate-stacks)
 * into the one held, through the notes' gate (tests/fuzz/notes_merge.h). */
#include "tests/fuzz/notes_merge.h"
#include "harness/store/notes_stacks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_fuzz_notes_merge(data, size, &pg_notekind_stacks);
    return 0;
}
