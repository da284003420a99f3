/* report/render.c — helpers every renderer shares (render.h). */
#include "report/render.h"
#include "report/divergence.h"
#include "report/format.h"
#include "util/metrics.h"

#include <math.h>

#include <string.h>

void pg_render_counts(char *buf, size_t len, const pg_comparison *c)
{
    static const pg_verdict order[] = {PG_VERDICT_REGRESSED, PG_VERDICT_IMPROVED, PG_VERDICT_INCONCLUSIVE,
                                       PG_VERDICT_UNCHANGED};
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < 4; i++) {
        size_t n = c->count[order[i]];
        if (!n || o >= len)
            continue;
        o += (size_t)snprintf(buf + o, len - o, "%s%zu %s", o ? ", " : "", n, pg_verdict_name(order[i]));
    }
    if (o < len)
        o += (size_t)snprintf(buf + o, len - o, "%s%zu benchmark%s compared", o ? " of " : "", c->nbench,
                              c->nbench == 1 ? "" : "s");
    if (c->nadded && o < len)
        o += (size_t)snprintf(buf + o, len - o, "; %zu new", c->nadded);
    if (c->nvanished && o < len)
        o += (size_t)snprintf(buf + o, len - o, "; %zu vanished", c->nvanished);
    if (c->ndiverged && o < len)
        o += (size_t)snprintf(buf + o, len - o, "; %zu divergence%s of counts and time%s", c->ndiverged,
                              c->ndiverged == 1 ? "" : "s", c->fail_on_divergence ? " (--fail-on-divergence: failing)" : "");
    if (c->coverage && o + 2 < len) {
        snprintf(buf + o, len - o, "; ");
        pg_render_coverage_summary(buf + o + 2, len - o - 2, c->coverage);
    }
}

void pg_render_divergence(char *buf, size_t len, const pg_comparison *c, const pg_bench_cmp *b)
{
    pg_metric_cells cc, tc;
    char kind[64];
    pg_render_metric_cells(&cc, &b->div->count);
    pg_render_metric_cells(&tc, &b->div->time);
    snprintf(buf, len, "%s %s (%s) but %s %s (%s): %s (Mann-Whitney p=%.3g, BH-adjusted %.3g)", b->div->count.metric,
             cc.pct, cc.delta, b->div->time.metric, tc.pct, tc.delta,
             pg_divergence_describe(kind, sizeof kind, (pg_divergence_kind)b->div->kind, c->divergence_factor),
             b->div->time.p, b->div->time.q);
}

void pg_render_side(char *buf, size_t len, const pg_side *s)
{
    char commit[16] = "";
    if (s->commit[0])
        snprintf(commit, sizeof commit, "%.12s", s->commit);
    /* The user typed an id: do not repeat it. */
    int label_is_id = s->commit[0] && strlen(s->label) >= 7 && !strncmp(s->label, s->commit, strlen(s->label));
    const char *label = label_is_id ? commit : s->label;
    const char *in = label_is_id ? "" : commit;
    /* Results of a dirty work tree are keyed to a commit they do not quite measure: say so. */
    const char *dirty = s->dirty ? "dirty work tree" : "";
    if (!*in && !*dirty)
        snprintf(buf, len, "%s", label);
    else
        snprintf(buf, len, "%s (%s%s%s)", label, in, *in && *dirty ? ", " : "", dirty);
}

int pg_render_notable(const pg_metric_cmp *m)
{
    return m->gating || m->verdict == PG_VERDICT_REGRESSED || m->verdict == PG_VERDICT_IMPROVED;
}

int pg_render_brief(const pg_metric_cmp *m)
{
    return pg_render_notable(m) && (m->gating || pg_metric_find(m->metric) || !m->simulated);
}

const char *pg_render_own_backend(const char *so_far, const pg_metric_cmp *m)
{
    const char *b = m->backend ? m->backend : "backend";
    return !so_far || !strcmp(so_far, b) ? b : "backend";
}

void pg_render_gates(char *buf, size_t len, const pg_gates *g)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; g && i < g->n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "", g->v[i]);
}

void pg_render_metric_cells(pg_metric_cells *out, const pg_metric_cmp *m)
{
    pg_format_with_unit(out->base, sizeof out->base, m->base, m->unit, 0);
    pg_format_with_unit(out->cand, sizeof out->cand, m->cand, m->unit, 0);
    pg_format_with_unit(out->delta, sizeof out->delta, m->delta_abs, m->unit, 1);
    pg_format_pct(out->pct, sizeof out->pct, m->delta_pct);
    pg_format_threshold(out->th, sizeof out->th, m->threshold_pct);
}

void pg_render_func_cells(pg_func_cells *out, const pg_func_row *f)
{
    pg_format_with_unit(out->base, sizeof out->base, f->base, "count", 0);
    pg_format_with_unit(out->cand, sizeof out->cand, f->cand, "count", 0);
    pg_format_with_unit(out->delta, sizeof out->delta, f->delta, "count", 1);
    pg_format_pct(out->pct, sizeof out->pct, f->base != 0 ? 100 * f->delta / f->base : NAN);
}

size_t pg_render_func_extra(pg_func_extra out[3], const pg_bench_cmp *b)
{
    size_t n = 0;
    if (b->nfuncs_other || b->funcs_other.delta != 0) {
        snprintf(out[n].label, sizeof out[n].label, "(%zu other function%s)", b->nfuncs_other,
                 b->nfuncs_other == 1 ? "" : "s");
        out[n].row = b->funcs_other;
        out[n++].is_total = 0;
    }
    const pg_metric_cmp *h = b->funcs_headline ? pg_bench_cmp_metric(b, b->funcs_headline) : NULL;
    if (h) {
        /* The two runs' difference, where there is one (DHAT's stacks and
         * counts agree to the byte: nothing to account for) */
        const pg_func_row *u = &b->funcs_unattributed;
        if (u->base != 0 || u->cand != 0 || u->delta != 0) {
            snprintf(out[n].label, sizeof out[n].label, "%s", PG_UNATTRIBUTED_LABEL);
            out[n].row = *u;
            out[n++].is_total = 0;
        }
        snprintf(out[n].label, sizeof out[n].label, "= %s (headline)", h->metric);
        out[n].row = (pg_func_row){NULL, h->base, h->cand, h->delta_abs};
        out[n++].is_total = 1;
    }
    return n;
}
