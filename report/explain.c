/* report/explain.c — see explain.h.
 *
 * The per-function deltas and the diff SVGs themselves are computed by
 * report/funcdelta.h and report/flamegraph.h; this file picks the benchmarks
 * and fills the comparison's function tables. */
#include "report/explain.h"
#include "report/flamegraph.h"
#include "report/funcdelta.h"
#include "util/error.h"
#include "util/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pg_explain_wanted(const pg_bench_cmp *b)
{
    return b->stacks_a && b->stacks_b &&
           (b->verdict == PG_VERDICT_REGRESSED || b->verdict == PG_VERDICT_IMPROVED);
}

int pg_explain_exact(const pg_comparison *c)
{
    /* stacks of two different weights (instructions, heap bytes) are not set
     * against each other raw */
    return c->base->stacks_exact && c->cand->stacks_exact && !strcmp(c->base->stacks_unit, c->cand->stacks_unit) &&
           !strcmp(c->base->stacks_metric, c->cand->stacks_metric);
}

const char *pg_explain_unit(const pg_comparison *c)
{
    return !pg_explain_exact(c) ? "samples" : c->cand->stacks_unit[0] ? c->cand->stacks_unit : "counts";
}

/* The rows the table leaves out, and — for exact stacks — the headline minus
 * the stacks' totals, so that the table adds up exactly. The stacks are all
 * of the run that recorded them; the headline comes from other runs (the
 * counting runs, cachegrind's), so that row is the two runs' difference, and
 * named so: not code the stacks miss. `ia`, `ib`: what each side's counts
 * are divided by (its iterations, or 1). */
static void rest(pg_bench_cmp *b, const pg_funcdelta *t, const char *headline, double ia, double ib)
{
    double before = (double)t->total_before * t->scale / ia, after = (double)t->total_after / ib;
    pg_func_row *o = &b->funcs_other;
    o->base = before;
    o->cand = after;
    for (size_t k = 0; k < b->nfuncs; k++) {
        o->base -= b->funcs[k].base;
        o->cand -= b->funcs[k].cand;
    }
    o->delta = o->cand - o->base;
    b->nfuncs_other = t->nfuncs - b->nfuncs;
    const pg_metric_cmp *h = headline && *headline ? pg_bench_cmp_metric(b, headline) : NULL;
    if (!h || h->not_compared || !h->na || !h->nb)
        return;
    b->funcs_headline = h->metric;
    b->funcs_unattributed.base = h->base - before;
    b->funcs_unattributed.cand = h->cand - after;
    /* the headline's delta minus everything the rows and `other` hold: exact */
    b->funcs_unattributed.delta = h->delta_abs - (after - before);
}

int pg_explain_funcs(pg_bench_cmp *b, const pg_comparison *c, pg_folded *fa, pg_folded *fb, size_t top)
{
    int exact = pg_explain_exact(c);
    const char *unit = pg_explain_unit(c);
    /* A Google Benchmark's headline is per iteration: so are its rows when
     * both sides' stacks are of the timed region; when only one side's are,
     * the two cannot be set against each other, and the headline is not
     * what they add up to (no unattributed row, said in the unit). */
    int per_iter = exact && b->iter_a > 0 && b->iter_b > 0, mixed = (b->iter_a > 0) != (b->iter_b > 0);
    double ia = per_iter ? b->iter_a : 1, ib = per_iter ? b->iter_b : 1;
    pg_funcdelta t;
    int rc = pg_funcdelta_compute(&t, fa, fb, top, !exact);
    if (rc < 0)
        return rc;
    b->funcs = calloc(t.n ? t.n : 1, sizeof *b->funcs);
    char words[256];
    snprintf(words, sizeof words, "%s%s", unit,
             !exact ? ", baseline scaled to the candidate's total"
             : per_iter ? " per iteration, the timed region only"
             : mixed ? "; one side's stacks are the timed region's, the other's the whole process's: not "
                       "comparable with the headline"
                     : "");
    b->funcs_unit = strdup(words);
    if (!b->funcs || !b->funcs_unit)
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t k = 0; rc == 0 && k < t.n; k++) {
        double base = t.rows[k].before_scaled / ia, cand = (double)t.rows[k].after / ib;
        if (cand - base == 0)
            continue;   /* the table is about what changed */
        pg_func_row *r = &b->funcs[b->nfuncs];
        if (!(r->name = strdup(t.rows[k].name))) {
            rc = pg_error_set(PG_ENOMEM, "out of memory");
            break;
        }
        r->base = base, r->cand = cand, r->delta = cand - base;
        b->nfuncs++;
    }
    if (rc == 0)
        rest(b, &t, exact && !mixed ? c->cand->stacks_metric : NULL, ia, ib);
    pg_funcdelta_free(&t);
    return rc;
}

int pg_explain_diff_svg(char **svg, size_t *len, const pg_comparison *c, const pg_bench_cmp *b, pg_folded *fa,
                        pg_folded *fb, int reverse)
{
    int exact = pg_explain_exact(c);
    char title[512];
    pg_flamegraph_opts o;
    pg_flamegraph_opts_init(&o);
    o.unit = pg_explain_unit(c);
    o.normalize = !exact;
    /* What the stacks' recorder said is inexact about them (callgrind's), as stored with the results. */
    o.subtitle = b->stacks_note && *b->stacks_note ? b->stacks_note : NULL;
    snprintf(title, sizeof title, "%s: %s -> %s%s", b->name, c->base->label, c->cand->label,
             reverse ? " (widths from the baseline)" : "");
    o.title = title;
    o.reverse = reverse;
    return pg_flamegraph_render_diff(svg, len, fa, fb, &o);
}
