/* report/series.c — see series.h. */
#include "report/series.h"
#include "report/format.h"
#include "report/stats.h"
#include "util/array.h"
#include "util/error.h"
#include "util/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const pg_series *pg_bench_find_series(const pg_bench_result *b, const char *metric, const char *backend)
{
    for (size_t i = 0; i < b->nm; i++)     /* the first byte first: a call to strcmp per miss was 1% of a compare */
        if (b->m[i].metric[0] == metric[0] && !strcmp(b->m[i].metric, metric) &&
            (!backend || !strcmp(b->m[i].backend, backend)))
            return &b->m[i];
    return NULL;
}

int pg_series_duplicate_alias(const pg_bench_result *b, const pg_series *s)
{
    const pg_metric_info *m = pg_metric_find_alias(s->metric);
    return m && pg_bench_find_series(b, m->name, s->backend) != NULL;
}

int pg_series_push(pg_series *s, double v)
{
    int rc = pg_array_grow(&s->v, &s->cap, s->n, sizeof *s->v, 8);
    if (rc < 0)
        return rc;
    s->v[s->n++] = v;
    return 0;
}

int pg_series_exact(const pg_series *s)
{
    return s->exact || pg_metric_is_calls(s->metric);
}

int pg_series_add_run(pg_series *s, const double *v, size_t n, const char *origin)
{
    if (n && !s->n)
        s->origin = origin;
    /* Room for all of them at once: a side of 10^4 series wastes nothing. */
    if (s->n + n > s->cap) {
        double *grown = realloc(s->v, (s->n + n) * sizeof *grown);
        if (!grown)
            return pg_error_set(PG_ENOMEM, "out of memory");
        s->v = grown;
        s->cap = s->n + n;
    }
    if (!n)
        return 0;
    memcpy(s->v + s->n, v, n * sizeof *v);
    const double first = s->v[0];
    size_t i = s->n ? s->n : 1;
    s->n += n;
    /* The first value that differs from the first one kept, and where each
     * came from: what a reader says of counts that do not repeat. Asked of
     * exact series only, and once (10^5 series of a side, most of them noisy). */
    if (s->disagreement || !pg_series_exact(s))
        return 0;
    for (; i < s->n && s->v[i] == first; i++)
        ;
    if (i == s->n)
        return 0;
    char a[48], b[48], text[1200];
    pg_format_thousands(a, sizeof a, first);
    pg_format_thousands(b, sizeof b, s->v[i]);
    snprintf(text, sizeof text, "%s (%s) and %s (%s)", a, s->origin ? s->origin : "?", b, origin ? origin : "?");
    if (!(s->disagreement = strdup(text)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    return 0;
}

double pg_series_spread(const pg_series *s)
{
    if (!pg_series_exact(s) || s->n < 2)
        return 0;
    double lo = s->v[0], hi = s->v[0];
    for (size_t i = 1; i < s->n; i++) {
        lo = s->v[i] < lo ? s->v[i] : lo;
        hi = s->v[i] > hi ? s->v[i] : hi;
    }
    return hi - lo;
}

void pg_side_free(pg_side *side)
{
    for (size_t i = 0; i < side->nb; i++) {
        pg_bench_result *b = &side->b[i];
        free(b->name);
        free(b->failure);
        free(b->stacks);
        pg_thresholds_free(&b->thresholds);
        free(b->stacks_note);
        free(b->reused);
        for (size_t j = 0; j < b->nm; j++) {
            if (!side->pooled) {
                free(b->m[j].metric);
                free(b->m[j].unit);
                free(b->m[j].backend);
                free(b->m[j].source);
            }
            free(b->m[j].v);
            free(b->m[j].disagreement);
        }
        free(b->m);
    }
    free(side->b);
    side->b = NULL;
    free(side->sessions);
    side->sessions = NULL;
    side->nsessions = 0;
    side->nb = side->cap = 0;
    pg_strpool_free(&side->pool);
    side->pooled = 0;
}

const char *pg_verdict_name(pg_verdict v)
{
    switch (v) {
    case PG_VERDICT_IMPROVED: return "improved";
    case PG_VERDICT_REGRESSED: return "regressed";
    case PG_VERDICT_INCONCLUSIVE: return "inconclusive";
    default: return "unchanged";
    }
}
