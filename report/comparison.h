/* report/comparison.h — what a comparison of two sides holds: per benchmark,
 * its metrics' deltas and verdicts, its function table and its divergence;
 * the new, vanished and missing benchmarks; the verdict.
 *
 * The types every step of a comparison reads and fills (compare.c decides
 * the verdicts, divergence.c the divergences, explain.c the function
 * tables) and every renderer reads, below all of them so that none needs
 * another's header for them.
 */
#ifndef PG_REPORT_COMPARISON_H
#define PG_REPORT_COMPARISON_H

#include "report/series.h"
#include "report/threshold.h"

#include <stdbool.h>
#include <stddef.h>

/* A note is owned text, NULL when there is none: in 10^4 benchmarks of 5
 * metrics, fixed buffers were 13 MB of mostly empty records. Its length is
 * capped as the buffers capped it, so a hostile failure reason stays short. */
#define PG_NOTE_METRIC 160
#define PG_NOTE_BENCH 512

typedef struct pg_metric_cmp {
    const char *metric, *unit;      /* borrowed from the sides */
    const char *backend;            /* the baseline's; with `not_compared` see `note` */
    size_t na, nb;                  /* samples */
    double base, cand;              /* medians (NAN when that side has none) */
    double delta_abs;               /* cand - base */
    double delta_pct;               /* 100 * delta_abs / base; NAN when base is 0 and cand is not */
    double threshold_pct;
    pg_threshold_source threshold_source;
    pg_verdict verdict;
    double floor_pct;               /* noise floor measured by calibrate (report/calib.h), NAN: none */
    double spread;                  /* an exact count that does not repeat: the larger side's largest
                                     * less smallest value (pg_series_spread), the floor its delta
                                     * is decided against; 0: it repeats, or it is not exact */
    double p, q;                    /* raw and BH-adjusted p-values (NAN when not tested) */
    char *note;                     /* why inconclusive / not compared (at most PG_NOTE_METRIC bytes,
                                     * owned), NULL otherwise: set by pg_note_set/pg_note_add */
    size_t order;                   /* its place in the benchmark's list (gates first) */
    double control_pct;             /* --control: the baseline's two runs differ by this |delta %|
                                     * (NAN: not comparable)... */
    double control_abs;             /* ...and by this |delta| in the metric's unit */
    /* Flags, as bools: a comparison of 10^4 benchmarks holds 5 * 10^4 of
     * these records, and nine ints were 1.8 MB of it. */
    bool gating;
    bool deterministic;
    bool simulated;                 /* the baseline's series was measured on a model (pg_series) */
    bool exceeds;                   /* |delta_pct| > threshold_pct (a change from 0 always does) */
    bool tested;                    /* Mann-Whitney U was computed (every noisy pair with enough samples) */
    bool not_compared;              /* on one side only, or across backends: verdict inconclusive */
    bool controlled;                /* --control measured the baseline twice (report/control.h) */
    bool within_noise;              /* it regressed by no more than the control: unchanged, with a note */
    bool exact_drift;               /* an exact count that differs in the control: a finding */
} pg_metric_cmp;

/* A gating count and the native time disagreeing (report/divergence.h). */
typedef struct pg_divergence {
    int kind;                       /* pg_divergence_kind; 0: none */
    pg_metric_cmp count, time;      /* copies of the two metrics compared (their notes borrowed) */
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
    char *note;                     /* a failure on either side, and where a side's exact counts
                                     * came from when they were reused (at most PG_NOTE_BENCH bytes,
                                     * owned), NULL otherwise */
    const char *stacks_a, *stacks_b;/* folded stacks of each side, or NULL (borrowed) */
    double iter_a, iter_b;          /* the iterations each side's stacks hold (a Google Benchmark's
                                     * timed region), 0: the whole process's */
    int failed_a, failed_b;         /* it failed on that side (its latest run) */
    const char *stacks_note;        /* what is inexact about them (the candidate's, else the baseline's), or NULL */
    pg_func_row *funcs;             /* top self-cost changes, filled by pg_explain_funcs() (explain.h) */
    size_t nfuncs;
    char *funcs_unit;               /* "samples" or "instructions" (owned) */
    pg_divergence *div;             /* count against native time (divergence.h), or NULL: they
                                     * agree (owned: two metric copies a bench were 7 MB in 10^4) */
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
    pg_func_row funcs_unattributed; /* headline minus the stacks' totals: what the headline's
                                     * runs counted apart from the stacks' run (callgrind's
                                     * stacks hold all of their run, [unknown] code included) */
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
    int controlled;                 /* --control: the baseline against itself (report/control.h) */
    size_t nwithin_noise;           /* regressed gating metrics no larger than their control's delta */
    bool apart;                     /* the sides share no session: load-bound metrics not compared */
    double load_base, load_cand;    /* each side's mean 1-minute load average at its runs' start; NAN: unknown */
    size_t nexact_drift;            /* exact gating counts that differ in the control: a finding */
    const struct pg_coverage *coverage; /* the change's functions and the benchmarks that run them
                                     * (report/coverage.h), or NULL: not asked for (borrowed) */
    int coverage_fails;             /* --require-coverage and it is not "covered" (pg_coverage_fails) */
} pg_comparison;

void pg_comparison_free(pg_comparison *c);

/* Replaces *note with the formatted text, cut to max - 1 bytes. On PG_ENOMEM
 * *note is unchanged. */
__attribute__((format(printf, 3, 4)))
int pg_note_set(char **note, size_t max, const char *fmt, ...);

/* Appends the formatted text to *note, after "; " when *note has some,
 * keeping the whole at max - 1 bytes at most (a full note stays as it is). */
__attribute__((format(printf, 3, 4)))
int pg_note_add(char **note, size_t max, const char *fmt, ...);

/* Whether the comparison fails a build (exit 1): a regressed verdict, a
 * divergence when fail_on_divergence, or coverage_fails. */
int pg_comparison_fails(const pg_comparison *c);

/* The comparison's benchmark `name`, or NULL (a linear search). */
const pg_bench_cmp *pg_comparison_find_bench(const pg_comparison *c, const char *name);

/* The benchmark's metric `name`, or NULL. */
const pg_metric_cmp *pg_bench_cmp_metric(const pg_bench_cmp *b, const char *name);

#endif
