/* report/render_json.c — the comparison as JSON (DESIGN.md's shape and more). */
#include "report/render.h"
#include "util/error.h"

#include <math.h>
#include <string.h>

/* JSON has no NaN: a value that does not exist is null. */
static void num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static cJSON *side(const pg_side *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "label", s->label);
    if (s->commit[0])
        cJSON_AddStringToObject(o, "commit", s->commit);
    else
        cJSON_AddNullToObject(o, "commit");
    cJSON_AddStringToObject(o, "machine", s->machine_id);
    cJSON_AddStringToObject(o, "machine_description", s->machine_desc);
    cJSON_AddStringToObject(o, "backend", s->backend);
    cJSON_AddNumberToObject(o, "runs", (double)s->nruns);
    return o;
}

static const char *const sources[] = {"default", "manifest", "command line"};

static cJSON *metric(const pg_metric_cmp *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", m->metric);
    cJSON_AddStringToObject(o, "unit", m->unit);
    cJSON_AddStringToObject(o, "backend", m->backend);
    num(o, "baseline", m->base);
    num(o, "candidate", m->cand);
    num(o, "delta", m->delta_abs);
    num(o, "delta_pct", m->delta_pct);
    cJSON_AddNumberToObject(o, "threshold_pct", m->threshold_pct);
    cJSON_AddStringToObject(o, "threshold_source", sources[m->threshold_source]);
    cJSON_AddStringToObject(o, "verdict", pg_verdict_name(m->verdict));
    cJSON_AddBoolToObject(o, "gating", m->gating);
    cJSON_AddBoolToObject(o, "deterministic", m->deterministic);
    cJSON_AddNumberToObject(o, "baseline_samples", (double)m->na);
    cJSON_AddNumberToObject(o, "candidate_samples", (double)m->nb);
    num(o, "p", m->p);
    num(o, "p_adjusted", m->q);
    if (m->not_compared)
        cJSON_AddBoolToObject(o, "compared", 0);
    if (m->note[0])
        cJSON_AddStringToObject(o, "note", m->note);
    return o;
}

static cJSON *bench(const pg_bench_cmp *b)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", b->name);
    cJSON_AddStringToObject(o, "verdict", pg_verdict_name(b->verdict));
    if (b->note[0])
        cJSON_AddStringToObject(o, "note", b->note);
    cJSON *ms = cJSON_AddArrayToObject(o, "metrics");
    for (size_t k = 0; k < b->nm; k++)
        cJSON_AddItemToArray(ms, metric(&b->m[k]));
    if (b->nfuncs) {
        cJSON *fo = cJSON_AddObjectToObject(o, "functions");
        cJSON_AddStringToObject(fo, "unit", b->funcs_unit ? b->funcs_unit : "samples");
        cJSON *rows = cJSON_AddArrayToObject(fo, "top");
        for (size_t i = 0; i < b->nfuncs; i++) {
            cJSON *r = cJSON_CreateObject();
            cJSON_AddStringToObject(r, "name", b->funcs[i].name);
            cJSON_AddNumberToObject(r, "baseline", b->funcs[i].base);
            cJSON_AddNumberToObject(r, "candidate", b->funcs[i].cand);
            cJSON_AddNumberToObject(r, "delta", b->funcs[i].delta);
            cJSON_AddItemToArray(rows, r);
        }
    }
    return o;
}

cJSON *pg_render_json_tree(const pg_comparison *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "schema", "perfgate-compare/1");
    cJSON_AddStringToObject(o, "verdict", pg_verdict_name(c->verdict));
    cJSON_AddItemToObject(o, "baseline", side(c->base));
    cJSON_AddItemToObject(o, "candidate", side(c->cand));
    cJSON_AddBoolToObject(o, "cross_machine", c->cross_machine);
    cJSON *g = cJSON_AddArrayToObject(o, "gates");
    for (size_t i = 0; c->gates && i < c->gates->n; i++)
        cJSON_AddItemToArray(g, cJSON_CreateString(c->gates->v[i]));
    cJSON_AddNumberToObject(o, "alpha", c->alpha);
    cJSON *counts = cJSON_AddObjectToObject(o, "counts");
    for (int v = 0; v < 4; v++)
        cJSON_AddNumberToObject(counts, pg_verdict_name((pg_verdict)v), (double)c->count[v]);
    cJSON *bs = cJSON_AddArrayToObject(o, "benchmarks");
    for (size_t i = 0; i < c->nbench; i++)
        cJSON_AddItemToArray(bs, bench(&c->bench[i]));
    cJSON *add = cJSON_AddArrayToObject(o, "new");
    for (size_t i = 0; i < c->nadded; i++)
        cJSON_AddItemToArray(add, cJSON_CreateString(c->added[i]));
    cJSON *van = cJSON_AddArrayToObject(o, "vanished");
    for (size_t i = 0; i < c->nvanished; i++)
        cJSON_AddItemToArray(van, cJSON_CreateString(c->vanished[i]));
    return o;
}

int pg_render_json(FILE *out, const pg_comparison *c)
{
    cJSON *o = pg_render_json_tree(c);
    char *text = o ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (!text)
        return pg_error_set(PG_ENOMEM, "out of memory");
    fputs(text, out);
    fputc('\n', out);
    cJSON_free(text);
    if (fflush(out) != 0 || ferror(out))
        return pg_error_errno(PG_EIO, "cannot write the report");
    return 0;
}
