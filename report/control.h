/* report/control.h — a control comparison in the same run (`compare
 * --control`, docs/metrics.md "A control comparison").
 *
 * Beside the A/B comparison, the baseline is measured twice in the same
 * interleaved order (A A' B), and A against A' is the control: what this
 * run's measuring alone makes of no change at all. A noisy gating metric
 * whose regression is no larger than its control's delta is "within the
 * noise of this run": not a regression, said so. An exact count should be
 * the same in the control; one that is not is a finding about the
 * measurement (the program does not repeat its count, or the execution
 * context differs between runs), counted and said loudly, and its A/B delta
 * is decided against that A/A difference as against a spread (compare.h).
 */
#ifndef PG_REPORT_CONTROL_H
#define PG_REPORT_CONTROL_H

#include "report/comparison.h"

/* Gives every gating metric of `c` its control delta from `control` (the
 * same benchmarks, A against A'), settles the regressions within the noise
 * of this run (their benchmark unchanged, with a note, when nothing else
 * regressed), counts the exact counts that differ, and recounts `c`'s
 * verdicts. `control` need not outlive `c`. */
void pg_control_apply(pg_comparison *c, const pg_comparison *control);

/* The largest control delta (|%|) of gating metric `metric` over the
 * benchmarks of `c`; NAN when none was controlled. */
double pg_control_largest(const pg_comparison *c, const char *metric);

#endif
