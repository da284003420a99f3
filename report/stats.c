/* report/stats.c — see stats.h. */
#include "report/stats.h"
#include "util/error.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Samples are a handful: insertion sort beats qsort's calls through a pointer. */
static void sort_small(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

#if defined(__SSE2__)
/* Up to NET_MAX values without a branch on them: Batcher's odd-even merge
 * sort, each compare-exchange one minsd and one maxsd. Insertion sort's
 * branches are mispredicted at every value's stop: 97 ns against 27 for 10
 * random samples here, and a compare of 10^4 benchmarks sorts 10^5 of them.
 * (C's `b < a ? b : a` is minsd's very semantics, but GCC emits it only
 * with -ffast-math.) Only where the result is the insertion sort's bit for
 * bit: no NaN (unordered: a network would place it elsewhere) and no -0
 * (equal to 0: which of the two comes first would differ). */
#include <emmintrin.h>
#include <pthread.h>

#define NET_MAX 16
#define NET_MAX_COMPARATORS 63      /* Batcher's for 16 values */

static unsigned char net[NET_MAX + 1][NET_MAX_COMPARATORS][2];
static size_t net_len[NET_MAX + 1];
static pthread_once_t net_once = PTHREAD_ONCE_INIT;

/* The network for NET_MAX values; that for n values is its comparators of
 * two of the first n (the others compare a value with a missing +inf: no
 * exchange). */
static void net_build(void)
{
    for (size_t p = 1; p < NET_MAX; p <<= 1)
        for (size_t k = p; k >= 1; k >>= 1)
            for (size_t j = k % p; j + k < NET_MAX; j += 2 * k)
                for (size_t i = 0; i < k && i < NET_MAX - j - k; i++)
                    if ((i + j) / (2 * p) == (i + j + k) / (2 * p))
                        for (size_t n = i + j + k + 1; n <= NET_MAX; n++) {
                            net[n][net_len[n]][0] = (unsigned char)(i + j);
                            net[n][net_len[n]++][1] = (unsigned char)(i + j + k);
                        }
}

static int sort_network(double *v, size_t n)
{
    if (n < 2 || n > NET_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] != v[i] || (v[i] == 0 && signbit(v[i])))
            return 0;
    pthread_once(&net_once, net_build);
    for (size_t c = 0; c < net_len[n]; c++) {
        double *a = v + net[n][c][0], *b = v + net[n][c][1];
        __m128d x = _mm_load_sd(a), y = _mm_load_sd(b);
        _mm_store_sd(a, _mm_min_sd(x, y));
        _mm_store_sd(b, _mm_max_sd(x, y));
    }
    return 1;
}
#else
static int sort_network(double *v, size_t n)
{
    (void)v, (void)n;
    return 0;
}
#endif

void pg_stats_sort(double *v, size_t n)
{
    if (n <= 64) {
        if (!sort_network(v, n))
            sort_small(v, n);
    } else {
        qsort(v, n, sizeof *v, cmp_double);
    }
}

double pg_stats_median_sorted(const double *v, size_t n)
{
    return n == 0 ? NAN : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double pg_stats_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    /* Medians are taken 10^5 times in a large comparison: avoid malloc for
     * the usual handful of samples. */
    double small[64], *w = n <= 64 ? small : malloc(n * sizeof *w);
    if (!w)
        return NAN;
    memcpy(w, v, n * sizeof *w);
    pg_stats_sort(w, n);
    double m = pg_stats_median_sorted(w, n);
    if (w != small)
        free(w);
    return m;
}

int pg_stats_all_equal(const double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[0])
            return 0;
    return 1;
}

typedef struct ranked {
    double v;
    int first;      /* from the first sample */
} ranked;

static int cmp_ranked(const void *x, const void *y)
{
    return cmp_double(&((const ranked *)x)->v, &((const ranked *)y)->v);
}

/* P(U <= u) for u = 0..m*n under the null hypothesis for sample sizes m and
 * n, without ties, into cdf[]. The number of orderings with U = u is the
 * coefficient of q^u in the Gaussian binomial [m+n choose m]_q =
 * prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), built one factor at a time; every
 * intermediate is an integer below C(m+n, m), exact in a double up to
 * PG_MWU_EXACT_MAX. */
static void exact_table(double *cdf, size_t m, size_t n)
{
    size_t top = m * n;
    memset(cdf, 0, (top + 1) * sizeof *cdf);
    cdf[0] = 1;
    for (size_t i = 1; i <= m; i++) {
        size_t s = n + i;
        for (size_t u = top; u >= s; u--)      /* times (1 - q^s) */
            cdf[u] -= cdf[u - s];
        for (size_t u = i; u <= top; u++)      /* divided by (1 - q^i) */
            cdf[u] += cdf[u - i];
    }
    double total = 0;
    for (size_t u = 0; u <= top; u++)
        total += cdf[u];
    double run = 0;
    for (size_t u = 0; u <= top; u++) {
        run += cdf[u];
        cdf[u] = run / total;
    }
}

/* A comparison tests thousands of pairs of the same sample sizes: the table
 * of the last sizes is kept (per thread; reachable, so not a leak). */
static _Thread_local struct {
    size_t m, n;
    double *cdf;
} cached;

static int exact_cdf(double *out, size_t m, size_t n, size_t k)
{
    if (!cached.cdf || cached.m != m || cached.n != n) {
        double *t = realloc(cached.cdf, (m * n + 1) * sizeof *t);
        if (!t)
            return pg_error_set(PG_ENOMEM, "out of memory");
        exact_table(t, m, n);
        cached.cdf = t;
        cached.m = m;
        cached.n = n;
    }
    *out = cached.cdf[k];
    return 0;
}

void pg_stats_forget(void)
{
    free(cached.cdf);
    cached.cdf = NULL;
}

/* U and its p-value from the rank sum of a and the ties' sum of t^3 - t. */
static int u_test(pg_mwu *out, double rank_a, double ties, size_t na, size_t nb)
{
    size_t n = na + nb;
    double m1 = (double)na, m2 = (double)nb, mn = m1 * m2;
    out->u1 = rank_a - m1 * (m1 + 1) / 2;
    out->u2 = mn - out->u1;
    double u = out->u1 > out->u2 ? out->u1 : out->u2;

    if (ties == 0 && n <= PG_MWU_EXACT_MAX) {
        /* Two-sided: twice the tail beyond the larger U, by symmetry P(U >= u) = P(U <= mn - u). */
        double cdf = 1;
        int rc = exact_cdf(&cdf, na, nb, (size_t)llround(mn - u));
        if (rc < 0)
            return rc;
        out->exact = 1;
        out->p = fmin(1.0, 2 * cdf);
        return 0;
    }
    out->exact = 0;
    double N = (double)n;
    double var = mn / 12 * ((N + 1) - ties / (N * (N - 1)));
    if (var <= 0) {
        out->p = 1;     /* every value tied: no evidence of any difference */
        return 0;
    }
    double z = (u - mn / 2 - 0.5) / sqrt(var);
    out->p = fmin(1.0, erfc(z / sqrt(2.0)));
    return 0;
}

int pg_stats_mannwhitney(pg_mwu *out, const double *a, size_t na, const double *b, size_t nb)
{
    if (na == 0 || nb == 0)
        return pg_error_set(PG_EINVAL, "Mann-Whitney U needs samples on both sides (got %zu and %zu)", na, nb);
    size_t n = na + nb;
    ranked small[128], *r = n <= 128 ? small : malloc(n * sizeof *r);
    if (!r)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < na; i++)
        r[i] = (ranked){a[i], 1};
    for (size_t i = 0; i < nb; i++)
        r[na + i] = (ranked){b[i], 0};
    if (n <= 64) {
        for (size_t i = 1; i < n; i++) {
            ranked x = r[i];
            size_t j = i;
            for (; j > 0 && r[j - 1].v > x.v; j--)
                r[j] = r[j - 1];
            r[j] = x;
        }
    } else {
        qsort(r, n, sizeof *r, cmp_ranked);
    }

    /* Midranks for ties; sum of t^3 - t over tie groups for the variance. */
    double rank_a = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && r[j].v == r[i].v)
            j++;
        double t = (double)(j - i), mid = (double)(i + j + 1) / 2;   /* ranks are 1-based */
        for (size_t k = i; k < j; k++)
            if (r[k].first)
                rank_a += mid;
        ties += t * t * t - t;
        i = j;
    }
    if (r != small)
        free(r);
    return u_test(out, rank_a, ties, na, nb);
}

int pg_stats_mannwhitney_sorted(pg_mwu *out, const double *a, size_t na, const double *b, size_t nb)
{
    if (na == 0 || nb == 0)
        return pg_error_set(PG_EINVAL, "Mann-Whitney U needs samples on both sides (got %zu and %zu)", na, nb);
    /* No value twice (noisy samples, nearly always): a's i-th value ranks
     * i + (b's values below it) + 1, the sums below add the same integers
     * in the same order, and there are no ties to correct for. */
    double rank_a = 0, ties = 0;
    size_t i = 0, j = 0;
    for (; i < na; i++) {
        while (j < nb && b[j] < a[i])
            j++;
        if ((j < nb && b[j] == a[i]) || (i && a[i] == a[i - 1]))
            break;
        rank_a += (double)(i + j + 1);
    }
    int distinct = i == na;
    for (size_t k = 1; distinct && k < nb; k++)
        distinct = b[k] != b[k - 1];
    if (distinct)
        return u_test(out, rank_a, 0, na, nb);
    /* The ranks of the merged samples, a group of equal values at a time:
     * the sums pg_stats_mannwhitney's ranking makes, added in its order. */
    rank_a = 0;
    i = 0;
    j = 0;
    while (i < na || j < nb) {
        double x = j == nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];
        size_t i0 = i, j0 = j;
        while (i < na && a[i] == x)
            i++;
        while (j < nb && b[j] == x)
            j++;
        double t = (double)(i - i0 + j - j0), mid = (double)(i0 + j0 + i + j + 1) / 2;
        for (size_t k = i0; k < i; k++)
            rank_a += mid;
        ties += t * t * t - t;
    }
    return u_test(out, rank_a, ties, na, nb);
}

typedef struct indexed {
    double p;
    size_t i;
} indexed;

static int cmp_indexed(const void *x, const void *y)
{
    const indexed *a = x, *b = y;
    int c = cmp_double(&a->p, &b->p);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* s[0..n), in the order of their index, sorted by p as cmp_indexed sorts
 * them: a stable radix sort of p's bits, which order as the numbers do when
 * every p is +0 or more (a p-value always is; a NaN or a negative zero is
 * left to qsort: 0). 5 * 10^4 p-values of a large comparison, without
 * 10^6 calls through a pointer. */
static int sort_by_p(indexed *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(s[i].p >= 0) || signbit(s[i].p))
            return 0;
    indexed *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return 0;
    uint64_t first;
    memcpy(&first, &s[0].p, sizeof first);
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++) {
            uint64_t bits;
            memcpy(&bits, &s[i].p, sizeof bits);
            count[((bits >> shift) & 0xff) + 1]++;
        }
        if (count[((first >> shift) & 0xff) + 1] == n)
            continue;       /* every key has this byte alike */
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++) {
            uint64_t bits;
            memcpy(&bits, &s[i].p, sizeof bits);
            tmp[count[(bits >> shift) & 0xff]++] = s[i];
        }
        memcpy(s, tmp, n * sizeof *s);
    }
    free(tmp);
    return 1;
}

int pg_stats_bh(double *q, const double *p, size_t n)
{
    if (n == 0)
        return 0;
    indexed *s = malloc(n * sizeof *s);
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        s[i] = (indexed){p[i], i};
    if (!sort_by_p(s, n))
        qsort(s, n, sizeof *s, cmp_indexed);
    double running = 1.0;
    for (size_t k = n; k-- > 0;) {
        double v = s[k].p * (double)n / (double)(k + 1);
        if (v < running)
            running = v;
        q[s[k].i] = running;
    }
    free(s);
    return 0;
}
