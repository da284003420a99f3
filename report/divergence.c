/* report/divergence.c — see divergence.h. */
#include "report/divergence.h"
#include "util/error.h"
#include "util/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A time metric measured natively: valgrind's own wall-time is the
 * simulator's, slowed fifty times, and says nothing about the program's. */
static int is_native_time(const pg_metric_cmp *m, const char *name)
{
    return !strcmp(m->metric, name) && !m->not_compared && !m->simulated;
}

pg_divergence_kind pg_divergence_check(const pg_metric_cmp *count, const pg_metric_cmp *time, double alpha,
                                       double factor)
{
    if (count->not_compared || time->not_compared || !time->tested || isnan(time->q) || !(time->q < alpha))
        return PG_DIVERGENCE_NONE;
    if (isnan(count->delta_pct) || isnan(time->delta_pct))
        return PG_DIVERGENCE_NONE;
    int count_moved = count->verdict == PG_VERDICT_REGRESSED || count->verdict == PG_VERDICT_IMPROVED;
    if (!count_moved && !time->exceeds)
        return PG_DIVERGENCE_NONE;
    double c = count->delta_pct, t = time->delta_pct;
    if ((c > 0 && t < 0) || (c < 0 && t > 0))
        return PG_DIVERGENCE_OPPOSITE;
    double big = fmax(fabs(c), fabs(t)), small = fmin(fabs(c), fabs(t));
    return big > factor * small ? PG_DIVERGENCE_MAGNITUDE : PG_DIVERGENCE_NONE;
}

const char *pg_divergence_describe(char *buf, size_t len, pg_divergence_kind k, double factor)
{
    if (k == PG_DIVERGENCE_OPPOSITE)
        snprintf(buf, len, "opposite directions");
    else if (k == PG_DIVERGENCE_MAGNITUDE)
        snprintf(buf, len, "changes more than %gx apart", factor);
    else
        snprintf(buf, len, "no divergence");
    return buf;
}

static const pg_metric_cmp *native_time(const pg_bench_cmp *b)
{
    static const char *const names[] = {"task-clock", "wall-time"};
    for (size_t n = 0; n < 2; n++)
        for (size_t i = 0; i < b->nm; i++)
            if (is_native_time(&b->m[i], names[n]))
                return &b->m[i];
    return NULL;
}

int pg_divergence_find(pg_comparison *c, double factor)
{
    c->ndiverged = 0;
    c->divergence_factor = factor;
    for (size_t i = 0; i < c->nbench; i++) {
        pg_bench_cmp *b = &c->bench[i];
        free(b->div);
        b->div = NULL;
        const pg_metric_cmp *time = native_time(b);
        if (!time)
            continue;
        /* The first gating count that disagrees: gates come first in b->m. */
        for (size_t k = 0; k < b->nm; k++) {
            const pg_metric_cmp *m = &b->m[k];
            /* a heap count (DHAT's blocks) says how much memory is asked for, not how long it takes */
            const pg_metric_info *info = pg_metric_find(m->metric);
            if (!m->gating || strcmp(m->unit, "count") || (info && info->kind == PG_METRIC_HEAP))
                continue;
            pg_divergence_kind kind = pg_divergence_check(m, time, c->alpha, factor);
            if (kind == PG_DIVERGENCE_NONE)
                continue;
            if (!(b->div = malloc(sizeof *b->div)))
                return pg_error_set(PG_ENOMEM, "out of memory");
            *b->div = (pg_divergence){.kind = kind, .count = *m, .time = *time};
            c->ndiverged++;
            break;
        }
    }
    return 0;
}
