/* report/threshold.c — see threshold.h. */
#include "report/threshold.h"
#include "util/error.h"
#include "util/metrics.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double pg_threshold_default(const char *metric) { return pg_metric_threshold(metric); }

int pg_threshold_parse_pct(double *pct, const char *s)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    double v = strtod(s, &end);
    if (end == s)
        return pg_error_set(PG_EINVAL, "'%s' is not a percentage (like 5%% or 0.5)", s);
    while (isspace((unsigned char)*end))
        end++;
    if (*end == '%')
        end++;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return pg_error_set(PG_EINVAL, "'%s' is not a percentage (like 5%% or 0.5)", s);
    if (!isfinite(v) || v < 0 || v > 1e6)
        return pg_error_set(PG_EINVAL, "'%s': a threshold must be between 0%% and 1000000%%", s);
    *pct = v;
    return 0;
}

int pg_thresholds_set(pg_thresholds *t, const char *metric, double pct)
{
    if (metric)
        metric = pg_metric_canonical(metric);   /* "Ir=2%" is a rule for instructions */
    for (size_t i = 0; i < t->n; i++) {
        if ((!metric && !t->v[i].metric) || (metric && t->v[i].metric && !strcmp(metric, t->v[i].metric))) {
            t->v[i].pct = pct;
            return 0;
        }
    }
    char *m = metric ? strdup(metric) : NULL;
    pg_threshold_rule *nv = (metric && !m) ? NULL : realloc(t->v, (t->n + 1) * sizeof *nv);
    if (!nv) {
        free(m);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    t->v = nv;
    t->v[t->n++] = (pg_threshold_rule){m, pct};
    return 0;
}

int pg_thresholds_copy(pg_thresholds *dst, const pg_thresholds *src)
{
    for (size_t i = 0; i < src->n; i++) {
        int rc = pg_thresholds_set(dst, src->v[i].metric, src->v[i].pct);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int pg_thresholds_add(pg_thresholds *t, const char *arg)
{
    const char *eq = strchr(arg, '=');
    double pct;
    int rc = pg_threshold_parse_pct(&pct, eq ? eq + 1 : arg);
    if (rc < 0)
        return pg_error_wrap(rc, "--threshold %s", arg);
    if (!eq)
        return pg_thresholds_set(t, NULL, pct);
    const char *b = arg, *e = eq;
    while (b < e && isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    if (b == e)
        return pg_error_set(PG_EINVAL, "--threshold %s: no metric before '=' (expected METRIC=PCT, like instructions=1%%)", arg);
    char *metric = strndup(b, (size_t)(e - b));
    if (!metric)
        return pg_error_set(PG_ENOMEM, "out of memory");
    rc = pg_thresholds_set(t, metric, pct);
    free(metric);
    return rc;
}

void pg_thresholds_free(pg_thresholds *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].metric);
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

double pg_threshold_for(const pg_thresholds *cli, const pg_thresholds *bench, const char *metric,
                        pg_threshold_source *source)
{
    pg_threshold_source src = PG_TH_CLI;
    double pct = -1, any = -1;
    metric = pg_metric_canonical(metric);
    for (size_t i = 0; cli && i < cli->n; i++) {
        if (!cli->v[i].metric)
            any = cli->v[i].pct;
        else if (!strcmp(cli->v[i].metric, metric))
            pct = cli->v[i].pct;
    }
    if (pct < 0)
        pct = any;
    for (size_t i = 0; pct < 0 && bench && i < bench->n; i++)
        if (bench->v[i].metric && !strcmp(bench->v[i].metric, metric))
            pct = bench->v[i].pct, src = PG_TH_MANIFEST;
    if (pct < 0)
        pct = pg_threshold_default(metric), src = PG_TH_DEFAULT;
    if (source)
        *source = src;
    return pct;
}

int pg_gates_parse(pg_gates *g, const char *list)
{
    pg_gates n = {0};
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        if (!e)
            e = p + strlen(p);
        const char *b = p, *f = e;
        while (b < f && isspace((unsigned char)*b))
            b++;
        while (f > b && isspace((unsigned char)f[-1]))
            f--;
        if (b == f) {
            pg_gates_free(&n);
            return pg_error_set(PG_EINVAL, "--gate '%s': expected metric names separated by commas, like instructions,cycles", list);
        }
        char **nv = realloc(n.v, (n.n + 1) * sizeof *nv);
        char *name = NULL;
        if (nv) {
            /* an alias gates its metric: "--gate Ir" is instructions */
            char *given = strndup(b, (size_t)(f - b));
            name = given ? strdup(pg_metric_canonical(given)) : NULL;
            free(given);
        }
        if (nv)
            n.v = nv;
        if (!name) {
            pg_gates_free(&n);
            return pg_error_set(PG_ENOMEM, "out of memory");
        }
        if (pg_gates_has(&n, name))
            free(name);
        else
            n.v[n.n++] = name;
        if (!*e)
            break;
        p = e + 1;
    }
    pg_gates_free(g);
    *g = n;
    return 0;
}

int pg_gates_has(const pg_gates *g, const char *metric)
{
    metric = pg_metric_canonical(metric);
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->v[i], metric))
            return 1;
    return 0;
}

void pg_gates_free(pg_gates *g)
{
    for (size_t i = 0; i < g->n; i++)
        free(g->v[i]);
    free(g->v);
    g->v = NULL;
    g->n = 0;
}
