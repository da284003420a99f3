/* harness/results.c — see results.h. */
#include "harness/results.h"
#include "util/array.h"
#include "util/error.h"
#include "util/jsonfile.h"
#include "util/strindex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const cJSON *o, const char *k)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return s ? s : "";
}

const char *pg_run_machine_id(const cJSON *run)
{
    return str(cJSON_GetObjectItemCaseSensitive(run, "machine"), "id");
}

const char *pg_run_backend(const cJSON *run) { return str(run, "backend"); }

typedef struct collector {
    pg_side *side;
    pg_strindex index;      /* bench name -> position in side->b */
} collector;

static pg_bench_result *bench_get(collector *c, const char *name)
{
    pg_side *s = c->side;
    size_t i;
    if (pg_strindex_get(&c->index, name, &i))
        return &s->b[i];
    if (pg_array_grow(&s->b, &s->cap, s->nb, sizeof *s->b, 16) < 0)
        return NULL;
    pg_bench_result *b = &s->b[s->nb];
    memset(b, 0, sizeof *b);
    b->name = strdup(name);
    if (!b->name || pg_strindex_put(&c->index, b->name, s->nb) < 0) {
        free(b->name);
        return NULL;
    }
    s->nb++;
    return b;
}

/* A wall-time measured under valgrind is not one measured natively: metrics
 * are keyed by the run's backend as well as their name. */
static pg_series *metric_get(pg_bench_result *b, const char *name, const char *unit, const char *backend,
                             const char *source)
{
    for (size_t i = 0; i < b->nm; i++)
        if (!strcmp(b->m[i].metric, name) && !strcmp(b->m[i].backend, backend))
            return &b->m[i];
    pg_series *nm = realloc(b->m, (b->nm + 1) * sizeof *nm);
    if (!nm)
        return NULL;
    b->m = nm;
    pg_series *m = &b->m[b->nm];
    memset(m, 0, sizeof *m);
    m->metric = strdup(name);
    m->unit = strdup(unit);
    m->backend = strdup(backend);
    m->source = strdup(source);
    if (!m->metric || !m->unit || !m->backend || !m->source) {
        free(m->metric);
        free(m->unit);
        free(m->backend);
        free(m->source);
        return NULL;
    }
    b->nm++;
    return m;
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? strdup(s) : NULL;
}

static int collect_run(collector *c, const cJSON *run, const char *stacks_base)
{
    pg_side *side = c->side;
    const cJSON *mach = cJSON_GetObjectItemCaseSensitive(run, "machine");
    const char *run_backend = str(run, "backend");
    side->nruns++;
    snprintf(side->machine_id, sizeof side->machine_id, "%s", pg_run_machine_id(run));
    snprintf(side->machine_desc, sizeof side->machine_desc, "%s, %d cores, %s", str(mach, "cpu_model"),
             pg_json_int(cJSON_GetObjectItemCaseSensitive(mach, "cores"), 0), str(mach, "kernel"));
    snprintf(side->backend, sizeof side->backend, "%s", run_backend);
    side->dirty |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "dirty"));
    if (!side->commit[0] && *str(run, "commit"))
        snprintf(side->commit, sizeof side->commit, "%s", str(run, "commit"));
    const cJSON *jb;
    cJSON_ArrayForEach(jb, cJSON_GetObjectItemCaseSensitive(run, "benchmarks")) {
        const char *name = str(jb, "name");
        if (!*name)
            return pg_error_set(PG_EINVAL, "a stored benchmark has no name (run %s)", str(run, "id"));
        pg_bench_result *b = bench_get(c, name);
        if (!b)
            return pg_error_set(PG_ENOMEM, "out of memory");
        b->failed = !strcmp(str(jb, "status"), "failed");
        set_str(&b->failure, b->failed ? str(cJSON_GetObjectItemCaseSensitive(jb, "failure"), "reason") : NULL);
        const cJSON *th = cJSON_GetObjectItemCaseSensitive(jb, "thresholds");
        if (cJSON_IsObject(th)) {
            cJSON_Delete(b->thresholds);
            b->thresholds = cJSON_Duplicate(th, 1);
        }
        const char *stacks = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(jb, "stacks"));
        if (stacks && *stacks) {
            char path[4096];
            if (stacks[0] != '/' && stacks_base && *stacks_base)
                snprintf(path, sizeof path, "%s/%s", stacks_base, stacks);
            else
                snprintf(path, sizeof path, "%s", stacks);
            set_str(&b->stacks, path);
        }
        const cJSON *jm, *metrics = cJSON_GetObjectItemCaseSensitive(jb, "metrics");
        if (metrics && !cJSON_IsObject(metrics))
            return pg_error_set(PG_EINVAL, "benchmark %s: \"metrics\" is not an object", name);
        cJSON_ArrayForEach(jm, metrics) {
            const char *source = str(jm, "backend");
            pg_series *m = metric_get(b, jm->string, str(jm, "unit"), *run_backend ? run_backend : source,
                                      source);
            if (!m)
                return pg_error_set(PG_ENOMEM, "out of memory");
            const cJSON *v;
            cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(jm, "samples")) {
                if (!cJSON_IsNumber(v))
                    return pg_error_set(PG_EINVAL, "benchmark %s, metric %s: a sample is not a number", name, jm->string);
                int rc = pg_series_push(m, v->valuedouble);
                if (rc < 0)
                    return rc;
            }
        }
    }
    return 0;
}

int pg_results_collect(pg_side *side, const cJSON *runs, const char *machine_id, const char *backend,
                       const char *stacks_base)
{
    collector c = {.side = side};
    int rc = 0;
    for (size_t i = 0; i < side->nb && rc == 0; i++)
        rc = pg_strindex_put(&c.index, side->b[i].name, i);
    const cJSON *run;
    cJSON_ArrayForEach(run, runs) {
        if (rc < 0)
            break;
        if (machine_id && strcmp(pg_run_machine_id(run), machine_id))
            continue;
        if (backend && strcmp(pg_run_backend(run), backend))
            continue;
        rc = collect_run(&c, run, stacks_base);
    }
    pg_strindex_free(&c.index);
    return rc;
}
