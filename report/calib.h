/* report/calib.h — noise floors measured by A/A runs (`perfgate calibrate`),
 * and the thresholds they suggest (docs/metrics.md, "Calibration").
 *
 * An A/A pair is two measurements of the same tree on the same machine, each
 * side with the repeat count a comparison would use. A metric's noise floor is
 * the largest relative difference between the two sides' medians over every
 * pair: exactly the statistic `compare` sets against the threshold, so a
 * threshold at or below the floor would have raised a false alarm during the
 * calibration itself. The largest rather than a quantile because calibrations
 * are a handful of pairs, where any high quantile is the largest anyway.
 */
#ifndef PG_REPORT_CALIB_H
#define PG_REPORT_CALIB_H

#include <stddef.h>

/* The lowest threshold a calibration suggests (percent). Counts that came out
 * identical in every pair still move by a few dozen instructions between
 * checkouts at other paths (bench/tools/aa-floor.sh), which calibrate's runs
 * in one checkout do not see. */
#define PG_CALIB_MIN_PCT 0.01

/* The noise floor (percent) of `n` pairs: base[i] against cand[i], each the
 * median of one side. 100 * max |cand - base| / |base|; a pair whose baseline
 * is 0 counts 0 when the candidate is 0 too, else it is skipped (no percentage
 * exists). PG_EINVAL when no pair has a percentage. */
int pg_calib_floor(double *pct, const double *base, const double *cand, size_t n);

/* The threshold suggested for a floor: twice the floor (a handful of pairs
 * underestimates the largest difference the machine makes), rounded up to
 * the next 1, 2 or 5 times a power of ten, at least PG_CALIB_MIN_PCT. */
double pg_calib_suggest(double floor_pct);

/* One calibrated (benchmark, metric). */
typedef struct pg_floor {
    char *bench, *metric;
    double floor_pct, threshold_pct;
} pg_floor;

typedef struct pg_floors {
    pg_floor *v;
    size_t n;
} pg_floors;

/* Sets the entry of (bench, metric), adding it when new. PG_ENOMEM. */
int pg_floors_set(pg_floors *f, const char *bench, const char *metric, double floor_pct, double threshold_pct);
/* The entry of (bench, metric), or NULL; `f` may be NULL. */
const pg_floor *pg_floors_find(const pg_floors *f, const char *bench, const char *metric);
void pg_floors_free(pg_floors *f);

#endif
