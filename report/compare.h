/* report/compare.h — verdicts: two sides' samples in, one pg_comparison out.
 *
 * Benchmarks are matched by name; in each, metrics by name and backend (a
 * value measured by valgrind is never set against one measured by perf: such
 * a pair is listed as not compared, with the reason). For each pair:
 *   - medians of both sides, delta absolute and in % of the baseline median;
 *   - deterministic metrics (counts simulated by valgrind, unit "count" — not its
 *     wall-time or max-rss — or every repeat identical on
 *     both sides with at least 2 each) are decided by the threshold alone:
 *     delta > +threshold regressed, < -threshold improved, else unchanged;
 *     an exact count that does not repeat (its runs on a side differ: the
 *     program prints its own timings, reads the clock or /proc) is decided
 *     against its spread, the larger side's largest less smallest value:
 *     |delta| within the spread is unchanged, past the threshold and at
 *     least PG_SPREAD_FACTOR spreads a verdict, past the threshold in
 *     between inconclusive, with a note naming the spread;
 *   - noisy metrics with at least `min_samples` on each side are tested with
 *     Mann-Whitney U (report/stats.h), and the p-values of every tested pair
 *     of the whole comparison (within their thresholds or not) are adjusted
 *     together with Benjamini-Hochberg. |delta| <= threshold: unchanged;
 *     beyond it with adjusted p < alpha: regressed or improved; beyond it
 *     without significance, or with too few samples: inconclusive.
 * A benchmark's verdict comes from its gating metrics only, in this order:
 * regressed if any regressed, else inconclusive if any is (or is missing, or
 * the benchmark failed on a side), else improved if any improved, else
 * unchanged. The comparison's verdict is the same rule over its benchmarks
 * (no benchmark in common: inconclusive). Benchmarks on one side only are
 * listed as new or vanished and do not change the verdict.
 *
 * Fail closed: every benchmark whose gating metrics could not all be compared
 * (on one side only, failed on a side, a gating metric missing on a side or
 * measured by different backends) is listed in `missing` with the reason. The
 * caller refuses such a comparison unless the user allowed it
 * (--allow-missing), and refuses one that compared no gating metric at all.
 * A metric that is an alias of another the same side measured ("Ir" beside
 * "instructions", util/metrics.h) is left out: one number, shown once.
 * Time across sessions: when the two sides share no session (their runs were
 * measured by different perfgate processes: another moment, another load),
 * the metrics the machine's load moves (util/metrics.h, pg_metric_load_bound:
 * time, context switches) are not compared, with a note naming both sides'
 * load; exact counts are, as ever. `allow_apart` compares them anyway.
 * Last, each benchmark's gating counts are set against its native time
 * (divergence.h). What a comparison holds is in comparison.h.
 */
#ifndef PG_REPORT_COMPARE_H
#define PG_REPORT_COMPARE_H

/* How many of its spreads an exact count that does not repeat must move,
 * past its threshold, for a verdict: a delta that large is not the wobble. */
#define PG_SPREAD_FACTOR 3

#include "report/comparison.h"

#include <stddef.h>


typedef struct pg_compare_opts {
    const pg_thresholds *thresholds;/* --threshold rules, or NULL */
    const pg_gates *gates;          /* required, at least one metric */
    const struct pg_floors *floors; /* calibrate's floors and thresholds for this machine, or NULL */
    double alpha;                   /* significance after BH; 0: 0.05 */
    size_t min_samples;             /* per side for a noisy metric; 0: 3 */
    double divergence_factor;       /* 0: PG_DIVERGENCE_FACTOR (divergence.h) */
    int fail_on_divergence;
    int allow_apart;                /* --allow-apart: judge load-bound metrics of sides measured in
                                     * different sessions as if they were comparable */
} pg_compare_opts;

/* Compares `base` against `cand` into `out` (which borrows from both sides
 * and from o->gates). PG_ENOMEM. */
int pg_compare(pg_comparison *out, const pg_side *base, const pg_side *cand, const pg_compare_opts *o);
/* The verdict of several: regressed if any, else inconclusive if any, else
 * improved if any, else unchanged (count[v]: how many had verdict v). */
pg_verdict pg_verdict_combine(const size_t count[4]);

#endif
