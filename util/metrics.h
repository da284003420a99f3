/* util/metrics.h — the one registry of perfgate's shared metric names
 * (docs/metrics.md): unit, display order, default threshold, whether the perf
 * backend counts it by default, and other names it goes by.
 *
 * One name means one thing across backends. Metrics not in the registry
 * (valgrind's own D1mr..., raw perf events given with -e) are shown after
 * these, by name, and get PG_METRIC_OTHER_THRESHOLD.
 */
#ifndef PG_UTIL_METRICS_H
#define PG_UTIL_METRICS_H

#include <stddef.h>

/* Where a metric comes from: every list of events is derived from this. */
typedef enum pg_metric_kind {
    PG_METRIC_HARDWARE,         /* a CPU counter (perf_event with a PMU; valgrind simulates some) */
    PG_METRIC_SOFTWARE,         /* a kernel software event: counted on every run, and in the
                                 * native runs beside a simulating backend */
    PG_METRIC_OS,               /* from the OS without perf_event: wall clock, rusage */
    PG_METRIC_GBENCH,           /* Google Benchmark's own report, per iteration */
    PG_METRIC_HEAP,             /* the heap, exact: valgrind's DHAT (the dhat backend), only when asked
                                 * for (--metrics, a gate) unless it is the backend */
} pg_metric_kind;

typedef struct pg_metric_info {
    const char *name;           /* "instructions" */
    const char *unit;           /* "count", "ns", "bytes" */
    double threshold_pct;       /* default regression threshold, % of the baseline median */
    int perf_default;           /* counted by the perf backend when no -e is given */
    const char *const *aliases; /* NULL-terminated: what else calls it ("Ir": valgrind) */
    pg_metric_kind kind;
} pg_metric_info;

/* The names of the registry's metrics of `kind`, in display order, into
 * out[0..max); returns how many there are (may exceed max). */
size_t pg_metric_names(const char **out, size_t max, pg_metric_kind kind);

/* The perf backend's default events: the perf_default metrics, in order. */
#define PG_METRICS_PERF_DEFAULT "instructions,cycles,cache-misses,branch-misses"

/* Default threshold (%) of metrics the registry does not know. */
#define PG_METRIC_OTHER_THRESHOLD 10.0

/* "calls:<fn>": a function's exact call count (--count-calls, docs/markers.md),
 * on either backend; gated like instructions. */
#define PG_METRIC_CALLS_PREFIX "calls:"
#define PG_METRIC_CALLS_THRESHOLD 1.0
int pg_metric_is_calls(const char *name);

/* Whether the machine's load moves `name` (of `unit`): a time (unit "ns":
 * task-clock, wall-time, a Google Benchmark's times) or a scheduler count
 * (context-switches, cpu-migrations). Such samples are compared only
 * between sides measured in one session (report/compare.h). */
int pg_metric_load_bound(const char *name, const char *unit);

/* Whether a value of `name` in `unit` is a count that an exact backend
 * repeats run after run: unit "count", or a heap metric (bytes DHAT counts,
 * not a size the machine measures as max-rss is). */
int pg_metric_counted(const char *name, const char *unit);

/* The registry in display order: entry i, NULL past the end. */
const pg_metric_info *pg_metric_at(size_t i);

/* The entry named `name` exactly, or NULL. */
const pg_metric_info *pg_metric_find(const char *name);

/* The entry that `name` is another name of ("Ir" -> instructions), or NULL. */
const pg_metric_info *pg_metric_find_alias(const char *name);

/* `name`'s place in the display order; the registry's size for unknown names. */
size_t pg_metric_order(const char *name);

/* `name`'s default threshold in percent. */
double pg_metric_threshold(const char *name);

/* A choice of registry metrics (`run --metrics`, a manifest's "metrics"): bit
 * i is registry entry i. 0 means nothing was chosen: every default metric. */
typedef unsigned pg_metric_set;

/* Adds the registry metric `name` (or one of its aliases) to *set. PG_EINVAL
 * for any other name: "unknown metric 'x' (did you mean 'y'?)". */
int pg_metric_set_add(pg_metric_set *set, const char *name);

/* Adds every name of the comma-separated `list`, as pg_metric_set_add. */
int pg_metric_set_parse(pg_metric_set *set, const char *list);

/* Whether `set` has the registry metric `name`; an empty set has them all. */
int pg_metric_set_has(pg_metric_set set, const char *name);

/* The names in `set`, in display order, NULL-terminated into `out` (which
 * holds at least as many entries as the registry, plus one). */
void pg_metric_set_names(const char **out, pg_metric_set set);

/* The registry name that `name` stands for: the entry's own name for an
 * alias ("Ir" -> "instructions"), else `name` itself. One metric is shown,
 * gated and thresholded under one name. */
const char *pg_metric_canonical(const char *name);

/* Whether `name` is a metric perfgate knows without measuring anything: a
 * registry name, an alias, one of `own`, or a Google Benchmark's
 * "iterations" or "counter:NAME". `own` (NULL-terminated, may be NULL) are
 * the backends' own counters beside the shared metrics, counted and stored
 * but shown with -v only: data the caller takes from the backends
 * (counters/backend.h: pg_backend_events), for util knows none. Other names
 * (raw events given with -e) are known only once a result holds them. */
int pg_metric_known(const char *name, const char *const *own);

/* " (did you mean 'x'?)" for the known name (of the registry, `own` as
 * above, or `extra`, n names; either may be NULL) closest to `name`, or ""
 * when none is close enough to be a typo (util/suggest.h). Returns buf. */
const char *pg_metric_suggest(char *buf, size_t len, const char *name, const char *const *own,
                              const char *const *extra, size_t n);

#endif
