/* Fuzz target: a Google Benchmark suite's listing (`--benchmark_list_tests`
 * output, which the suite's program prints: any bytes) made into benchmarks
 * (pg_benchset_add_listing), then checked for names given twice. Every
 * benchmark accepted has a name the manifest's rule allows and runs the
 * suite with a filter matching just it. */
#include "tests/fuzz/fuzz.h"
#include "harness/bench/bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *list = malloc(size + 1);
    PG_FUZZ_ASSERT(list);
    memcpy(list, data, size);
    list[size] = '\0';
    char *argv[] = {"./suite", NULL};
    pg_bench suite = {.kind = PG_BENCH_GB_SUITE, .name = size % 2 ? "prefix" : NULL, .argv = argv, .cwd = "/fuzz",
                      .repeat = -1, .warmup = -1, .markers = -1, .source = "fuzz.json"};
    pg_benchset set;
    pg_benchset_init(&set);
    int rc = pg_benchset_add_listing(&set, &suite, list);
    pg_fuzz_check_error(rc);
    if (rc == 0) {
        PG_FUZZ_ASSERT(set.n > 0);
        for (size_t i = 0; i < set.n; i++) {
            PG_FUZZ_ASSERT(set.v[i].kind == PG_BENCH_GB_ONE && !pg_bench_name_problem(set.v[i].name));
            PG_FUZZ_ASSERT(set.v[i].argv[0] && set.v[i].argv[1] && !strncmp(set.v[i].argv[1], "--benchmark_filter=", 19));
        }
        pg_fuzz_check_error(pg_benchset_check_unique(&set));
    }
    pg_benchset_free(&set);
    free(list);
    return 0;
}
