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
 *
 *  - Two modes: samples that fall into two groups, the benchmark flipping
 *    between two code paths, layouts or frequencies from run to run. Such a
 *    benchmark's median jumps between the groups and its verdicts flip
 *    without any change of code. The best two-group split of the sorted
 *    values (the one with least within-group variance, Jenks/Otsu) counts
 *    when both groups hold at least 10% of the values (and 3), their means
 *    are at least 4 pooled standard deviations apart, and at least `min_rel`
 *    apart relative to the lower mean. One normal, or uniform, distribution
 *    splits at under 3.5 standard deviations, so neither is called bimodal.
 */
#ifndef PG_REPORT_HISTSTATS_H
#define PG_REPORT_HISTSTATS_H

#include <stddef.h>

/* Change points of x[0..n): writes the index of the first value of each new
 * level, ascending, into out[0..max) and returns how many (at most max).
 * `noise`: the standard error of one value from other evidence (0: none);
 * segments are at least `min_seg` values long (>= 1). */
size_t pg_hist_changepoints(size_t *out, size_t max, const double *x, size_t n, double noise, double min_rel,
                            double min_z, size_t min_seg);

/* The two-mode test above on v[0..n) (v is not modified). 1 when bimodal,
 * with *gap_rel the distance of the groups' means relative to the lower one
 * and *share_low the lower group's share of the values; 0 otherwise, also
 * when there are fewer than 20 values. PG_ENOMEM. */
int pg_hist_bimodal(double *gap_rel, double *share_low, const double *v, size_t n, double min_rel);

/* The q-quantile (0..1, linear interpolation between order statistics, as
 * numpy's default) of v[0..n) (not modified); NAN when n == 0 or no memory. */
double pg_hist_quantile(const double *v, size_t n, double q);

#endif
