/* report/render_text.c — the comparison as an aligned table for a terminal. */
#include "report/format.h"
#include "report/render.h"
#include "util/error.h"

#include <math.h>
#include <string.h>

#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

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
    return o->verbose || pg_render_notable(m);
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
    int wn = 8;
    for (size_t i = 0; i < b->nfuncs; i++)
        widen(&wn, b->funcs[i].name);
    if (wn > 60)
        wn = 60;
    fprintf(out, "\n  %s: self cost by function (%s), largest changes\n", b->name, b->funcs_unit ? b->funcs_unit : "samples");
    fprintf(out, "    %-*s %15s %15s %15s %9s\n", wn, "function", "baseline", "candidate", "delta", "delta %");
    for (size_t i = 0; i < b->nfuncs; i++) {
        pg_func_cells fc;
        pg_render_func_cells(&fc, &b->funcs[i]);
        fprintf(out, "    %-*.*s %15s %15s %15s %9s\n", wn, wn, b->funcs[i].name, fc.base, fc.cand, fc.delta, fc.pct);
    }
}

static void print_names(FILE *out, const char *what, const char *const *names, size_t n)
{
    if (!n)
        return;
    fprintf(out, "\n%s (%zu):", what, n);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s %s", i ? "," : "", names[i]);
    fputc('\n', out);
}

int pg_render_text(FILE *out, const pg_comparison *c, const pg_render_opts *o)
{
    char a[200], b[200], gates[256];
    pg_render_side(a, sizeof a, c->base);
    pg_render_side(b, sizeof b, c->cand);
    pg_render_gates(gates, sizeof gates, c->gates);
    fprintf(out, "perfgate compare: %s -> %s\n", a, b);
    if (c->cross_machine)
        fprintf(out, "machines: baseline %s (%s), candidate %s (%s) -- different machines, compared on request\n",
                c->base->machine_id, c->base->machine_desc, c->cand->machine_id, c->cand->machine_desc);
    else
        fprintf(out, "machine %s (%s), backend %s; gating on %s\n", c->cand->machine_id, c->cand->machine_desc,
                c->cand->backend, gates);
    if (c->cross_machine)
        fprintf(out, "gating on %s\n", gates);

    widths w = {9, 6, 8, 9, 5, 7, 9};
    for (size_t i = 0; i < c->nbench; i++) {
        const pg_bench_cmp *bc = &c->bench[i];
        widen(&w.name, bc->name);
        for (size_t k = 0; k < bc->nm; k++) {
            if (!shown(&bc->m[k], o))
                continue;
            pg_metric_cells ce;
            pg_render_metric_cells(&ce, &bc->m[k]);
            widen(&w.metric, bc->m[k].metric);
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
        int first = 1;
        for (size_t k = 0; k < bc->nm; k++) {
            const pg_metric_cmp *m = &bc->m[k];
            if (!shown(m, o))
                continue;
            pg_metric_cells ce;
            pg_render_metric_cells(&ce, m);
            const char *col = o->color ? colour_of(m->verdict) : "";
            fprintf(out, "%-*.*s  %-*s  %*s  %*s  %*s  %*s  %*s  %s%s%s", w.name, w.name, first ? bc->name : "",
                    w.metric, m->metric, w.base, ce.base, w.cand, ce.cand, w.delta, ce.delta, w.pct, ce.pct, w.th,
                    ce.th, col, pg_verdict_name(m->verdict), *col ? RESET : "");
            if (m->note[0])
                fprintf(out, "  (%s)", m->note);
            fputc('\n', out);
            first = 0;
        }
        if (first)      /* no metric shown: still say what happened to it */
            fprintf(out, "%-*.*s  %s\n", w.name, w.name, bc->name, pg_verdict_name(bc->verdict));
        if (bc->note[0])
            fprintf(out, "%-*s  note: %s\n", w.name, "", bc->note);
    }
    for (size_t i = 0; i < c->nbench; i++)
        if (c->bench[i].nfuncs)
            print_funcs(out, &c->bench[i]);
    print_names(out, "new benchmarks, not in the baseline", c->added, c->nadded);
    print_names(out, "vanished benchmarks, not in the candidate", c->vanished, c->nvanished);

    char counts[256];
    pg_render_counts(counts, sizeof counts, c);
    const char *col = o->color ? colour_of(c->verdict) : "";
    fprintf(out, "\n%sverdict: %s%s%s -- %s\n", o->color ? BOLD : "", col, pg_verdict_name(c->verdict),
            o->color ? RESET : "", counts);
    if (fflush(out) != 0 || ferror(out))
        return pg_error_errno(PG_EIO, "cannot write the report");
    return 0;
}
