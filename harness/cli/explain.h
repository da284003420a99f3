/* harness/cli/explain.h — `compare`'s function tables and differential
 * flamegraphs: the file side of report/explain.h. */
#ifndef PG_HARNESS_EXPLAIN_H
#define PG_HARNESS_EXPLAIN_H

#include "report/compare.h"

#include <stddef.h>

/* For every regressed or improved benchmark with stacks on both sides, read
 * once: the `top` largest per-function self-cost changes into its `funcs`;
 * and, when `dir` is given and the benchmark regressed, two differential
 * flamegraphs in `dir` (created when missing):
 *   <name>.diff.svg          widths from the candidate, red where a function grew
 *   <name>.diff-reverse.svg  widths from the baseline, so code that vanished shows
 * where <name> is the benchmark's name made a file name (pg_path_safe_name).
 * Sets *written to the number of SVG files written. A stacks file that cannot
 * be read is a notice on stderr, not an error: the verdict stands without it.
 * PG_EIO when `dir` cannot be made or an SVG cannot be written; PG_ENOMEM. */
int pg_explain(pg_comparison *c, size_t top, const char *dir, size_t *written);

#endif
