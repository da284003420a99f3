/* harness/measure/gbench_list.h — Google Benchmark suites listed after the build.
 * Listing runs the executable (contained, in the benchmark's canonical
 * context), so it sits with the running code, above the benchmark set of
 * bench.h, whose gbench_suite.c turns each listed name into a benchmark. */
#ifndef PG_HARNESS_GBENCH_LIST_H
#define PG_HARNESS_GBENCH_LIST_H

#include "harness/bench/bench.h"

/* Lists every suite (`kind` PG_BENCH_GB_SUITE) with --benchmark_list_tests
 * and puts its benchmarks in its place, named after them (docs/google-benchmark.md).
 * Run after the build, which makes the executables, in the environment its
 * benchmarks get (`pass_env`: --pass-env, harness/measure/canon.h; NULL:
 * none). Errors name the suite. */
int pg_benchset_expand(pg_benchset *s, const char *pass_env);

#endif
