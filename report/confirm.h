/* report/confirm.h — confirming a regression of a noisy metric by measuring
 * again (docs/metrics.md, "Confirmation").
 *
 * A deterministic metric (an exact count) that crossed its threshold has
 * regressed: measuring again gives the same number. A noisy one (time) can
 * cross it by chance, however small the p-value, when the machine drifted
 * while one side was measured. So when a benchmark's regression rests on
 * noisy gating metrics only, `compare --run-missing` measures both revisions
 * again, interleaved (A B A B ...), and compares the new samples on their own:
 * the second round. The benchmark stays regressed when the second round finds
 * it regressed too; otherwise it is inconclusive. Both rounds are reported.
 */
#ifndef PG_REPORT_CONFIRM_H
#define PG_REPORT_CONFIRM_H

#include "report/compare.h"

#include <stddef.h>

/* Whether `b` is regressed by noisy gating metrics only (none of its
 * regressed gating metrics is deterministic). */
int pg_confirm_wanted(const pg_bench_cmp *b);

/* Whether `b`'s verdict could go either way on a noisy gating metric, so
 * that `bisect` measures the step again before taking it: a noisy gating
 * metric worse by at least half its threshold, unless that is a clear
 * regression (over twice the threshold, adjusted p below alpha / 5), and no
 * deterministic gating metric regressed (an exact count settles it). */
int pg_confirm_near(const pg_bench_cmp *b, double alpha);

/* How many benchmarks of `c` are pg_confirm_wanted. */
size_t pg_confirm_count(const pg_comparison *c);

/* Settles every wanted benchmark of `c` with the second round `round2` (the
 * same comparison on the new samples alone; it must outlive `c`): confirmed
 * when round 2 has it regressed, else inconclusive with a note. Recounts
 * `c`'s verdicts. */
void pg_confirm_apply(pg_comparison *c, const pg_comparison *round2);

#endif
