/* harness/results.c — see results.h. */
#include "harness/results.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const cJSON *o, const char *k)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return s ? s : "";
}

static const char *machine_of(const cJSON *run)
{
    return str(cJSON_GetObjectItemCaseSensitive(run, "machine"), "id");
}

size_t pg_results_machines(const cJSON *runs, char ids[][16], size_t max)
{
    size_t n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, runs) {
        const char *id = machine_of(r);
        size_t i;
        for (i = 0; i < n; i++)
            if (!strcmp(ids[i], id))
                break;
        if (i == n && n < max)
            snprintf(ids[n++], 16, "%s", id);
    }
    return n;
}

static pg_result_bench *bench_get(pg_result_side *s, const char *name)
{
    for (size_t i = 0; i < s->nb; i++)
        if (!strcmp(s->b[i].name, name))
            return &s->b[i];
    pg_result_bench *nb = realloc(s->b, (s->nb + 1) * sizeof *nb);
    if (!nb)
        return NULL;
    s->b = nb;
    pg_result_bench *b = &s->b[s->nb++];
    memset(b, 0, sizeof *b);
    b->name = strdup(name);
    return b;
}

static pg_result_metric *metric_get(pg_result_bench *b, const char *name, const char *unit, const char *backend)
{
    for (size_t i = 0; i < b->nm; i++)
        if (!strcmp(b->m[i].name, name) && !strcmp(b->m[i].backend, backend))
            return &b->m[i];
    pg_result_metric *nm = realloc(b->m, (b->nm + 1) * sizeof *nm);
    if (!nm)
        return NULL;
    b->m = nm;
    pg_result_metric *m = &b->m[b->nm++];
    memset(m, 0, sizeof *m);
    m->name = strdup(name);
    m->unit = strdup(unit);
    m->backend = strdup(backend);
    return m;
}

static int push(pg_result_metric *m, double v)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 8;
        double *nv = realloc(m->v, cap * sizeof *nv);
        if (!nv)
            return pg_error_set(PG_ENOMEM, "out of memory");
        m->v = nv;
        m->cap = cap;
    }
    m->v[m->n++] = v;
    return 0;
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? strdup(s) : NULL;
}

int pg_results_collect(pg_result_side *side, const cJSON *runs, const char *machine_id)
{
    const cJSON *run;
    cJSON_ArrayForEach(run, runs) {
        if (machine_id && strcmp(machine_of(run), machine_id))
            continue;
        side->nruns++;
        const cJSON *mach = cJSON_GetObjectItemCaseSensitive(run, "machine");
        snprintf(side->machine_id, sizeof side->machine_id, "%s", machine_of(run));
        snprintf(side->machine_desc, sizeof side->machine_desc, "%s, %d cores, %s", str(mach, "cpu_model"),
                 (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(mach, "cores")), str(mach, "kernel"));
        snprintf(side->backend, sizeof side->backend, "%s", str(run, "backend"));
        if (!side->commit[0] && *str(run, "commit"))
            snprintf(side->commit, sizeof side->commit, "%s", str(run, "commit"));
        const cJSON *jb;
        cJSON_ArrayForEach(jb, cJSON_GetObjectItemCaseSensitive(run, "benchmarks")) {
            const char *name = str(jb, "name");
            if (!*name)
                return pg_error_set(PG_EINVAL, "a stored benchmark has no name (run %s)", str(run, "id"));
            pg_result_bench *b = bench_get(side, name);
            if (!b)
                return pg_error_set(PG_ENOMEM, "out of memory");
            b->failed = !strcmp(str(jb, "status"), "failed");
            set_str(&b->failure, b->failed ? str(cJSON_GetObjectItemCaseSensitive(jb, "failure"), "reason") : NULL);
            const cJSON *th = cJSON_GetObjectItemCaseSensitive(jb, "thresholds");
            if (th) {
                cJSON_Delete(b->thresholds);
                b->thresholds = cJSON_Duplicate(th, 1);
            }
            const char *stacks = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(jb, "stacks"));
            if (stacks)
                set_str(&b->stacks, stacks);
            const cJSON *jm;
            cJSON_ArrayForEach(jm, cJSON_GetObjectItemCaseSensitive(jb, "metrics")) {
                pg_result_metric *m = metric_get(b, jm->string, str(jm, "unit"), str(jm, "backend"));
                if (!m)
                    return pg_error_set(PG_ENOMEM, "out of memory");
                const cJSON *v;
                cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(jm, "samples")) {
                    if (!cJSON_IsNumber(v))
                        return pg_error_set(PG_EINVAL, "benchmark %s, metric %s: a sample is not a number", name, jm->string);
                    int rc = push(m, v->valuedouble);
                    if (rc < 0)
                        return rc;
                }
            }
        }
    }
    return 0;
}

void pg_results_free(pg_result_side *side)
{
    for (size_t i = 0; i < side->nb; i++) {
        pg_result_bench *b = &side->b[i];
        free(b->name);
        free(b->failure);
        free(b->stacks);
        cJSON_Delete(b->thresholds);
        for (size_t j = 0; j < b->nm; j++) {
            free(b->m[j].name);
            free(b->m[j].unit);
            free(b->m[j].backend);
            free(b->m[j].v);
        }
        free(b->m);
    }
    free(side->b);
    side->b = NULL;
    side->nb = 0;
}
