/* report/histstats.h — what a benchmark's history says that one comparison cannot.
 *
 * `compare` sets two commits against each other; a history of many commits
 * shows two more things (report/history.h uses both):
 *
 *  - Change points: where the level of a series moved and stayed. A change
 *    spread over several commits, none of them past the threshold alone, is
 *    invisible to step-by-step comparison but is one change point here.
 *    Binary segmentation: the split of a segment that maximises the shift of
 *    the mean, weighted by sqrt(nL * nR / n), is kept when the shift is at
 *    least `min_rel` of the left level and at least `min_z` standard errors
 *    (Welch's, from the spread inside each piece plus the typical standard
 *    error of one point's median); then both halves are searched again.
 *    Deterministic counts that step have no spread inside their pieces, so
 *    the relative shift alone decides, as in compare; a steady creep has
 *    one, so it is split where it moved most, a few times, not at every
 *    commit.
 *    Where the raw samples behind each value are at hand (history.c), the
 *    split is judged on them instead of on the standard errors: a rank test
 *    (Mann-Whitney) of the pooled samples left of the split against those
 *    right of it, its p-value multiplied by the number of candidate splits
 *    of the segment (the best of many splits is chosen, so one test would
 *    overstate it). Medians of a few samples of a two-mode benchmark can line
 *    up into a level shift that the samples themselves do not support.
 *
 *  - Two modes: samples that fall into two groups, the benchmark flipping
 *    between two code paths, layouts or frequencies from run to run. Such a
 *    benchmark's median jumps between the groups and its verdicts flip
 *    without any change of code. The best two-group split of the sorted
 *    values (the one with least within-group variance, Jenks/Otsu) counts
 *    when both groups hold at least 10% of the values (and 3), their means
 *    are at least 4 pooled standard deviations apart, and at least `min_rel`
 *    apart relative to the lower mean (or, when that mean is 0, to the mean
 *    of all values: a count of 0 or 1 context switch is no infinite gap). One normal, or uniform, distribution
 *    splits at under 3.5 standard deviations, so neither is called bimodal.
 */
#ifndef PG_REPORT_HISTSTATS_H
#define PG_REPORT_HISTSTATS_H

#include <stddef.h>

/* The p-value that the raw samples of values [lo, k) and [k, hi) come from
 * one distribution: 0 when each side's samples are all equal (exact
 * counts: the relative shift alone decides); negative on error. */
typedef double (*pg_hist_split_test)(void *ctx, size_t lo, size_t k, size_t hi);

typedef struct pg_hist_cp_opts {
    double noise;           /* the standard error of one value from other evidence (0: none) */
    double min_rel;         /* the least shift, relative to the left level */
    double min_z;           /* without a test: the least shift in standard errors */
    size_t min_seg;         /* segments are at least this many values long (>= 1) */
    pg_hist_split_test test;    /* NULL: judge by min_z */
    void *ctx;
    double alpha;           /* with a test: keep a split whose corrected p-value is below this */
} pg_hist_cp_opts;

/* Change points of x[0..n): writes the index of the first value of each new
 * level, ascending, into out[0..max) and returns how many (at most max);
 * with a test, each one's corrected p-value into p_out (may be NULL).
 * Negative when the test failed. */
long pg_hist_changepoints(size_t *out, double *p_out, size_t max, const double *x, size_t n,
                          const pg_hist_cp_opts *o);

/* The two groups of pg_hist_bimodal. */
typedef struct pg_hist_modes {
    double low, high;       /* the groups' means, in the values' units */
    double share_low;       /* the lower group's share of the values */
    double gap_rel;         /* (high - low) relative to the lower mean; when the lower
                             * group is at 0 (0, 1 and 2 context switches), relative
                             * to the mean of all values instead: always finite */
} pg_hist_modes;

/* The two-mode test above on v[0..n) (v is not modified; its values must be
 * finite). 1 when bimodal, with the groups in *m; 0 otherwise (*m zeroed),
 * also when there are fewer than 20 values. PG_ENOMEM. */
int pg_hist_bimodal(pg_hist_modes *m, const double *v, size_t n, double min_rel);

/* The q-quantile (0..1, linear interpolation between order statistics, as
 * numpy's default) of v[0..n) (not modified); NAN when n == 0 or no memory. */
double pg_hist_quantile(const double *v, size_t n, double q);

#endif
