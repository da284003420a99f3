/* Statistics against values computed independently: scipy.stats.mannwhitneyu's
 * documented example, a brute-force enumeration of every ordering (exact p),
 * the normal approximation with ties by hand, and Benjamini & Hochberg's
 * (1995) own 15 p-values. */
#include "report/stats.h"
#include "util/error.h"
#include "tests/check.h"

#include <math.h>

static void test_median(void)
{
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    CHECK_NEAR(pg_stats_median(odd, 3), 3, 0);
    CHECK_NEAR(pg_stats_median(even, 4), 2.5, 0);
    CHECK_NEAR(odd[0], 5, 0);                  /* input untouched */
    CHECK(isnan(pg_stats_median(odd, 0)));
    double big[100];
    for (int i = 0; i < 100; i++)
        big[i] = 99 - i;
    CHECK_NEAR(pg_stats_median(big, 100), 49.5, 0);     /* the malloc path */
    CHECK(pg_stats_all_equal(odd, 1));
    CHECK(!pg_stats_all_equal(odd, 2));
}

static void test_mwu_exact(void)
{
    /* scipy docs: mannwhitneyu(males, females) -> statistic=17.0, pvalue=0.1111111111111111 */
    double males[] = {19, 22, 16, 29, 24}, females[] = {20, 11, 17, 12};
    pg_mwu u;
    CHECK_EQ_INT(pg_stats_mannwhitney(&u, males, 5, females, 4), 0);
    CHECK_NEAR(u.u1, 17, 0);
    CHECK_NEAR(u.u2, 3, 0);
    CHECK(u.exact);
    CHECK_NEAR(u.p, 14.0 / 126.0, 1e-12);      /* 2 * 7 orderings with U <= 3 of C(9,4) */
    /* Symmetric: swapping the samples swaps U, keeps p. */
    CHECK_EQ_INT(pg_stats_mannwhitney(&u, females, 4, males, 5), 0);
    CHECK_NEAR(u.u1, 3, 0);
    CHECK_NEAR(u.p, 14.0 / 126.0, 1e-12);

    /* 8 vs 9 without ties: brute force over all C(17,8) = 24310 orderings gives 0.015220074043603456. */
    double a[] = {1.1, 2.3, 0.7, 4.4, 3.9, 2.8, 5.0, 1.9};
    double b[] = {3.3, 4.8, 6.1, 5.5, 2.2, 7.0, 6.6, 4.1, 5.9};
    CHECK_EQ_INT(pg_stats_mannwhitney(&u, a, 8, b, 9), 0);
    CHECK_NEAR(u.u1, 11, 0);
    CHECK(u.exact);
    CHECK_NEAR(u.p, 0.015220074043603456, 1e-12);

    /* Completely separated 5 vs 5: the smallest p possible, 2 / C(10,5). */
    double lo[] = {1, 2, 3, 4, 5}, hi[] = {6, 7, 8, 9, 10};
    CHECK_EQ_INT(pg_stats_mannwhitney(&u, lo, 5, hi, 5), 0);
    CHECK_NEAR(u.u1, 0, 0);
    CHECK_NEAR(u.p, 2.0 / 252.0, 1e-12);
    /* 2 vs 2 can never be significant: p = 2/6. */
    CHECK_EQ_INT(pg_stats_mannwhitney(&u, lo, 2, hi, 2), 0);
    CHECK_NEAR(u.p, 1.0 / 3.0, 1e-12);
}

static void test_mwu_normal(void)
{
    /* With ties: normal approximation, tie-corrected variance, continuity correction
     * (scipy's method="asymptotic"): U1 = 4.5, p = 0.06414661873440443. */
    double x[] = {1, 2, 2, 3, 4}, y[] = {2, 3, 5, 6, 6, 7};
    pg_mwu u;
    CHECK_EQ_INT(pg_stats_mannwhitney(&u, x, 5, y, 6), 0);
    CHECK(!u.exact);
    CHECK_NEAR(u.u1, 4.5, 0);
    CHECK_NEAR(u.p, 0.06414661873440443, 1e-12);

    /* Every value tied: no evidence at all. */
    double t[] = {3, 3, 3};
    CHECK_EQ_INT(pg_stats_mannwhitney(&u, t, 3, t, 3), 0);
    CHECK_NEAR(u.p, 1, 0);

    /* Large samples without ties use the normal approximation too; 30 vs 30
     * interleaved: U1 = 0+1+...+29 = 435 of 900, z = (465 - 450 - 0.5) / sqrt(900 * 61 / 12). */
    double e[30], o[30];
    for (int i = 0; i < 30; i++)
        e[i] = 2 * i, o[i] = 2 * i + 1;
    CHECK_EQ_INT(pg_stats_mannwhitney(&u, e, 30, o, 30), 0);
    CHECK(!u.exact);
    CHECK_NEAR(u.u1, 435, 0);
    CHECK_NEAR(u.p, 0.8302552839111963, 1e-12);
    CHECK_EQ_INT(pg_stats_mannwhitney(&u, e, 0, o, 30), PG_EINVAL);
    /* 40 vs 40 (the other sorting path): U1 = 780 of 1600, z = 19.5 / sqrt(1600 * 81 / 12). */
    double e4[40], o4[40];
    for (int i = 0; i < 40; i++)
        e4[39 - i] = 2 * i, o4[i] = 2 * i + 1;
    CHECK_EQ_INT(pg_stats_mannwhitney(&u, e4, 40, o4, 40), 0);
    CHECK_NEAR(u.u1, 780, 0);
    CHECK_NEAR(u.p, 0.8511597790430958, 1e-12);
}

static void test_bh(void)
{
    /* Benjamini & Hochberg (1995), section 4: 15 p-values; at q = 0.05 the
     * procedure rejects the four smallest. Adjusted values: p_(i) * m / i,
     * made monotone from the top. */
    double p[] = {0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
                  0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000};
    double want[] = {0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.06385714285714286, 0.06385714285714286,
                     0.0645, 0.0765, 0.486, 0.5811818181818182, 0.714875, 0.7532307692307694,
                     0.8132142857142857, 1};
    double q[15];
    CHECK_EQ_INT(pg_stats_bh(q, p, 15), 0);
    int rejected = 0;
    for (int i = 0; i < 15; i++) {
        CHECK_NEAR(q[i], want[i], 1e-12);
        rejected += q[i] < 0.05;
    }
    CHECK_EQ_INT(rejected, 4);

    /* Order of the input does not matter; q may alias p. */
    double shuffled[] = {0.0459, 1.000, 0.0001, 0.0344, 0.0095};
    CHECK_EQ_INT(pg_stats_bh(shuffled, shuffled, 5), 0);
    CHECK_NEAR(shuffled[2], 0.0005, 1e-12);      /* 0.0001 * 5 / 1 */
    CHECK_NEAR(shuffled[4], 0.02375, 1e-12);     /* 0.0095 * 5 / 2 */
    CHECK_NEAR(shuffled[3], 0.0344 * 5 / 3, 1e-12); /* min(0.0344*5/3, 0.0459*5/4) */
    CHECK_NEAR(shuffled[0], 0.0459 * 5 / 4, 1e-12);
    CHECK_NEAR(shuffled[1], 1, 0);
    CHECK_EQ_INT(pg_stats_bh(q, p, 0), 0);
}

/* compare sorts each side once and tests the sorted samples by a merge: the
 * same U and p to the last bit as the test of the samples as they came, with
 * ties within and across the sides, exact and normal, up to the malloc path. */
static void test_mwu_sorted(void)
{
    unsigned seed = 12345;
    for (int round = 0; round < 3000; round++) {
        double a[80], b[80], sa[80], sb[80];
        size_t na = 1 + (size_t)round % 37, nb = 1 + (size_t)(round * 7) % 80;
        /* few levels: many ties; many: a few; past round 2000, 2^20: nearly always none */
        int levels = round < 2000 ? 2 + round % 40 : 1 << 20;
        for (size_t i = 0; i < na; i++)
            sa[i] = a[i] = (double)(((seed = seed * 1103515245u + 12345u) >> 16) % (unsigned)levels);
        for (size_t i = 0; i < nb; i++)
            sb[i] = b[i] = (double)(((seed = seed * 1103515245u + 12345u) >> 16) % (unsigned)levels) + (round % 3 == 0 ? 0.5 : 0);
        pg_stats_sort(sa, na);
        pg_stats_sort(sb, nb);
        for (size_t i = 1; i < na; i++)
            CHECK(sa[i - 1] <= sa[i]);
        CHECK_NEAR(pg_stats_median_sorted(sa, na), pg_stats_median(a, na), 0);
        pg_mwu u, v;
        CHECK_EQ_INT(pg_stats_mannwhitney(&u, a, na, b, nb), 0);
        CHECK_EQ_INT(pg_stats_mannwhitney_sorted(&v, sa, na, sb, nb), 0);
        CHECK(u.u1 == v.u1 && u.u2 == v.u2 && u.p == v.p && u.exact == v.exact);
    }
    pg_mwu u;
    double one[] = {1};
    CHECK_EQ_INT(pg_stats_mannwhitney_sorted(&u, one, 0, one, 1), PG_EINVAL);
    CHECK(isnan(pg_stats_median_sorted(one, 0)));
    pg_stats_forget();
}

/* The adjustment of many p-values with ties (the radix path) against the
 * procedure written out: q_(k) = min over j >= k of p_(j) * n / j, with the
 * p-values ranked by value, then by position. */
static size_t rank_of[4000];
static const double *ranked_p;

static int by_p_then_index(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    if (ranked_p[a] != ranked_p[b])
        return ranked_p[a] < ranked_p[b] ? -1 : 1;
    return (a > b) - (a < b);
}

/* Every size up to 20 (a network's up to 16, one at a time past it), few
 * values or many, with -0, infinities and a NaN among them: the values of
 * a stable sort, bit for bit, -0 where it stood among the zeros, and a NaN
 * where insertion sort leaves it. */
static void test_sort(void)
{
    unsigned seed = 777;
    for (int round = 0; round < 4000; round++) {
        double v[20], want[20];
        size_t n = 1 + (size_t)round % 20;
        int levels = round % 3 ? 3 : 1 << 20;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            want[i] = v[i] = (double)((seed >> 16) % (unsigned)levels) - levels / 2;
        }
        if (round % 7 == 0)
            want[round % n] = v[round % n] = round % 2 ? -0.0 : INFINITY;
        if (round % 11 == 0)
            want[n - 1] = v[n - 1] = round % 2 ? NAN : -INFINITY;
        for (size_t i = 1; i < n; i++) {    /* insertion sort: stable, NaN where it stops */
            double x = want[i];
            size_t j = i;
            for (; j > 0 && want[j - 1] > x; j--)
                want[j] = want[j - 1];
            want[j] = x;
        }
        pg_stats_sort(v, n);
        CHECK(!memcmp(v, want, n * sizeof *v));
    }
}

static void test_bh_many(void)
{
    static double p[4000], q[4000], want[4000];
    unsigned seed = 7;
    size_t n = 4000;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = i % 5 == 0 ? 1.0 : i % 7 == 0 ? 0.0 : (double)((seed >> 16) % 300) / 1000.0;
        rank_of[i] = i;
    }
    ranked_p = p;
    qsort(rank_of, n, sizeof *rank_of, by_p_then_index);
    double running = 1.0;
    for (size_t k = n; k-- > 0;) {
        double v = p[rank_of[k]] * (double)n / (double)(k + 1);
        running = v < running ? v : running;
        want[rank_of[k]] = running;
    }
    CHECK_EQ_INT(pg_stats_bh(q, p, n), 0);
    size_t same = 0;
    for (size_t i = 0; i < n; i++)
        same += q[i] == want[i];
    CHECK_EQ_INT((int)same, (int)n);
    /* A negative zero (no p-value is one) is still ranked as a zero. */
    double z[] = {0.5, -0.0, 0.01};
    CHECK_EQ_INT(pg_stats_bh(z, z, 3), 0);
    CHECK(z[1] == 0 && z[2] == 0.015 && z[0] == 0.5);
}

int main(void)
{
    test_sort();
    test_bh_many();
    test_median();
    test_mwu_sorted();
    test_mwu_exact();
    test_mwu_normal();
    test_bh();
    return pg_check_done();
}
