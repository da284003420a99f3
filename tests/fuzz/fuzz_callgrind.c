/* Fuzz target: callgrind output (counters/callgrind.c, pg_callgrind_parse and
 * pg_callgrind_calls). What it accepts adds exactly the instructions it
 * reports to the stacks; call counting never fails without saying why. */
#include "tests/fuzz/fuzz.h"
#include "counters/callgrind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_folded *f;
    PG_FUZZ_ASSERT(pg_folded_new(&f) == 0);
    long long got = pg_callgrind_parse(f, (const char *)data, size, "callgrind.out.fuzz");
    PG_FUZZ_ASSERT(got >= INT32_MIN);
    pg_fuzz_check_error(got < 0 ? (int)got : 0);
    if (got >= 0)
        PG_FUZZ_ASSERT(pg_folded_total(f) == (uint64_t)got);
    pg_folded_free(f);
    static const char *const fns[] = {"malloc", "main", "free"};
    unsigned long long calls[3] = {0};
    pg_fuzz_check_error(pg_callgrind_calls(calls, fns, 3, (const char *)data, size, "callgrind.out.fuzz"));
    return 0;
}
