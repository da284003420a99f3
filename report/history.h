/* report/history.h — benchmarks over a line of commits, for `perfgate history`.
 *
 * The harness walks the first-parent line, oldest first, and hands over each
 * commit with the sides measured on it (report/series.h), one per machine and
 * backend: a "lane". Values of different lanes are never set against each
 * other (a laptop and a CI runner differ in time, perf and valgrind in
 * counts), so each (benchmark, metric, lane) is one series of points, one
 * point per commit that has it.
 *
 * pg_history_analyze then decides, per series:
 *  - each point's step: the lane's previous point against this one, by
 *    pg_compare (report/compare.h) with the same thresholds and tests as
 *    `perfgate compare PREV THIS`: regressed and improved points are marked;
 *  - change points: in an exact series (exact counts, one run a commit or a
 *    few whose spread is the count's floor, report/series.h), every step
 *    compare calls a regression or an improvement, and no other: a count
 *    moves only when the code it runs does. In a noisy series
 *    (report/histstats.h), where the level moved and stayed, also when no
 *    single step crossed the threshold. A split is judged on the raw samples
 *    either side of it, not on the medians (a rank test, corrected for the
 *    splits it was chosen from, then across every series of the history
 *    with Benjamini-Hochberg at 5%), so that a two-mode benchmark's medians
 *    lining up by chance are no change. A noisy series' change point that
 *    the benchmark's exact counts do not share, between commits measured
 *    under different load (pg_history_set_load), ranks lower: the machine
 *    moved, most likely, not the code;
 *  - what makes the benchmark hard to trust, from its whole history:
 *      noisy    the typical spread of one commit's samples (interquartile
 *               range over the median) exceeds the threshold: compare sees
 *               changes of that size as noise, or not at all;
 *      flaky    its verdicts flip: a regression followed by an improvement
 *               that undoes it (or the reverse), twice or more;
 *      bimodal  its samples, each divided by the level of its stretch of
 *               history, fall into two groups further apart than the
 *               threshold (report/histstats.h).
 */
#ifndef PG_REPORT_HISTORY_H
#define PG_REPORT_HISTORY_H

#include "report/series.h"
#include "report/threshold.h"
#include "util/strindex.h"

#include <stddef.h>
#include <stdio.h>

typedef struct pg_hist_commit {
    char id[41];
    char *subject;              /* first line of the message (owned) */
    long long time;             /* committer time, seconds since the epoch */
} pg_hist_commit;

typedef struct pg_hist_lane {
    char machine_id[16];
    char machine_desc[256];
    char backend[16];
} pg_hist_lane;

typedef struct pg_hist_point {
    size_t commit;              /* index into pg_history.commits */
    double median, q1, q3, min, max;
    size_t n;                   /* samples */
    pg_verdict step;            /* against the previous point (UNCHANGED for the first) */
    double step_pct;            /* its delta in % of the previous median; NAN: none (or from 0) */
    double step_delta;          /* its delta in the metric's unit; NAN: none */
    double step_threshold;      /* the threshold it was judged by */
    const char *stacks;         /* folded stacks of this commit's benchmark, or NULL (borrowed from its side) */
    char *flamegraph;           /* links the caller sets (owned, freed with the history), or NULL: */
    char *diff_flamegraph;      /*   its flamegraph, and the differential one against the previous point */
} pg_hist_point;

typedef enum pg_hist_cp_kind {
    PG_HIST_CP_LEVEL = 0,       /* a noisy series' level moved and stayed */
    PG_HIST_CP_STEP,            /* an exact series stepped past its floor and threshold */
    PG_HIST_CP_LOAD,            /* lower rank: a noisy series moved where its benchmark's exact
                                 * counts did not, between commits measured under different load */
} pg_hist_cp_kind;

typedef struct pg_hist_change {
    size_t at;                  /* index into the series' points: the first of the new level */
    pg_hist_cp_kind kind;
    double before, after;       /* the levels (mean of the points' medians) either side, to the
                                 * neighbouring change points; a step's: the two points' medians */
    double delta;               /* after - before, in the metric's unit */
    double pct;                 /* 100 * delta / before; NAN when before is 0 (delta says it) */
    double load_before, load_after; /* PG_HIST_CP_LOAD: the load averages either side */
    size_t n_before, n_after;   /* the raw samples the split was judged on, either side */
    double q;                   /* its p-value, corrected for the candidate splits and, across
                                 * every series, by Benjamini-Hochberg; 0 for exact counts */
} pg_hist_change;

enum {
    PG_HIST_NOISY = 1,
    PG_HIST_FLAKY = 2,
    PG_HIST_BIMODAL = 4,
};

typedef struct pg_hist_series {
    const char *bench, *metric, *unit;  /* borrowed from the sides */
    const char *backend;        /* what measured the metric (series.h's `backend`), borrowed */
    size_t lane;
    double threshold;           /* % (the latest point's benchmark thresholds, then the defaults) */
    pg_hist_point *p;
    size_t np, cap;
    int exact;                  /* pg_series_exact: its change points are its steps */
    double floor;               /* an exact series' largest spread over its points (pg_series_spread) */
    pg_hist_change *cp;
    size_t ncp;
    unsigned flags;             /* PG_HIST_* */
    double spread_pct;          /* median over points of 100 * IQR / median */
    size_t flips;               /* verdict flips (flaky) */
    double mode_gap_pct, mode_share;  /* bimodal: the groups' distance in % (histstats.h: of the lower
                                       * group, or of the level when that is 0), the lower group's share */
    double mode_low, mode_high; /* bimodal: the groups' means in the metric's unit, at its typical level */
    size_t chunk;               /* the page's piece of data that holds its points (a benchmark and
                                 * metric: one chart), 0..pg_history.nchunks */
    char *key;                  /* private: the index's key */
} pg_hist_series;

typedef struct pg_history {
    pg_hist_commit *commits;    /* oldest first */
    size_t ncommits, capcommits;
    pg_hist_lane *lanes;
    size_t nlanes, caplanes;
    struct pg_hist_side *sides; /* every side handed over, in commit order (owned) */
    size_t nsides, capsides;
    pg_hist_series *s;          /* by lane, then benchmark and metric as first seen */
    size_t ns, caps;
    pg_strindex index;          /* series by key (history.c) */
    size_t nchunks;             /* pieces of the page's data (pg_hist_series.chunk) */
    size_t npoints;             /* points over every series */
    size_t nmeasured;           /* commits with results */
} pg_history;

/* Appends a commit (the next, newer one on the line). PG_ENOMEM. */
int pg_history_add_commit(pg_history *h, const char *id, const char *subject, long long time);

/* Hands `side` (measured on the last commit added) to the history, which
 * owns it from then on (also on error); its lane is its machine and backend. */
int pg_history_add_side(pg_history *h, pg_side *side);

/* The load average the runs of the last commit's sides on machine
 * `machine_id` were measured under (what their "uncontrolled" says; 0 when
 * it says none), for ranking the change points only time saw. Unset: not
 * known, and no change point is ranked so. */
void pg_history_set_load(pg_history *h, const char *machine_id, double load);

/* Builds the series and decides what is above. `cli` (NULL: none): the
 * --threshold rules. PG_ENOMEM, or an error of pg_compare. */
int pg_history_analyze(pg_history *h, const pg_thresholds *cli);

void pg_history_free(pg_history *h);

/* What the page says besides the data. */
typedef struct pg_hist_page {
    const char *title;          /* "perfgate history: <repository>" */
    const char *range;          /* what was asked: "main~50..main" */
    const char *commit_url;     /* a commit's web page with %H for its id ("https://github.com/o/r/commit/%H"), or NULL */
    const char *generated;      /* when, as text */
    const char *data_dir;       /* the points are in files of this directory (relative to the page,
                                 * pg_history_render_chunk), loaded when their chart is shown;
                                 * NULL: in the page */
} pg_hist_page;

/* Writes the analyzed history as one HTML page (report/history_page.html
 * with the data embedded as JSON; the page draws the charts itself). The
 * page always holds the findings and what each chart is; the points too
 * when page->data_dir is NULL (self-contained), else each chart's points
 * are in data_dir/<chunk>.js. PG_EIO when writing fails. */
int pg_history_render_html(FILE *out, const pg_history *h, const pg_hist_page *page);

/* Writes piece `chunk` (< h->nchunks) of the points as the script file
 * <chunk>.js that a page with a data_dir loads. PG_EIO. */
int pg_history_render_chunk(FILE *out, const pg_history *h, size_t chunk);

#endif
