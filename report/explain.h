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

/* Both sides measured by a backend of exact counts (pg_side.stacks_exact):
 * their stacks carry exact counts and are compared raw; sampled stacks are
 * normalized to the candidate's total. */
int pg_explain_exact(const pg_comparison *c);
/* What the stacks weigh, for tables and flamegraphs: exact stacks' own unit
 * (their backend's: "instructions", "bytes"), else "samples". */
const char *pg_explain_unit(const pg_comparison *c);

/* The `top` largest per-function self-cost changes of `b` (one of c's) into
 * b->funcs (functions whose self cost did not change left out); for exact
 * stacks, the rows the metric they add up to (pg_side.stacks_metric) holds
 * beyond them. PG_ENOMEM. */
int pg_explain_funcs(pg_bench_cmp *b, const pg_comparison *c, pg_folded *fa, pg_folded *fb, size_t top);

/* One differential flamegraph of `b` as SVG text (free with free()):
 * widths from the candidate, red where a function grew; with `reverse`,
 * widths from the baseline, so code that vanished shows. PG_EINVAL when a
 * side has no samples (nothing to draw). */
int pg_explain_diff_svg(char **svg, size_t *len, const pg_comparison *c, const pg_bench_cmp *b, pg_folded *fa,
                        pg_folded *fb, int reverse);

#endif
