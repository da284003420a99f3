/* tests/unit/fixture_side.h — pg_sides built by hand for the compare and
 * render tests (the harness builds them from result documents). */
#ifndef PG_TESTS_FIXTURE_SIDE_H
#define PG_TESTS_FIXTURE_SIDE_H

#include "report/series.h"

#include <stdlib.h>
#include <string.h>

static inline pg_bench_result *fx_bench(pg_side *s, const char *name)
{
    s->b = realloc(s->b, (s->nb + 1) * sizeof *s->b);
    pg_bench_result *b = &s->b[s->nb++];
    s->cap = s->nb;
    memset(b, 0, sizeof *b);
    b->name = strdup(name);
    return b;
}

/* Adds metric `metric` measured by `backend` (source = backend), n samples. */
static inline void fx_metric(pg_bench_result *b, const char *metric, const char *unit, const char *backend,
                             const double *v, size_t n)
{
    b->m = realloc(b->m, (b->nm + 1) * sizeof *b->m);
    pg_series *m = &b->m[b->nm++];
    memset(m, 0, sizeof *m);
    m->metric = strdup(metric);
    m->unit = strdup(unit);
    m->backend = strdup(backend);
    m->source = strdup(backend);
    /* What results.c sets from the backend's properties (counters/backend.h). */
    m->exact = !strcmp(backend, "valgrind") && !strcmp(unit, "count");
    m->simulated = !strcmp(backend, "valgrind");
    for (size_t i = 0; i < n; i++)
        pg_series_push(m, v[i]);
}

static inline void fx_side(pg_side *s, const char *label, const char *commit, const char *machine, const char *backend)
{
    memset(s, 0, sizeof *s);
    snprintf(s->label, sizeof s->label, "%s", label);
    snprintf(s->commit, sizeof s->commit, "%s", commit);
    snprintf(s->machine_id, sizeof s->machine_id, "%s", machine);
    snprintf(s->machine_desc, sizeof s->machine_desc, "Test CPU, 2 cores, Linux 6");
    snprintf(s->backend, sizeof s->backend, "%s", backend);
    s->stacks_exact = !strcmp(backend, "valgrind");
    snprintf(s->stacks_unit, sizeof s->stacks_unit, "%s", s->stacks_exact ? "instructions" : "samples");
    snprintf(s->stacks_metric, sizeof s->stacks_metric, "%s", s->stacks_exact ? "instructions" : "");
    s->nruns = 1;
}

#endif
