/* Fuzz target: the manifest, perfgate.json (harness/bench/manifest.c, pg_manifest_parse).
 * An accepted manifest gives benchmarks a runner can use as they are. */
#include "tests/fuzz/fuzz.h"
#include "harness/bench/bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_benchset s;
    pg_benchset_init(&s);
    int rc = pg_manifest_parse(&s, (const char *)data, size, "/fuzz/bench/perfgate.json", NULL);
    pg_fuzz_check_error(rc);
    if (rc == 0) {
        PG_FUZZ_ASSERT(s.n > 0);
        for (size_t i = 0; i < s.n; i++) {
            const pg_bench *b = &s.v[i];
            PG_FUZZ_ASSERT(b->name && b->name[0] && !strpbrk(b->name, "/\n"));
            PG_FUZZ_ASSERT(b->argv && b->argv[0] && b->cwd && b->cwd[0] == '/');
            PG_FUZZ_ASSERT(b->repeat == -1 || b->repeat >= 1);
            PG_FUZZ_ASSERT(b->warmup >= -1);
            for (size_t j = 0; j < i; j++)
                PG_FUZZ_ASSERT(strcmp(s.v[j].name, b->name) != 0);
        }
    }
    pg_benchset_free(&s);
    return 0;
}
