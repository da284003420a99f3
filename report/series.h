/* report/series.h — the input of every comparison: raw samples, per metric.
 *
 * report/ never reads the store: the harness loads result documents and hands
 * report one pg_series per (benchmark, metric, side). Samples are every raw
 * value stored, so statistics are recomputed at compare time.
 */
#ifndef PG_REPORT_SERIES_H
#define PG_REPORT_SERIES_H

#include <stddef.h>

typedef struct pg_series {
    const char *metric;    /* shared metric name, e.g. "instructions" */
    const char *unit;      /* "count", "ns", "bytes" */
    const char *backend;   /* "perf", "valgrind", "os": never compared across backends */
    const double *v;       /* raw samples, one per measured run */
    size_t n;
} pg_series;

typedef enum pg_verdict {
    PG_VERDICT_UNCHANGED = 0,
    PG_VERDICT_IMPROVED,
    PG_VERDICT_REGRESSED,
    PG_VERDICT_INCONCLUSIVE,
} pg_verdict;

/* "unchanged", "improved", "regressed", "inconclusive" */
const char *pg_verdict_name(pg_verdict v);

#endif
