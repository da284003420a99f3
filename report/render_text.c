/* report/render_text.c — the comparison as an aligned table for a terminal. */
#include "report/format.h"
#include "report/control.h"
#include "report/coverage.h"
#include "report/render.h"
#include "util/error.h"
#include "util/text.h"

#include <math.h>
#include <string.h>

#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

/* Everything shown comes from result documents: escaped for the terminal
 * (util/text.h), so a name cannot clear the screen or forge a line. Longer
 * than a buffer, it is cut with "...": a terminal table is not the archive. */
typedef char tbuf[512];
static const char *t(char *buf, const char *s)
{
    return pg_text_escape_buf(buf, sizeof(tbuf), s, PG_TEXT_TERM);
}

/* s cut to `w` bytes at a character boundary, into buf. */
static const char *cut(char *buf, const char *s, int w)
{
    size_t n = pg_text_prefix(s, (size_t)w);
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

static const char *colour_of(pg_verdict v)
{
    switch (v) {
    case PG_VERDICT_REGRESSED: return RED;
    case PG_VERDICT_IMPROVED: return GREEN;
    case PG_VERDICT_INCONCLUSIVE: return YELLOW;
    default: return "";
    }
}

static int shown(const pg_metric_cmp *m, const pg_render_opts *o)
{
    return o->verbose || pg_render_brief(m);
}

typedef struct widths {
    int name, metric, base, cand, delta, pct, th;
} widths;

static void widen(int *w, const char *s)
{
    int l = (int)strlen(s);
    if (l > *w)
        *w = l;
}

static void print_funcs(FILE *out, const pg_bench_cmp *b)
{
    tbuf nb, fb, cb;
    pg_func_extra ex[3];
    size_t nex = pg_render_func_extra(ex, b);
    int wn = 8;
    for (size_t i = 0; i < b->nfuncs; i++)
        widen(&wn, t(fb, b->funcs[i].name));
    for (size_t i = 0; i < nex; i++)
        widen(&wn, ex[i].label);
    if (wn > 60)
        wn = 60;
    fprintf(out, "\n  %s: self cost by function (%s), largest changes\n", t(nb, b->name),
            b->funcs_unit ? b->funcs_unit : "samples");
    fprintf(out, "    %-*s %15s %15s %15s %9s\n", wn, "function", "baseline", "candidate", "delta", "delta %");
    pg_func_cells fc;
    for (size_t i = 0; i < b->nfuncs; i++) {
        pg_render_func_cells(&fc, &b->funcs[i]);
        fprintf(out, "    %-*s %15s %15s %15s %9s\n", wn, cut(cb, t(fb, b->funcs[i].name), wn), fc.base, fc.cand,
                fc.delta, fc.pct);
    }
    for (size_t i = 0; i < nex; i++) {
        pg_render_func_cells(&fc, &ex[i].row);
        fprintf(out, "    %-*s %15s %15s %15s %9s\n", wn, cut(cb, ex[i].label, wn), fc.base, fc.cand, fc.delta, fc.pct);
    }
}

static void print_names(FILE *out, const char *what, const char *const *names, size_t n)
{
    if (!n)
        return;
    fprintf(out, "\n%s (%zu):", what, n);
    tbuf nb;
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s %s", i ? "," : "", t(nb, names[i]));
    fputc('\n', out);
}

/* A metric's cells, escaped: the numbers are ours, the unit the document's. */
static void cells_of(pg_metric_cells *ce, const pg_metric_cmp *m)
{
    pg_render_metric_cells(ce, m);
    char *f[] = {ce->base, ce->cand, ce->delta, ce->pct, ce->th};
    size_t len[] = {sizeof ce->base, sizeof ce->cand, sizeof ce->delta, sizeof ce->pct, sizeof ce->th};
    for (size_t i = 0; i < 5; i++) {
        tbuf tmp;
        snprintf(tmp, sizeof tmp, "%s", f[i]);
        pg_text_escape_buf(f[i], len[i], tmp, PG_TEXT_TERM);
    }
}

static void print_round(FILE *out, const pg_metric_cmp *m)
{
    pg_metric_cells ce;
    cells_of(&ce, m);
    char p[32];
    snprintf(p, sizeof p, isnan(m->q) ? "-" : "%.2g", m->q);
    fprintf(out, " %9s %6s  %-12s", ce.pct, p, pg_verdict_name(m->verdict));
}

/* Both rounds of every benchmark measured again (report/confirm.h). */
static void print_confirmation(FILE *out, const pg_comparison *c)
{
    if (!c->nremeasured)
        return;
    fprintf(out, "\nconfirmation: regressed on noisy metrics only, so both revisions were measured again,\n"
                 "interleaved (A B A B ...); round 2 compares the new runs alone\n");
    fprintf(out, "  %-20s %-12s %9s %6s  %-12s %9s %6s  %-12s %s\n", "benchmark", "metric", "round 1", "adj. p",
            "verdict", "round 2", "adj. p", "verdict", "outcome");
    for (size_t i = 0; i < c->nbench; i++) {
        const pg_bench_cmp *b = &c->bench[i];
        if (b->round1 != PG_VERDICT_REGRESSED)
            continue;
        tbuf nb, mb;
        for (size_t k = 0; k < b->nm; k++) {
            const pg_metric_cmp *m = &b->m[k];
            if (!m->gating || m->deterministic)
                continue;
            fprintf(out, "  %-20s %-12s", t(nb, b->name), t(mb, m->metric));
            print_round(out, m);
            const pg_metric_cmp *m2 = b->round2 ? pg_bench_cmp_metric(b->round2, m->metric) : NULL;
            if (m2)
                print_round(out, m2);
            else
                fprintf(out, " %9s %6s  %-12s", "-", "-", "not measured");
            fprintf(out, " %s\n", b->confirmed ? "confirmed: regressed" : "not confirmed: inconclusive");
        }
    }
}

/* --control (report/control.h): the control's largest delta per gating
 * metric, the regressions it settled, the exact counts it caught. */
static void print_control(FILE *out, const pg_comparison *c)
{
    if (!c->controlled)
        return;
    fprintf(out, "\ncontrol: the baseline measured twice in this run, interleaved with the candidate (A A' B);\n"
                 "A against A' is what this run's measuring makes of no change\n  largest A/A delta:");
    for (size_t g = 0; c->gates && g < c->gates->n; g++) {
        char pct[24];
        pg_format_pct_fine(pct, sizeof pct, pg_control_largest(c, c->gates->v[g]));
        fprintf(out, "%s %s %s", g ? "," : "", c->gates->v[g], pct[0] == '+' ? pct + 1 : pct);
    }
    fputc('\n', out);
    for (size_t i = 0; i < c->nbench; i++) {
        const pg_bench_cmp *b = &c->bench[i];
        for (size_t k = 0; k < b->nm; k++) {
            const pg_metric_cmp *m = &b->m[k];
            tbuf nb, mb;
            if (!m->controlled)
                continue;
            if (m->exact_drift)
                fprintf(out, "  EXACT COUNT DIFFERS in the control: %s %s by %g: its counts do not repeat; "
                        "its delta is decided against that difference\n", t(nb, b->name), t(mb, m->metric), m->control_abs);
            else if (m->within_noise)
                fprintf(out, "  %s %s: %s\n", t(nb, b->name), t(mb, m->metric), m->note ? m->note : "");
        }
    }
}

/* The coverage of the change (report/coverage.h): each changed function,
 * covered or not, the changed files no program has, and what did not map. */
static void print_coverage(FILE *out, const pg_comparison *c)
{
    const pg_coverage *cv = c->coverage;
    if (!cv)
        return;
    char line[4096], esc[sizeof line * 4];
    pg_render_coverage_summary(line, sizeof line, cv);
    fprintf(out, "\ncoverage of the change: %s\n", line);
    for (size_t i = 0; i < cv->nf; i++) {
        pg_render_coverage_func(line, sizeof line, cv, &cv->f[i]);
        fprintf(out, "  %s\n", pg_text_escape_buf(esc, sizeof esc, line, PG_TEXT_TERM));
    }
    for (size_t i = 0; i < cv->nunmapped; i++)
        fprintf(out, "  changed, in no benchmark's function table: %s\n",
                pg_text_escape_buf(esc, sizeof esc, cv->unmapped[i], PG_TEXT_TERM));
    if (cv->note)
        fprintf(out, "  note: %s\n", pg_text_escape_buf(esc, sizeof esc, cv->note, PG_TEXT_TERM));
}

int pg_render_text(FILE *out, const pg_comparison *c, const pg_render_opts *o)
{
    char a[200], b[200], gates[256];
    tbuf ta, tb, tg, t1, t2, t3, t4;
    pg_render_side(a, sizeof a, c->base);
    pg_render_side(b, sizeof b, c->cand);
    pg_render_gates(gates, sizeof gates, c->gates);
    fprintf(out, "perfgate compare: %s -> %s\n", t(ta, a), t(tb, b));
    if (c->cross_machine)
        fprintf(out, "machines: baseline %s (%s), candidate %s (%s) -- different machines, compared on request\n",
                t(t1, c->base->machine_id), t(t2, c->base->machine_desc), t(t3, c->cand->machine_id),
                t(t4, c->cand->machine_desc));
    else
        fprintf(out, "machine %s (%s), backend %s; gating on %s\n", t(t1, c->cand->machine_id),
                t(t2, c->cand->machine_desc), t(t3, c->cand->backend), t(tg, gates));
    if (c->cross_machine)
        fprintf(out, "gating on %s\n", t(tg, gates));
    const pg_side *sides[2] = {c->base, c->cand};
    for (int k = 0; k < 2; k++)
        if (sides[k]->nfetched && sides[k]->nfetched == sides[k]->nruns)
            fprintf(out, "%s: results of another clone only, from its git note (%zu run%s, host %s)\n",
                    t(t1, sides[k]->label), sides[k]->nfetched, sides[k]->nfetched == 1 ? "" : "s",
                    t(t2, sides[k]->fetched_host));

    widths w = {9, 6, 8, 9, 5, 7, 9};
    for (size_t i = 0; i < c->nbench; i++) {
        const pg_bench_cmp *bc = &c->bench[i];
        widen(&w.name, t(t1, bc->name));
        for (size_t k = 0; k < bc->nm; k++) {
            if (!shown(&bc->m[k], o))
                continue;
            pg_metric_cells ce;
            cells_of(&ce, &bc->m[k]);
            widen(&w.metric, t(t1, bc->m[k].metric));
            widen(&w.base, ce.base);
            widen(&w.cand, ce.cand);
            widen(&w.delta, ce.delta);
            widen(&w.pct, ce.pct);
            widen(&w.th, ce.th);
        }
    }
    if (w.name > 48)
        w.name = 48;
    if (c->nbench) {
        fprintf(out, "\n%-*s  %-*s  %*s  %*s  %*s  %*s  %*s  %s\n", w.name, "benchmark", w.metric, "metric",
                w.base, "baseline", w.cand, "candidate", w.delta, "delta", w.pct, "delta %", w.th, "threshold",
                "verdict");
    }
    for (size_t i = 0; i < c->nbench; i++) {
        const pg_bench_cmp *bc = &c->bench[i];
        const char *name = cut(t2, t(t1, bc->name), w.name);
        int first = 1;
        for (size_t k = 0; k < bc->nm; k++) {
            const pg_metric_cmp *m = &bc->m[k];
            if (!shown(m, o))
                continue;
            pg_metric_cells ce;
            cells_of(&ce, m);
            const char *col = o->color ? colour_of(m->verdict) : "";
            fprintf(out, "%-*s  %-*s  %*s  %*s  %*s  %*s  %*s  %s%s%s", w.name, first ? name : "", w.metric,
                    t(t3, m->metric), w.base, ce.base, w.cand, ce.cand, w.delta, ce.delta, w.pct, ce.pct, w.th,
                    ce.th, col, pg_verdict_name(m->verdict), *col ? RESET : "");
            if (m->note)
                fprintf(out, "  (%s)", t(t4, m->note));
            fputc('\n', out);
            first = 0;
        }
        if (first)      /* no metric shown: still say what happened to it */
            fprintf(out, "%-*s  %s\n", w.name, name, pg_verdict_name(bc->verdict));
        size_t hidden = 0;
        const char *by = NULL;      /* the backend whose own counters they are, named by the data */
        for (size_t k = 0; k < bc->nm; k++)
            if (!shown(&bc->m[k], o) && pg_render_notable(&bc->m[k])) {
                hidden++;
                by = pg_render_own_backend(by, &bc->m[k]);
            }
        if (hidden)
            fprintf(out, "%-*s  (+%zu more %s metric%s changed: -v shows %s)\n", w.name, "", hidden, t(t4, by),
                    hidden == 1 ? "" : "s", hidden == 1 ? "it" : "them");
        if (bc->note)
            fprintf(out, "%-*s  note: %s\n", w.name, "", t(t4, bc->note));
        if (bc->div) {
            char d[512];
            pg_render_divergence(d, sizeof d, c, bc);
            fprintf(out, "%-*s  %sdivergence%s: %s\n", w.name, "", o->color ? YELLOW : "", o->color ? RESET : "",
                    t(t4, d));
        }
    }
    for (size_t i = 0; i < c->nbench; i++)
        if (c->bench[i].nfuncs)
            print_funcs(out, &c->bench[i]);
    print_confirmation(out, c);
    print_control(out, c);
    print_coverage(out, c);
    print_names(out, "new benchmarks, not in the baseline", c->added, c->nadded);
    print_names(out, "vanished benchmarks, not in the candidate", c->vanished, c->nvanished);
    if (c->nmissing) {
        fprintf(out, "\nnot gated (%zu): no gating metric compared for", c->nmissing);
        for (size_t i = 0; i < c->nmissing; i++)
            fprintf(out, "%s %s (%s)", i ? "," : "", t(t1, c->missing[i].bench), t(t2, c->missing[i].reason));
        fputc('\n', out);
    }

    char counts[256];
    pg_render_counts(counts, sizeof counts, c);
    const char *col = o->color ? colour_of(c->verdict) : "";
    fprintf(out, "\n%sverdict: %s%s%s -- %s\n", o->color ? BOLD : "", col, pg_verdict_name(c->verdict),
            o->color ? RESET : "", counts);
    if (fflush(out) != 0 || ferror(out))
        return pg_error_errno(PG_EIO, "cannot write the report");
    return 0;
}
