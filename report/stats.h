/* report/stats.h — the statistics compare decides with.
 *
 * The primary test is the two-sided Mann-Whitney U test (Wilcoxon rank-sum):
 * it assumes no distribution (benchmark timings are skewed and have outliers),
 * needs only a handful of samples, and is what Google Benchmark's compare.py
 * uses. Its p-value is exact for small samples without ties and the normal
 * approximation with tie and continuity correction otherwise — the same
 * choices as scipy.stats.mannwhitneyu(method="auto", use_continuity=True),
 * so its values can be checked against scipy. When many (benchmark, metric)
 * pairs are tested at once, their p-values are adjusted with the
 * Benjamini-Hochberg procedure, so that among the changes called significant
 * at most 5% are expected to be false discoveries.
 */
#ifndef PG_REPORT_STATS_H
#define PG_REPORT_STATS_H

#include <stddef.h>

/* The median of v[0..n) (v is not modified); NAN when n == 0. */
double pg_stats_median(const double *v, size_t n);

/* Sorts v[0..n) ascending (no NaN among them). */
void pg_stats_sort(double *v, size_t n);

/* The median of v[0..n) already sorted ascending; NAN when n == 0. So that
 * a caller who also tests the samples sorts them once. */
double pg_stats_median_sorted(const double *v, size_t n);

/* 1 when every value of v[0..n) is equal (also for n <= 1). */
int pg_stats_all_equal(const double *v, size_t n);

/* Sample sizes up to which (together, na + nb) the exact distribution of U is
 * used when there are no ties. Its counts are exact in a double up to there. */
#define PG_MWU_EXACT_MAX 50

typedef struct pg_mwu {
    double u1;      /* U of the first sample: pairs (a, b) with a > b, ties counting 1/2 */
    double u2;      /* na * nb - u1 */
    double p;       /* two-sided p-value; 1 when every value is tied */
    int exact;      /* 1: exact distribution; 0: normal approximation */
} pg_mwu;

/* Two-sided Mann-Whitney U test of a[0..na) against b[0..nb). PG_EINVAL when a
 * sample is empty; PG_ENOMEM. */
int pg_stats_mannwhitney(pg_mwu *out, const double *a, size_t na, const double *b, size_t nb);

/* The same of a[0..na) and b[0..nb) each sorted ascending, without NaN: the
 * same U and p as pg_stats_mannwhitney, from a merge instead of a sort. */
int pg_stats_mannwhitney_sorted(pg_mwu *out, const double *a, size_t na, const double *b, size_t nb);

/* pg_stats_mannwhitney keeps, per thread, the exact table of the last sample
 * sizes it tested. A thread that tested pairs calls this before it ends, or
 * the table is lost with it. */
void pg_stats_forget(void);

/* Benjamini-Hochberg adjusted p-values ("q-values") of p[0..n) into q[0..n)
 * (q may alias p): q_(i) = min over j >= i of p_(j) * n / j, capped at 1, where
 * p_(j) is the j-th smallest. Rejecting q < alpha controls the false discovery
 * rate at alpha. PG_ENOMEM. */
int pg_stats_bh(double *q, const double *p, size_t n);

#endif
