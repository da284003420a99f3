/* Google Benchmark runs (counters/gbench.h): which callgrind dumps are the
 * timed region, and the JSON report's runs, units and counters. */
#include "counters/gbench.h"
#include "harness/bench/bench.h"
#include "util/error.h"
#include "util/fileio.h"

#include "../check.h"

#include <stdlib.h>
#include <unistd.h>

static const char *const trig[] = {
    "Program termination",
    "--dump-after=benchmark::State::StartKeepRunning()",
    "--dump-after=benchmark::State::ResumeTiming()",
    "--dump-before=benchmark::State::PauseTiming()",
    "--dump-before=benchmark::State::FinishKeepRunning()",
};

/* Writes callgrind.out.7.PART (the last one without .PART, as callgrind does). */
static void dump(const char *dir, int part, int last, int t, unsigned long long ir)
{
    char path[512], text[512];
    if (last)
        snprintf(path, sizeof path, "%s/callgrind.out.7", dir);
    else
        snprintf(path, sizeof path, "%s/callgrind.out.7.%d", dir, part);
    snprintf(text, sizeof text, "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 7\ncmd: x\n"
             "part: %d\n\ndesc: I1 cache: \ndesc: Timerange: Basic block 0 - 9\ndesc: Trigger: %s\n\n"
             "positions: line\nevents: Ir\nsummary: %llu\n\n\ntotals: %llu\n", part, trig[t], ir, ir);
    pg_file_write_atomic(path, text, strlen(text));
}

int main(void)
{
    int part, t;
    unsigned long long ir;
    char d[256];
    REQUIRE(pg_mkdtemp(d, sizeof d, "pg-gbench-") == 0);

    /* One parsed dump. */
    char text[512];
    snprintf(text, sizeof text, "part: 3\ndesc: Trigger: %s\nevents: Ir\nsummary: 42\ntotals: 42\n", trig[4]);
    CHECK_EQ_INT(pg_gbench_parse_dump(&part, &t, &ir, text, "x"), 0);
    CHECK_EQ_INT(part, 3);
    CHECK_EQ_INT(t, PG_GBENCH_TRIGGER_END_BATCH);
    CHECK_EQ_INT(ir, 42);
    CHECK_EQ_INT(pg_gbench_parse_dump(&part, &t, &ir, "events: Ir\n", "x"), PG_EINVAL);
    CHECK_EQ_INT(pg_gbench_parse_dump(&part, &t, &ir, "part: 1\nevents: Dr\nsummary: 1\n", "x"), PG_EINVAL);

    /* Two batches, the second with a PauseTiming/ResumeTiming in its loop, as
     * Google Benchmark 1.7 runs them: StartKeepRunning calls ResumeTiming and
     * FinishKeepRunning calls PauseTiming. Written out of order. */
    struct { int t; unsigned long long ir; } seq[] = {
        {2, 3000000}, {1, 0}, {4, 519},  {3, 20},           /* batch 1: 519 timed */
        {2, 900},     {1, 0}, {3, 300},  {2, 400000},       /* batch 2: 300 timed, pause, */
        {4, 200},     {3, 20}, {0, 90000},                  /* then 200 timed */
    };
    size_t n = sizeof seq / sizeof seq[0];
    for (size_t i = n; i-- > 0;)
        dump(d, (int)i + 1, i == n - 1, seq[i].t, seq[i].ir);
    pg_gbench_segments seg;
    CHECK_EQ_INT(pg_gbench_collect_callgrind(&seg, d), 0);
    CHECK_EQ_INT(seg.n, 2);
    CHECK_EQ_INT(seg.ir[0], 519);
    CHECK_EQ_INT(seg.ir[1], 500);
    pg_gbench_segments_free(&seg);
    CHECK(rmdir(d) == 0);   /* every dump removed */

    /* The report: aggregates skipped, units converted, counters kept. */
    const char *json =
        "Running ./x\n{\n \"context\": {},\n \"benchmarks\": [\n"
        "  {\"name\": \"BM_a/8\", \"run_type\": \"iteration\", \"threads\": 1, \"iterations\": 2,"
        "   \"real_time\": 1.5, \"cpu_time\": 1.25, \"time_unit\": \"us\", \"steps\": 8, \"bytes_per_second\": 1e9,"
        "   \"label\": \"x\"},\n"
        "  {\"name\": \"BM_a/8\", \"run_type\": \"iteration\", \"threads\": 1, \"iterations\": 3,"
        "   \"real_time\": 2, \"cpu_time\": 2, \"time_unit\": \"ms\", \"steps\": 8, \"bytes_per_second\": 1e9},\n"
        "  {\"name\": \"BM_a/8_mean\", \"run_type\": \"aggregate\", \"aggregate_name\": \"mean\", \"iterations\": 2,"
        "   \"real_time\": 9, \"cpu_time\": 9, \"time_unit\": \"us\"}\n ]\n}\n";
    pg_gbench_report rep;
    pg_readings r = {0};
    CHECK_EQ_INT(pg_gbench_parse_json(&rep, &r, "perf", json, strlen(json)), 0);
    CHECK_EQ_INT(rep.runs, 2);
    CHECK_NEAR(rep.iterations, 5, 0);
    CHECK(rep.error == NULL);
    CHECK_EQ_INT(r.n, 8);
    CHECK_STR(r.v[0].name, "real-time");
    CHECK_NEAR(r.v[0].value, 1500, 1e-9);
    CHECK_STR(r.v[0].unit, "ns");
    CHECK_STR(r.v[1].name, "cpu-time");
    CHECK_NEAR(r.v[1].value, 1250, 1e-9);
    CHECK_STR(r.v[2].name, "counter:steps");
    CHECK_STR(r.v[3].name, "counter:bytes_per_second");
    CHECK_NEAR(r.v[4].value, 2e6, 1e-6);
    pg_readings_free(&r);

    /* Per iteration: the last `runs` batches over their iterations. */
    unsigned long long irs[] = {7, 519, 500};
    pg_gbench_segments three = {irs, 3};
    double per;
    CHECK_EQ_INT(pg_gbench_per_iteration(&per, &three, &rep), 0);
    CHECK_NEAR(per, 1019.0 / 5, 1e-12);
    pg_gbench_segments one = {irs, 1};
    CHECK_EQ_INT(pg_gbench_per_iteration(&per, &one, &rep), PG_EINVAL);
    rep.threads = 2;
    CHECK_EQ_INT(pg_gbench_per_iteration(&per, &three, &rep), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "on 2 threads");

    /* Errors and what is not a report. */
    const char *skipped = "{\"benchmarks\": [{\"name\": \"BM_x\", \"run_type\": \"iteration\", \"iterations\": 0,"
                          " \"error_occurred\": true, \"error_message\": \"no input\"}]}";
    CHECK_EQ_INT(pg_gbench_parse_json(&rep, NULL, "valgrind", skipped, strlen(skipped)), 0);
    CHECK_STR(rep.error, "no input");
    CHECK_EQ_INT(pg_gbench_per_iteration(&per, &three, &rep), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "no input");
    free(rep.error);
    CHECK_EQ_INT(pg_gbench_parse_json(&rep, NULL, "perf", "hello\n", 6), PG_EINVAL);
    CHECK_EQ_INT(pg_gbench_parse_json(&rep, NULL, "perf", "{\"benchmarks\": []}", 18), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "lists no run");

    /* What would damage the store or double a run's samples is refused, naming it. */
    static const struct { const char *json, *error; } hostile[] = {
        {"{\"benchmarks\": [{\"run_type\": \"iteration\", \"iterations\": 1, \"real_time\": 1e999}]}",
         "the Google Benchmark JSON report: benchmarks[0].real_time is not a finite number"},
        {"{\"benchmarks\": [{\"run_type\": \"aggregate\"}, {\"iterations\": 1, \"bytes\": -1e400}]}",
         "the Google Benchmark JSON report: benchmarks[1].bytes is not a finite number"},
        {"{\"benchmarks\": [{\"iterations\": 1, \"items\": 1, \"items\": 2}]}",
         "the Google Benchmark JSON report: benchmarks[0] has \"items\" twice"},
        {"{\"benchmarks\": [{\"iterations\": -5}]}",
         "the Google Benchmark JSON report: benchmarks[0].iterations is negative"},
        {"{\"benchmarks\": [1]}", "the Google Benchmark JSON report: benchmarks[0] is not an object"},
        {"{\"benchmarks\": [{\"iterations\": 1, \"a_counter_name_that_is_far_too_long_to_be_a_metric_name_"
         "once_counter_colon_is_put_before_it\": 1}]}",
         "the Google Benchmark JSON report: benchmarks[0]: the counter name \"a_counter_name_that_is_far_too_long_to_b"
         "...\" is longer than 87 bytes"},
    };
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
        pg_readings none = {0};
        CHECK_EQ_INT(pg_gbench_parse_json(&rep, &none, "perf", hostile[i].json, strlen(hostile[i].json)), PG_EINVAL);
        CHECK_STR(pg_error_last(), hostile[i].error);
        pg_readings_free(&none);
    }

    /* Recognising a suite: the test suite's one is; this program, which holds
     * perfgate's code that looks for the library, is not. */
    const char *progs = getenv("PG_TEST_PROGS");
    char gb[4096];
    snprintf(gb, sizeof gb, "%s/gb_demo", progs ? progs : ".");
    CHECK_EQ_INT(pg_gbench_is_executable(gb), 1);
    CHECK_EQ_INT(pg_gbench_is_executable("/proc/self/exe"), 0);
    snprintf(gb, sizeof gb, "%s/work", progs ? progs : ".");
    CHECK_EQ_INT(pg_gbench_is_executable(gb), 0);
    return pg_check_done();
}
