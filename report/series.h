/* report/series.h — the input of every comparison: one side's raw samples.
 *
 * report/ never reads the store: the harness loads result documents
 * (harness/store/results.h) into one pg_side per revision and hands both to
 * pg_compare() (report/compare.h). Samples are every raw value stored, so
 * statistics are recomputed at compare time. A pg_side owns everything it
 * points to; pg_side_free() releases it.
 */
#ifndef PG_REPORT_SERIES_H
#define PG_REPORT_SERIES_H

#include "report/threshold.h"
#include "util/strpool.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct pg_series {
    char *metric;          /* shared metric name, e.g. "instructions" (docs/metrics.md) */
    char *unit;            /* "count", "ns", "bytes" */
    char *backend;         /* the run's backend, "perf" or "valgrind": never compared across */
    char *source;          /* what produced the value: "perf", "valgrind", "os" (rusage, clock) */
    bool exact;            /* its backend's counts of this unit are the same on every run
                              (counters/backend.h, pg_backend_props; set by whoever builds it) */
    bool simulated;        /* measured on its backend's model of the machine, not on the machine */
    double *v;             /* raw samples, one per measured run */
    size_t n, cap;
    const char *origin;    /* where v[0] came from ("run <id> in <dir>"); NULL: not said
                              (borrowed: pg_series_add_run's caller keeps it, in the side's pool) */
    char *disagreement;    /* an exact metric (pg_series_exact) given two different values,
                              the first two and where each came from: "262,450 (run A in
                              DIR) and 262,460 (run B in DIR2)"; NULL: every value the same */
} pg_series;

typedef struct pg_bench_result {
    char *name;
    int failed;            /* failed in the latest run that had it */
    char *failure;         /* its reason, or NULL */
    pg_thresholds thresholds; /* the manifest's, per metric (latest run that had them) */
    char *stacks_note;     /* what is inexact about the stacks (subtitles); NULL: nothing */
    char *stacks;          /* folded stacks file, absolute or relative to the cwd; NULL: none */
    double stacks_iterations; /* a Google Benchmark's timed-region stacks: the iterations they hold; 0: not so */
    char *reused;          /* its exact counts were a stored run's ("run ID of COMMIT"), or NULL */
    pg_series *m;
    size_t nm;
} pg_bench_result;

typedef struct pg_side {
    char label[128];       /* what the user typed: "HEAD~1", "a.json" */
    char commit[41];       /* "" when unknown (a file without commit) */
    char machine_id[16];
    char machine_desc[256];/* "cpu model, N cores, kernel" */
    char backend[16];      /* of the latest run merged */
    int stacks_exact;      /* its backend's stacks weigh exact counts, not samples */
    char stacks_unit[32];  /* what they weigh: "instructions", "heap-bytes" (a metric), "samples" */
    size_t nruns;          /* runs merged */
    int dirty;             /* a run measured a work tree with uncommitted changes */
    size_t nfetched;       /* runs merged that came from the commit's git note alone: another clone's */
    const char **sessions; /* the sessions its runs were measured in (the run's "session", else its
                              id), each once, interned in `pool` (the array is the side's) */
    size_t nsessions;
    double load_sum;       /* the 1-minute load averages its runs started under, summed... */
    size_t nload;          /* ...over this many (runs that stored one) */
    char fetched_host[96]; /* the host of the first of them, as its run says */
    pg_bench_result *b;
    size_t nb, cap;
    int pooled;            /* its series' metric, unit, backend and source are in `pool`, not their own */
    pg_strpool pool;       /* strings its series share (and every series' origin) */
} pg_side;

/* Appends a sample to `s`. */
int pg_series_push(pg_series *s, double v);

/* Whether `s` is an exact count, the same number on every run of one
 * program: an exact backend's counts (`exact`), and call counts. */
int pg_series_exact(const pg_series *s);

/* Appends the samples v[0..n) of one run, which came from `origin` (kept
 * as long as the series: the side's pool), to `s`. An exact series given a
 * value other than its first records the two and their origins
 * (`disagreement`): counts that do not repeat are pooled, and their spread
 * is what compare decides against (pg_series_spread). */
int pg_series_add_run(pg_series *s, const double *v, size_t n, const char *origin);

/* An exact series' spread: its largest value less its smallest, the floor
 * of a count that does not repeat (a program that prints its own timings,
 * reads the clock or /proc); 0 when every value is the same. */
double pg_series_spread(const pg_series *s);

/* The series of `metric` in `b` measured by `backend` (NULL: any), or NULL. */
const pg_series *pg_bench_find_series(const pg_bench_result *b, const char *metric, const char *backend);

/* 1 when `s` is another name of a metric `b` measured too ("Ir" beside
 * "instructions"): the same number, to be shown and thresholded once. */
int pg_series_duplicate_alias(const pg_bench_result *b, const pg_series *s);

/* Releases what `side` owns and empties it (the struct itself is the caller's). */
void pg_side_free(pg_side *side);

typedef enum pg_verdict {
    PG_VERDICT_UNCHANGED = 0,
    PG_VERDICT_IMPROVED,
    PG_VERDICT_REGRESSED,
    PG_VERDICT_INCONCLUSIVE,
} pg_verdict;

/* "unchanged", "improved", "regressed", "inconclusive" */
const char *pg_verdict_name(pg_verdict v);

#endif
