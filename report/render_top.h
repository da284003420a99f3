/* report/render_top.h — `perfgate top`'s table and one-level trees, as text
 * for a terminal and as JSON.
 *
 * Text (as pprof --text):
 *     prof.folded: 100 samples, 7 functions; top 5 by self
 *           self   self%    sum%     total  total%  function
 *             30  30.00%  30.00%        30  30.00%  hash
 * `sum%` is the running share of self down the rows shown. By default a line
 * fits `columns` (80): a name too long for what is left is cut in the middle
 * ("std::vector<...>::push_back"), its start and its end kept, which tell
 * functions apart better than either alone; `wide` prints names whole.
 * Names are escaped for a terminal (util/text.h) before they are measured.
 *
 * JSON: the same rows with the same numbers, percentages as numbers with the
 * same two decimals; names whole, made valid UTF-8.
 */
#ifndef PG_REPORT_RENDER_TOP_H
#define PG_REPORT_RENDER_TOP_H

#include "report/top.h"

#include <stddef.h>
#include <stdio.h>

typedef struct pg_top_view {
    const char *source;          /* what the header names: the file, or REV:BENCH */
    const char *unit;            /* what the counts are; NULL: "samples" */
    const pg_top_opts *opts;     /* the filters and order, said in the header; NULL: none */
    size_t rows;                 /* most rows per table; 0: all */
    int wide;                    /* names whole, however long the line */
    int columns;                 /* <= 0: 80 */
} pg_top_view;

/* The table of `t`. PG_EIO when `out` cannot be written, PG_ENOMEM. */
int pg_top_render_text(FILE *out, const pg_top *t, const pg_top_view *v);
int pg_top_render_json(FILE *out, const pg_top *t, const pg_top_view *v);

/* The tree around one function: its callers (when `callers`), its own line,
 * its callees (when `callees`). */
int pg_top_render_peek_text(FILE *out, const pg_top *t, const pg_top_peek *p, int callers, int callees,
                            const pg_top_view *v);
int pg_top_render_peek_json(FILE *out, const pg_top *t, const pg_top_peek *p, int callers, int callees,
                            const pg_top_view *v);

#endif
