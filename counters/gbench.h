/* counters/gbench.h — what one run of a Google Benchmark benchmark measured.
 *
 * A Google Benchmark executable (docs/google-benchmark.md) runs one benchmark
 * per measured run (--benchmark_filter), printing the library's JSON report
 * (--benchmark_format=json) on stdout.
 *
 * Natively, the JSON report is the measurement: time per iteration, iteration
 * counts and user counters, one sample per repetition.
 *
 * Under valgrind the benchmark runs under callgrind instead of cachegrind,
 * batch forced to one iteration (--benchmark_min_time=0: Google Benchmark
 * 1.7's first batch then already meets the minimum time), and callgrind dumps
 * its counts at the edges of the library's timed region:
 *     after  State::StartKeepRunning   timer started: a timed segment begins
 *     before State::PauseTiming        a timed segment ends
 *     after  State::ResumeTiming       a timed segment begins
 *     before State::FinishKeepRunning  the last timed segment ends
 * A segment counts when it begins at one of the "begins" and ends at one of
 * the "ends"; everything else (process start-up, the library's set-up, its
 * timer calls, the code between PauseTiming and ResumeTiming, the report) is
 * left out. instructions = Ir of the counted segments of the last R batches
 * / their iterations, R the number of repetitions the JSON report lists.
 * Start-up varies from run to run (the environment, the clock); the timed
 * region does not, so the count is the same on every run.
 */
#ifndef PG_COUNTERS_GBENCH_H
#define PG_COUNTERS_GBENCH_H

#include "counters/readings.h"
#include "counters/valgrind.h"
#include "util/folded.h"

#include <stddef.h>

/* Appended to the command under valgrind: one iteration per batch. */
#define PG_GBENCH_MIN_TIME_ARG "--benchmark_min_time=0"

/* The argv running `argv` (a Google Benchmark command, which gets
 * PG_GBENCH_MIN_TIME_ARG appended) under callgrind, writing into `outdir`.
 * Free with pg_valgrind_argv_free. */
int pg_gbench_wrap_callgrind(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir);

/* The stacks of the timed region (harness/measure/stacks.h): `argv` (with
 * PG_GBENCH_MIN_TIME_ARG appended) under callgrind recording stacks
 * (callgrind.h), with dumps at the timed region's edges, into `outdir`. */
int pg_gbench_wrap_stacks(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir);

/* Reads and removes the dumps of such a run in `outdir`: the stacks of the
 * timed segments of the batches its JSON `report` (the run's stdout)
 * reports, the ones the per-iteration count sums, into `f`; *iterations
 * the iterations they ran (their count divided by it is per iteration, as
 * the headline). PG_EINVAL when the report or the dumps do not fit. */
int pg_gbench_collect_stacks(pg_folded *f, double *iterations, const char *outdir, const char *report, size_t len);

/* One batch's timed instructions, in the order they ran. */
typedef struct pg_gbench_segments {
    unsigned long long *ir;  /* per batch: Ir of its timed segments */
    size_t n;
} pg_gbench_segments;

/* Reads and removes the callgrind dumps in `outdir` (a callgrind.out.PID.N
 * per dump, callgrind.out.PID for the last part). PG_EIO when callgrind wrote
 * nothing (with valgrind's own error when it left one). */
int pg_gbench_collect_callgrind(pg_gbench_segments *out, const char *outdir);
void pg_gbench_segments_free(pg_gbench_segments *s);

/* The parts of one dump (for collect and the tests): its part number, what
 * triggered it (PG_GBENCH_TRIGGER_*), and its Ir. */
enum {
    PG_GBENCH_TRIGGER_OTHER = 0,   /* program termination, anything else */
    PG_GBENCH_TRIGGER_BEGIN,       /* after StartKeepRunning / ResumeTiming */
    PG_GBENCH_TRIGGER_END_PAUSE,   /* before PauseTiming */
    PG_GBENCH_TRIGGER_END_BATCH,   /* before FinishKeepRunning */
};
int pg_gbench_parse_dump(int *part, int *trigger, unsigned long long *ir, const char *text, const char *path);

/* What the JSON report says: the runs (run_type "iteration") of the one benchmark. */
typedef struct pg_gbench_report {
    size_t runs;                   /* repetitions reported */
    double iterations;             /* summed over them */
    int threads;                   /* largest "threads" */
    char *error;                   /* "error_message" of a skipped benchmark, or NULL */
} pg_gbench_report;

/* Parses the JSON report in text[0..len) (what precedes its first line that
 * starts with '{' is ignored: a benchmark may print). With `readings`
 * non-NULL, appends one sample per run: real-time and cpu-time (ns per
 * iteration) and every other number of the run (user counters,
 * bytes_per_second...) as "counter:NAME", all of backend `backend`.
 * Free rep->error with free(). PG_EINVAL when there is no report. */
int pg_gbench_parse_json(pg_gbench_report *rep, pg_readings *readings, const char *backend,
                         const char *text, size_t len);

/* instructions per iteration from a run's dumps and report: the last
 * rep->runs batches of `seg`. PG_EINVAL saying why it cannot be counted. */
int pg_gbench_per_iteration(double *out, const pg_gbench_segments *seg, const pg_gbench_report *rep);

#endif
