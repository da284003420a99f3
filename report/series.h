/* report/series.h — the input of every comparison: one side's raw samples.
 *
 * report/ never reads the store: the harness loads result documents
 * (harness/results.h) into one pg_side per revision and hands both to
 * pg_compare() (report/compare.h). Samples are every raw value stored, so
 * statistics are recomputed at compare time. A pg_side owns everything it
 * points to; pg_side_free() releases it.
 */
#ifndef PG_REPORT_SERIES_H
#define PG_REPORT_SERIES_H

#include "report/threshold.h"

#include <stddef.h>

typedef struct pg_series {
    char *metric;          /* shared metric name, e.g. "instructions" (docs/metrics.md) */
    char *unit;            /* "count", "ns", "bytes" */
    char *backend;         /* the run's backend, "perf" or "valgrind": never compared across */
    char *source;          /* what produced the value: "perf", "valgrind", "os" (rusage, clock) */
    double *v;             /* raw samples, one per measured run */
    size_t n, cap;
} pg_series;

typedef struct pg_bench_result {
    char *name;
    int failed;            /* failed in the latest run that had it */
    char *failure;         /* its reason, or NULL */
    pg_thresholds thresholds; /* the manifest's, per metric (latest run that had them) */
    char *stacks_note;     /* what is inexact about the stacks (subtitles); NULL: nothing */
    char *stacks;          /* folded stacks file, absolute or relative to the cwd; NULL: none */
    pg_series *m;
    size_t nm;
} pg_bench_result;

typedef struct pg_side {
    char label[128];       /* what the user typed: "HEAD~1", "a.json" */
    char commit[41];       /* "" when unknown (a file without commit) */
    char machine_id[16];
    char machine_desc[256];/* "cpu model, N cores, kernel" */
    char backend[16];      /* of the latest run merged */
    size_t nruns;          /* runs merged */
    int dirty;             /* a run measured a work tree with uncommitted changes */
    pg_bench_result *b;
    size_t nb, cap;
} pg_side;

/* Appends a sample to `s`. */
int pg_series_push(pg_series *s, double v);

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
