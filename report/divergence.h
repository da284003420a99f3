/* report/divergence.h — when a benchmark's counts and its native time disagree.
 *
 * An exact count (valgrind's instructions) can move one way while the time
 * the program takes moves the other: more instructions that miss the cache
 * less run faster. A gate on the count alone then says the opposite of what a
 * user would measure. A benchmark *diverges* (docs/metrics.md) when
 *   - a gating metric that is a count (unit "count": instructions, cycles,
 *     ...; not a heap count, which is no measure of work) and its native time (`task-clock`, else a native `wall-time`) were
 *     both compared,
 *   - the time change is significant: Mann-Whitney U, Benjamini-Hochberg
 *     adjusted p below the comparison's alpha (report/stats.h, compare.h),
 *   - something changed: the count's verdict is regressed or improved, or the
 *     time change is beyond the time's threshold,
 *   - and the two move in opposite directions, or in the same one by amounts
 *     whose ratio (the larger relative change over the smaller) exceeds the
 *     factor (PG_DIVERGENCE_FACTOR unless told; a change against none counts
 *     as beyond any factor).
 */
#ifndef PG_REPORT_DIVERGENCE_H
#define PG_REPORT_DIVERGENCE_H

#include "report/comparison.h"

#define PG_DIVERGENCE_FACTOR 3.0

typedef enum pg_divergence_kind {
    PG_DIVERGENCE_NONE = 0,
    PG_DIVERGENCE_OPPOSITE,     /* the count and the time move in opposite directions */
    PG_DIVERGENCE_MAGNITUDE,    /* the same direction, by amounts beyond the factor apart */
} pg_divergence_kind;

/* What `count` and `time` (both compared, see above) say together: the kind
 * of divergence, or PG_DIVERGENCE_NONE. `alpha` is the significance level of
 * the adjusted p-value, `factor` the ratio beyond which amounts differ. */
pg_divergence_kind pg_divergence_check(const pg_metric_cmp *count, const pg_metric_cmp *time, double alpha,
                                       double factor);

/* "opposite directions", "changes more than 3x apart" */
const char *pg_divergence_describe(char *buf, size_t len, pg_divergence_kind k, double factor);

/* Fills every benchmark's `div` of `c` (after its verdicts) and c->ndiverged.
 * PG_ENOMEM. */
int pg_divergence_find(pg_comparison *c, double factor);

#endif
