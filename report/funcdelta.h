/* report/funcdelta.h — which functions' own cost changed between two profiles.
 *
 * Self cost of a function: the count of every stack whose leaf frame is that
 * function (summed over all the places it is called from). This is what
 * compare lists under a regressed benchmark: the top N functions by the
 * absolute change of their self cost. With valgrind stacks (instruction
 * counts) and normalize = 0 the deltas are exact instruction counts.
 *
 * normalize = 1 scales BEFORE to AFTER's total first (before_scaled =
 * before * total_after / total_before), which is right for sampled
 * profiles whose lengths differ; normalize = 0 compares raw counts, which
 * is right for exact counts. The table says which it used.
 */
#ifndef PG_REPORT_FUNCDELTA_H
#define PG_REPORT_FUNCDELTA_H

#include "util/folded.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pg_funcdelta_row {
    const char *name;          /* owned by the table */
    uint64_t before, after;    /* raw self counts */
    double before_scaled;      /* before, scaled when normalized (else == before) */
    double delta;              /* after - before_scaled */
    double delta_pct;          /* delta / before_scaled * 100; +HUGE_VAL when
                                * before is 0 (a new function): check before == 0 */
    double share_before;       /* before as % of BEFORE's total (0 when empty) */
    double share_after;        /* after as % of AFTER's total */
} pg_funcdelta_row;

typedef struct pg_funcdelta {
    pg_funcdelta_row *rows;    /* sorted by |delta| descending, then by name */
    size_t n;                  /* at most top_n */
    size_t nfuncs;             /* functions with self cost on either side, before truncation */
    uint64_t total_before, total_after;
    double scale;              /* the factor applied to BEFORE (1 when raw) */
    int normalized;
} pg_funcdelta;

/* Fills *out (which the caller then frees with pg_funcdelta_free). top_n 0
 * keeps every function. Functions whose delta is exactly 0 are kept (after
 * the ones that changed), so a short table is still a complete picture. */
int pg_funcdelta_compute(pg_funcdelta *out, pg_folded *before, pg_folded *after, size_t top_n, int normalize);
void pg_funcdelta_free(pg_funcdelta *t);

#endif
