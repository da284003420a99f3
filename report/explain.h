/* report/explain.h — where a regression went: per-function self-cost tables
 * and differential flamegraphs from the two sides' folded stacks.
 *
 * Pure computation: the caller reads the stacks and writes the SVGs
 * (harness/cli/explain.h does both for `compare`). */
#ifndef PG_REPORT_EXPLAIN_H
#define PG_REPORT_EXPLAIN_H

#include "report/compare.h"
#include "util/folded.h"

#include <stddef.h>

/* A benchmark worth explaining: regressed or improved, with stacks on both sides. */
int pg_explain_wanted(const pg_bench_cmp *b);

/* Both sides' stacks carry exact counts (valgrind's instructions, DHAT's
 * heap bytes): the metric they weigh ("instructions", "heap-bytes"), which
 * they are compared raw against; NULL for sampled stacks, normalized to the
 * candidate's total. */
const char *pg_explain_exact(const pg_comparison *c);

/* The `top` largest per-function self-cost changes of `b` into b->funcs
 * (functions whose self cost did not change left out). PG_ENOMEM. */
int pg_explain_funcs(pg_bench_cmp *b, pg_folded *fa, pg_folded *fb, size_t top, const char *exact);

/* One differential flamegraph of `b` as SVG text (free with free()):
 * widths from the candidate, red where a function grew; with `reverse`,
 * widths from the baseline, so code that vanished shows. PG_EINVAL when a
 * side has no samples (nothing to draw). */
int pg_explain_diff_svg(char **svg, size_t *len, const pg_comparison *c, const pg_bench_cmp *b, pg_folded *fa,
                        pg_folded *fb, const char *exact, int reverse);

#endif
