/* report/threshold.h — how large a change must be to count, and which metrics gate.
 *
 * A threshold is a percentage of the baseline median. Where it comes from, the
 * first that has the metric wins:
 *   1. --threshold METRIC=PCT on the command line (or --threshold PCT: every metric)
 *   2. the benchmark's "thresholds" in its manifest (stored in the run document;
 *      a benchmark's own key already overrides the manifest's "defaults")
 *   3. the threshold `perfgate calibrate` suggested for the benchmark and
 *      metric on this machine and backend (the store's thresholds.json; the
 *      comparison applies it, report/compare.h: pg_compare_opts.floors)
 *   4. perfgate's default for the metric (docs/metrics.md): tight for
 *      instructions, which are exact or nearly so, wider for time and caches.
 * Gating metrics (default: instructions) decide the verdict of a benchmark and
 * of the comparison; the other metrics are reported with their own verdicts.
 */
#ifndef PG_REPORT_THRESHOLD_H
#define PG_REPORT_THRESHOLD_H

#include <stddef.h>

/* Parses a percentage: "5%", "0.5%", or a bare number of percent ("0.5" is
 * half a percent, as in the manifest). Must be finite and in [0, 1e6].
 * PG_EINVAL with the text quoted. */
int pg_threshold_parse_pct(double *pct, const char *s);

typedef struct pg_threshold_rule {
    char *metric;       /* NULL: every metric ("--threshold 2%") */
    double pct;
} pg_threshold_rule;

typedef struct pg_thresholds {
    pg_threshold_rule *v;
    size_t n;
} pg_thresholds;

/* Adds one --threshold argument, "METRIC=PCT" or "PCT". A later rule for the
 * same metric replaces an earlier one. PG_EINVAL naming the bad part. */
int pg_thresholds_add(pg_thresholds *t, const char *arg);
void pg_thresholds_free(pg_thresholds *t);
/* Sets the rule for `metric` (NULL: every metric) to `pct`. PG_ENOMEM. */
int pg_thresholds_set(pg_thresholds *t, const char *metric, double pct);
/* A deep copy of `src` into `dst` (empty before). PG_ENOMEM. */
int pg_thresholds_copy(pg_thresholds *dst, const pg_thresholds *src);

typedef enum pg_threshold_source {
    PG_TH_DEFAULT = 0,
    PG_TH_MANIFEST,
    PG_TH_CLI,
    PG_TH_CALIBRATED,   /* `perfgate calibrate` measured it on this machine (report/calib.h) */
} pg_threshold_source;

/* perfgate's default threshold (percent) for a metric name. */
double pg_threshold_default(const char *metric);

/* The threshold for `metric` of a benchmark whose manifest thresholds are
 * `bench` (NULL: none), with the CLI's rules `cli` (NULL: none). */
double pg_threshold_for(const pg_thresholds *cli, const pg_thresholds *bench, const char *metric,
                        pg_threshold_source *source);

/* Which metrics gate. */
typedef struct pg_gates {
    char **v;
    size_t n;
} pg_gates;

/* Parses "instructions" or "instructions,cycles" (replacing what `g` held).
 * Names are trimmed; empty names or a list of none are PG_EINVAL. */
int pg_gates_parse(pg_gates *g, const char *list);
int pg_gates_has(const pg_gates *g, const char *metric);
void pg_gates_free(pg_gates *g);

#endif
