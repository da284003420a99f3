/* report/calib.c — see calib.h. */
#include "report/calib.h"
#include "util/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pg_calib_floor(double *pct, const double *base, const double *cand, size_t n)
{
    double worst = -1;
    for (size_t i = 0; i < n; i++) {
        double d;
        if (base[i] != 0)
            d = 100 * fabs(cand[i] - base[i]) / fabs(base[i]);
        else if (cand[i] == 0)
            d = 0;
        else
            continue;
        if (d > worst)
            worst = d;
    }
    if (worst < 0)
        return pg_error_set(PG_EINVAL, "no A/A pair with a non-zero baseline");
    *pct = worst;
    return 0;
}

double pg_calib_suggest(double floor_pct)
{
    double want = 2 * floor_pct;
    if (!(want > PG_CALIB_MIN_PCT))
        return PG_CALIB_MIN_PCT;
    double p = pow(10, floor(log10(want)));
    static const double steps[] = {1, 2, 5, 10};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        /* the tolerance keeps 0.2 from rounding up to 0.5 through binary error */
        if (steps[i] * p >= want * (1 - 1e-12))
            return steps[i] * p;
    }
    return 10 * p;
}

int pg_floors_set(pg_floors *f, const char *bench, const char *metric, double floor_pct, double threshold_pct)
{
    for (size_t i = 0; i < f->n; i++) {
        if (!strcmp(f->v[i].bench, bench) && !strcmp(f->v[i].metric, metric)) {
            f->v[i].floor_pct = floor_pct;
            f->v[i].threshold_pct = threshold_pct;
            return 0;
        }
    }
    pg_floor *nv = realloc(f->v, (f->n + 1) * sizeof *nv);
    if (!nv)
        return pg_error_set(PG_ENOMEM, "out of memory");
    f->v = nv;
    pg_floor e = {strdup(bench), strdup(metric), floor_pct, threshold_pct};
    if (!e.bench || !e.metric) {
        free(e.bench);
        free(e.metric);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    f->v[f->n++] = e;
    return 0;
}

const pg_floor *pg_floors_find(const pg_floors *f, const char *bench, const char *metric)
{
    for (size_t i = 0; f && i < f->n; i++)
        if (!strcmp(f->v[i].bench, bench) && !strcmp(f->v[i].metric, metric))
            return &f->v[i];
    return NULL;
}

void pg_floors_free(pg_floors *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].bench);
        free(f->v[i].metric);
    }
    free(f->v);
    f->v = NULL;
    f->n = 0;
}
