/* report/compare.h — verdicts: two sides' samples in, one pg_comparison out.
 *
 * Benchmarks are matched by name; in each, metrics by name and backend (a
 * value measured by valgrind is never set against one measured by perf: such
 * a pair is listed as not compared, with the reason). For each pair:
 *   - medians of both sides, delta absolute and in % of the baseline median;
 *   - deterministic metrics (counts simulated by valgrind, unit "count" — not its
 *     wall-time or max-rss — or every repeat identical on
 *     both sides with at least 2 each) are decided by the threshold alone:
 *     delta > +threshold regressed, < -threshold improved, else unchanged;
 *   - noisy metrics with at least `min_samples` on each side are tested with
 *     Mann-Whitney U (report/stats.h), and the p-values of every tested pair
 *     of the whole comparison (within their thresholds or not) are adjusted
 *     together with Benjamini-Hochberg. |delta| <= threshold: unchanged;
 *     beyond it with adjusted p < alpha: regressed or improved; beyond it
 *     without significance, or with too few samples: inconclusive.
 * A benchmark's verdict comes from its gating metrics only, in this order:
 * regressed if any regressed, else inconclusive if any is (or is missing, or
 * the benchmark failed on a side), else improved if any improved, else
 * unchanged. The comparison's verdict is the same rule over its benchmarks
 * (no benchmark in common: inconclusive). Benchmarks on one side only are
 * listed as new or vanished and do not change the verdict.
 *
 * Fail closed: every benchmark whose gating metrics could not all be compared
 * (on one side only, failed on a side, a gating metric missing on a side or
 * measured by different backends) is listed in `missing` with the reason. The
 * caller refuses such a comparison unless the user allowed it
 * (--allow-missing), and refuses one that compared no gating metric at all.
 * A metric that is an alias of another the same side measured ("Ir" beside
 * "instructions", util/metrics.h) is left out: one number, shown once.
 * Last, each benchmark's gating counts are set against its native time
 * (divergence.h).
 */
#ifndef PG_REPORT_COMPARE_H
#define PG_REPORT_COMPARE_H

#include "report/series.h"
#include "report/threshold.h"

#include <stddef.h>

typedef struct pg_metric_cmp {
    const char *metric, *unit;      /* borrowed from the sides */
    const char *backend;            /* the baseline's; with `not_compared` see `note` */
    size_t na, nb;                  /* samples */
    double base, cand;              /* medians (NAN when that side has none) */
    double delta_abs;               /* cand - base */
    double delta_pct;               /* 100 * delta_abs / base; NAN when base is 0 and cand is not */
    double threshold_pct;
    pg_threshold_source threshold_source;
    double floor_pct;               /* noise floor measured by calibrate (report/calib.h), NAN: none */
    int gating;
    int deterministic;
    int exceeds;                    /* |delta_pct| > threshold_pct (a change from 0 always does) */
    int tested;                     /* Mann-Whitney U was computed (every noisy pair with enough samples) */
    double p, q;                    /* raw and BH-adjusted p-values (NAN when not tested) */
    int not_compared;               /* on one side only, or across backends: verdict inconclusive */
    pg_verdict verdict;
    char note[160];                 /* why inconclusive / not compared, "" otherwise */
    size_t order;                   /* its place in the benchmark's list (gates first) */
} pg_metric_cmp;

/* A gating count and the native time disagreeing (report/divergence.h). */
typedef struct pg_divergence {
    int kind;                       /* pg_divergence_kind; 0: none */
    pg_metric_cmp count, time;      /* copies of the two metrics compared */
} pg_divergence;

/* One row of the per-function table: a function's self cost on both sides. */
typedef struct pg_func_row {
    char *name;
    double base, cand, delta;       /* self cost (samples, or instructions with valgrind) */
} pg_func_row;

typedef struct pg_bench_cmp {
    const char *name;               /* borrowed */
    pg_verdict verdict;
    pg_metric_cmp *m;               /* gating metrics first, then the usual order (docs/metrics.md) */
    size_t nm;
    char note[512];                 /* a failure on either side, "" otherwise */
    const char *stacks_a, *stacks_b;/* folded stacks of each side, or NULL (borrowed) */
    double iter_a, iter_b;          /* the iterations each side's stacks hold (a Google Benchmark's
                                     * timed region), 0: the whole process's */
    int failed_a, failed_b;         /* it failed on that side (its latest run) */
    const char *stacks_note;        /* what is inexact about them (the candidate's, else the baseline's), or NULL */
    pg_func_row *funcs;             /* top self-cost changes, filled by pg_explain_funcs() (explain.h) */
    size_t nfuncs;
    char *funcs_unit;               /* "samples" or "instructions" (owned) */
    pg_divergence div;              /* count against native time (divergence.h) */
    /* Confirmation (report/confirm.h): its regression rested on noisy gating
     * metrics, so both revisions were measured again. */
    const struct pg_bench_cmp *round2;  /* the second round's comparison of it, or NULL (borrowed) */
    pg_verdict round1;              /* its verdict before the second round */
    int confirmed;                  /* the second round found it regressed too */
    /* The rest of the story, so that the table adds up (pg_explain_funcs):
     * funcs + other = the stacks' totals; + unattributed = the headline. */
    pg_func_row funcs_other;        /* the functions not in `funcs`, summed (name NULL) */
    size_t nfuncs_other;            /* how many they are */
    const char *funcs_headline;     /* the metric the rows add up to ("instructions"), or NULL:
                                     * then funcs_unattributed is unset */
    pg_func_row funcs_unattributed; /* headline minus the stacks' totals: code outside the
                                     * stacks (PLT stubs, ld.so) and what the two runs differ by */
} pg_bench_cmp;

/* A benchmark the gate could not decide on, and why. */
typedef struct pg_missing {
    const char *bench;              /* borrowed */
    char reason[256];               /* "not in the baseline", "failed in the candidate: exit status 3" */
} pg_missing;

typedef struct pg_comparison {
    const pg_side *base, *cand;     /* borrowed: must outlive the comparison */
    pg_verdict verdict;
    pg_bench_cmp *bench;            /* in the candidate's order */
    size_t nbench;
    const char **added;             /* benchmark names only in the candidate (borrowed) */
    size_t nadded;
    const char **vanished;          /* only in the baseline */
    size_t nvanished;
    size_t count[4];                /* benchmarks per pg_verdict */
    pg_missing *missing;            /* benchmarks not gated (see above), in the candidate's order, then vanished */
    size_t nmissing;
    size_t ngated;                  /* (benchmark, gating metric) pairs compared */
    const pg_gates *gates;          /* borrowed */
    double alpha;
    int cross_machine;              /* the sides come from different machines (allowed) */
    size_t ndiverged;               /* benchmarks whose counts and time disagree (divergence.h) */
    double divergence_factor;
    int fail_on_divergence;         /* a divergence fails the comparison (pg_comparison_fails) */
    size_t nremeasured;             /* benchmarks with a second round (report/confirm.h) */
} pg_comparison;

typedef struct pg_compare_opts {
    const pg_thresholds *thresholds;/* --threshold rules, or NULL */
    const pg_gates *gates;          /* required, at least one metric */
    const struct pg_floors *floors; /* calibrate's floors and thresholds for this machine, or NULL */
    double alpha;                   /* significance after BH; 0: 0.05 */
    size_t min_samples;             /* per side for a noisy metric; 0: 3 */
    double divergence_factor;       /* 0: PG_DIVERGENCE_FACTOR (divergence.h) */
    int fail_on_divergence;
} pg_compare_opts;

/* Compares `base` against `cand` into `out` (which borrows from both sides
 * and from o->gates). PG_ENOMEM. */
int pg_compare(pg_comparison *out, const pg_side *base, const pg_side *cand, const pg_compare_opts *o);
void pg_comparison_free(pg_comparison *c);

/* Whether the comparison fails a build (exit 1): a regressed verdict, or a
 * divergence when fail_on_divergence. */
int pg_comparison_fails(const pg_comparison *c);
/* The verdict of several: regressed if any, else inconclusive if any, else
 * improved if any, else unchanged (count[v]: how many had verdict v). */
pg_verdict pg_verdict_combine(const size_t count[4]);

/* The benchmark's metric `name`, or NULL. */
const pg_metric_cmp *pg_bench_cmp_metric(const pg_bench_cmp *b, const char *name);

#endif
