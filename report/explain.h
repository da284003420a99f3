/* report/explain.h — where a regression went: per-function self-cost tables
 * and differential flamegraphs from the folded stacks stored with results. */
#ifndef PG_REPORT_EXPLAIN_H
#define PG_REPORT_EXPLAIN_H

#include "report/compare.h"

/* Writes, for every regressed benchmark with stacks on both sides, two
 * differential flamegraphs into `dir` (created when missing):
 *   <name>.diff.svg          widths from the candidate, red where a function grew
 *   <name>.diff-reverse.svg  widths from the baseline, so code that vanished shows
 * where <name> is the benchmark's name with anything but [A-Za-z0-9._-] made '_'.
 * Sets *written to the number of files written. A stacks file that cannot be
 * read is a notice on stderr, not an error. PG_EIO when `dir` cannot be made
 * or an SVG cannot be written. */
int pg_explain_flamegraphs(size_t *written, const pg_comparison *c, const char *dir);

/* The file-name form of a benchmark name (see above) into buf. */
void pg_explain_file_name(char *buf, size_t len, const char *bench);

#endif
