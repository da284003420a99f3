/* report/histstats.c — change points and two modes (histstats.h). */
#include "report/histstats.h"

#include "report/stats.h"
#include "util/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *sorted_copy(const double *v, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (s) {
        memcpy(s, v, n * sizeof *s);
        qsort(s, n, sizeof *s, cmp_double);
    }
    return s;
}

double pg_hist_quantile(const double *v, size_t n, double q)
{
    double *s = n ? sorted_copy(v, n) : NULL;
    if (!s)
        return NAN;
    double pos = q * (double)(n - 1), r, f;
    size_t i = (size_t)pos;
    f = pos - (double)i;
    /* a weighted sum, not s[i] + f * (s[i + 1] - s[i]): the distance of two
     * values near the largest double is no finite number */
    r = i + 1 < n ? (f ? s[i] * (1 - f) + s[i + 1] * f : s[i]) : s[n - 1];
    free(s);
    return r;
}

typedef struct cp_search {
    const double *x;
    const pg_hist_cp_opts *o;
    size_t min_seg, *out, max, found;
    double *p;              /* the kept splits' p-values, in the order found */
    int err;
} cp_search;

/* Sum and sum of squares of x[lo..hi) about `ref` (near the values: no cancellation). */
static void sums(const double *x, size_t lo, size_t hi, double ref, double *s1, double *s2)
{
    *s1 = *s2 = 0;
    for (size_t i = lo; i < hi; i++)
        *s1 += x[i] - ref, *s2 += (x[i] - ref) * (x[i] - ref);
}

static void segment(cp_search *c, size_t lo, size_t hi)
{
    size_t n = hi - lo;
    if (n < 2 * c->min_seg || c->found >= c->max || c->err)
        return;
    double ref = c->x[lo], total, total2, left, left2;
    sums(c->x, lo, hi, ref, &total, &total2);
    sums(c->x, lo, lo + c->min_seg - 1, ref, &left, &left2);
    double best_w = -1, best_d = 0, best_ml = 0, best_se = 0;
    size_t best = 0;
    for (size_t k = lo + c->min_seg; k + c->min_seg <= hi; k++) {
        double v = c->x[k - 1] - ref;
        left += v, left2 += v * v;
        double nl = (double)(k - lo), nr = (double)(hi - k);
        double ml = left / nl, mr = (total - left) / nr, w = fabs(mr - ml) * sqrt(nl * nr / (double)n);
        if (w > best_w) {
            /* Welch's standard error of the shift, from the spread inside
             * each piece and the points' own noise: a steady creep has a
             * spread of its own, so it is split a few times, not at every step */
            double vl = nl > 1 ? fmax(0, left2 - left * left / nl) / (nl - 1) : 0;
            double vr = nr > 1 ? fmax(0, (total2 - left2) - (total - left) * (total - left) / nr) / (nr - 1) : 0;
            best_w = w, best = k, best_d = fabs(mr - ml), best_ml = ml + ref;
            best_se = sqrt(vl / nl + vr / nr + c->o->noise * c->o->noise * (1 / nl + 1 / nr));
        }
    }
    if (best_w <= 0)
        return;
    double rel = best_ml != 0 ? best_d / fabs(best_ml) : INFINITY;
    if (rel < c->o->min_rel)
        return;
    double p = 0;
    if (c->o->test) {
        p = c->o->test(c->o->ctx, lo, best, hi);
        if (p < 0) {
            c->err = (int)p;
            return;
        }
        /* Bonferroni over the candidate splits the best was chosen from. */
        p = fmin(1, p * (double)(n - 2 * c->min_seg + 1));
        if (!(p < c->o->alpha))
            return;
    } else if ((best_se > 0 ? best_d / best_se : INFINITY) < c->o->min_z) {
        return;
    }
    if (c->p)
        c->p[c->found] = p;
    c->out[c->found++] = best;
    segment(c, lo, best);
    segment(c, best, hi);
}

long pg_hist_changepoints(size_t *out, double *p_out, size_t max, const double *x, size_t n,
                          const pg_hist_cp_opts *o)
{
    cp_search c = {.x = x, .o = o, .min_seg = o->min_seg ? o->min_seg : 1, .out = out, .max = max, .p = p_out};
    segment(&c, 0, n);
    if (c.err)
        return c.err;
    /* Ascending, the p-values kept beside their splits. */
    for (size_t i = 1; i < c.found; i++)
        for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            size_t t = out[j];
            out[j] = out[j - 1], out[j - 1] = t;
            if (p_out) {
                double q = p_out[j];
                p_out[j] = p_out[j - 1], p_out[j - 1] = q;
            }
        }
    return (long)c.found;
}

int pg_hist_bimodal(pg_hist_modes *m, const double *v, size_t n, double min_rel)
{
    *m = (pg_hist_modes){0};
    if (n < 20)
        return 0;
    double *s = sorted_copy(v, n);
    if (!s)
        return PG_ENOMEM;
    /* Sums of squares about the overall mean: counts near 1e9 would lose
     * every digit that matters to cancellation otherwise. Each value is
     * divided by n before it is added, so that values near DBL_MAX do not
     * add up to infinity. */
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += s[i] / (double)n;
    double tot = 0, tot2 = 0;
    for (size_t i = 0; i < n; i++)
        tot += s[i] - mean, tot2 += (s[i] - mean) * (s[i] - mean);
    size_t kmin = n / 10 > 3 ? n / 10 : 3, best = 0;
    double sum = 0, sum2 = 0, best_ssw = INFINITY;
    for (size_t k = 1; k + kmin <= n; k++) {
        double d = s[k - 1] - mean;
        sum += d, sum2 += d * d;
        if (k < kmin)
            continue;
        double nr = (double)(n - k), sr = tot - sum;
        double ssw = (sum2 - sum * sum / (double)k) + ((tot2 - sum2) - sr * sr / nr);
        if (ssw < best_ssw)
            best_ssw = ssw, best = k;
    }
    int bimodal = 0;
    if (best && isfinite(best_ssw)) {
        double lo = 0, hi = 0;
        for (size_t i = 0; i < n; i++)
            *(i < best ? &lo : &hi) += s[i] / (double)(i < best ? best : n - best);
        double sd = sqrt((best_ssw > 0 ? best_ssw : 0) / (double)(n - 2)), gap = hi - lo;
        /* Relative to the lower group; a group at 0 has no relative
         * distance, so the gap is measured against the level of all values. */
        double base = lo != 0 ? fabs(lo) : fabs(mean), rel = base != 0 ? gap / base : 0;
        if (gap > 0 && isfinite(gap) && gap >= 4 * sd && isfinite(rel) && rel >= min_rel) {
            bimodal = 1;
            *m = (pg_hist_modes){.low = lo, .high = hi, .share_low = (double)best / (double)n, .gap_rel = rel};
        }
    }
    free(s);
    return bimodal;
}
