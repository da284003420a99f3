/* report/history.c — series, steps, change points and flags (history.h). */
#include "report/history.h"

#include "report/compare.h"
#include "report/histstats.h"
#include "report/stats.h"
#include "util/array.h"
#include "util/error.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pg_hist_side {
    size_t commit, lane;
    pg_side *side;
    double load;            /* the load average it was measured under; NAN: not known */
} pg_hist_side;

int pg_history_add_commit(pg_history *h, const char *id, const char *subject, long long time)
{
    if (pg_array_grow(&h->commits, &h->capcommits, h->ncommits, sizeof *h->commits, 64) < 0)
        return PG_ENOMEM;
    pg_hist_commit *c = &h->commits[h->ncommits];
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
    c->time = time;
    if (!(c->subject = strdup(subject ? subject : "")))
        return pg_error_set(PG_ENOMEM, "out of memory");
    h->ncommits++;
    return 0;
}

static size_t lane_of(pg_history *h, const pg_side *side)
{
    for (size_t i = 0; i < h->nlanes; i++)
        if (!strcmp(h->lanes[i].machine_id, side->machine_id) && !strcmp(h->lanes[i].backend, side->backend))
            return i;
    if (pg_array_grow(&h->lanes, &h->caplanes, h->nlanes, sizeof *h->lanes, 4) < 0)
        return (size_t)-1;
    pg_hist_lane *l = &h->lanes[h->nlanes];
    snprintf(l->machine_id, sizeof l->machine_id, "%s", side->machine_id);
    snprintf(l->machine_desc, sizeof l->machine_desc, "%s", side->machine_desc);
    snprintf(l->backend, sizeof l->backend, "%s", side->backend);
    return h->nlanes++;
}

int pg_history_add_side(pg_history *h, pg_side *side)
{
    size_t lane;
    if (!h->ncommits || (lane = lane_of(h, side)) == (size_t)-1 ||
        pg_array_grow(&h->sides, &h->capsides, h->nsides, sizeof *h->sides, 64) < 0) {
        pg_side_free(side);
        free(side);
        return h->ncommits ? PG_ENOMEM : pg_error_set(PG_EINVAL, "a side before any commit");
    }
    h->sides[h->nsides++] = (pg_hist_side){.commit = h->ncommits - 1, .lane = lane, .side = side, .load = NAN};
    return 0;
}

void pg_history_set_load(pg_history *h, const char *machine_id, double load)
{
    for (size_t i = h->nsides; i-- > 0 && h->ncommits && h->sides[i].commit == h->ncommits - 1;)
        if (!strcmp(h->lanes[h->sides[i].lane].machine_id, machine_id))
            h->sides[i].load = load;
}

/* The series of (bench, metric, lane), added when `add` and missing; NULL
 * when missing (or no memory: then the error is set and *rc is PG_ENOMEM). */
static pg_hist_series *series_of(pg_history *h, const char *bench, const char *metric, const char *backend,
                                 size_t lane, int add, int *rc)
{
    /* lengths first: names may hold any byte but NUL, so no separator is safe.
     * The metric's own backend is part of the key: one side may hold a metric
     * from two (a valgrind run's native task-clock beside valgrind's own), and
     * their values are never one series. */
    size_t len = strlen(bench) + strlen(metric) + strlen(backend) + 96;
    char *key = malloc(len);
    if (!key) {
        *rc = pg_error_set(PG_ENOMEM, "out of memory");
        return NULL;
    }
    snprintf(key, len, "%zu:%s%zu:%s%zu:%s%zu", strlen(bench), bench, strlen(metric), metric, strlen(backend), backend,
             lane);
    size_t at;
    if (pg_strindex_get(&h->index, key, &at)) {
        free(key);
        return &h->s[at];
    }
    if (!add || pg_array_grow(&h->s, &h->caps, h->ns, sizeof *h->s, 64) < 0 || pg_strindex_put(&h->index, key, h->ns) < 0) {
        free(key);
        if (add)
            *rc = PG_ENOMEM;
        return NULL;
    }
    pg_hist_series *s = &h->s[h->ns++];
    memset(s, 0, sizeof *s);
    s->bench = bench, s->metric = metric, s->backend = backend, s->lane = lane, s->key = key;
    return s;
}

static int add_point(pg_hist_series *s, size_t commit, const pg_bench_result *b, const pg_series *m,
                     const pg_thresholds *cli)
{
    if (pg_array_grow(&s->p, &s->cap, s->np, sizeof *s->p, 64) < 0)
        return PG_ENOMEM;
    pg_hist_point *p = &s->p[s->np++];
    *p = (pg_hist_point){.commit = commit, .n = m->n, .step = PG_VERDICT_UNCHANGED, .step_pct = NAN,
                         .step_delta = NAN, .step_threshold = NAN, .stacks = b->stacks};
    p->median = pg_hist_quantile(m->v, m->n, 0.5);    /* pg_stats_median's, but finite near DBL_MAX */
    p->q1 = pg_hist_quantile(m->v, m->n, 0.25);
    p->q3 = pg_hist_quantile(m->v, m->n, 0.75);
    p->min = p->max = m->v[0];
    for (size_t i = 1; i < m->n; i++)
        p->min = fmin(p->min, m->v[i]), p->max = fmax(p->max, m->v[i]);
    s->unit = m->unit;
    s->threshold = pg_threshold_for(cli, &b->thresholds, m->metric, NULL);
    s->exact = pg_series_exact(m);
    s->floor = fmax(s->floor, pg_series_spread(m));
    return 0;
}

/* 100 * (after - before) / before, or NAN where that is no number (from 0). */
static double rel_pct(double before, double after)
{
    double pct = 100 * ((after - before) / before);
    return before != 0 && isfinite(pct) ? pct : NAN;
}

/* The steps of `cand` (on commit `commit`) against the lane's previous side. */
static int judge_steps(pg_history *h, const pg_side *prev, const pg_side *cand, size_t lane, size_t commit,
                       const pg_thresholds *cli)
{
    pg_gates gates = {0};
    pg_comparison c;
    int rc = pg_gates_parse(&gates, "instructions");
    pg_compare_opts co = {.thresholds = cli, .gates = &gates};
    if (rc < 0 || (rc = pg_compare(&c, prev, cand, &co)) < 0) {
        pg_gates_free(&gates);
        return rc;
    }
    for (size_t i = 0; i < c.nbench; i++) {
        for (size_t k = 0; k < c.bench[i].nm; k++) {
            const pg_metric_cmp *m = &c.bench[i].m[k];
            pg_hist_series *s = m->not_compared ? NULL : series_of(h, c.bench[i].name, m->metric, m->backend, lane, 0, &rc);
            if (!s || !s->np || s->p[s->np - 1].commit != commit)
                continue;
            pg_hist_point *p = &s->p[s->np - 1];
            p->step = m->verdict, p->step_threshold = m->threshold_pct;
            /* finite or NAN (a step from 0): counts near DBL_MAX overflow 100 * delta */
            p->step_pct = isfinite(m->delta_pct) ? m->delta_pct : s->np > 1 ? rel_pct(p[-1].median, p->median) : NAN;
            p->step_delta = isfinite(m->delta_abs) ? m->delta_abs : NAN;
        }
    }
    pg_comparison_free(&c);
    pg_gates_free(&gates);
    return 0;
}

static int build_series(pg_history *h, const pg_thresholds *cli)
{
    for (size_t lane = 0; lane < h->nlanes; lane++) {
        const pg_side *prev = NULL;
        for (size_t e = 0; e < h->nsides; e++) {
            const pg_hist_side *hs = &h->sides[e];
            if (hs->lane != lane)
                continue;
            int rc = 0;
            for (size_t i = 0; i < hs->side->nb; i++) {
                const pg_bench_result *b = &hs->side->b[i];
                for (size_t k = 0; k < b->nm; k++) {
                    if (!b->m[k].n || pg_series_duplicate_alias(b, &b->m[k]))
                        continue;
                    pg_hist_series *s = series_of(h, b->name, b->m[k].metric, b->m[k].backend, lane, 1, &rc);
                    if (!s || add_point(s, hs->commit, b, &b->m[k], cli) < 0)
                        return rc < 0 ? rc : PG_ENOMEM;
                }
            }
            if (prev && (rc = judge_steps(h, prev, hs->side, lane, hs->commit, cli)) < 0)
                return rc;
            prev = hs->side;
        }
    }
    return 0;
}

/* The series point i was made of (its side's benchmark and metric), or NULL. */
static const pg_series *point_series(const pg_hist_series *s, const pg_side *const *side_of, size_t i)
{
    const pg_side *side = side_of[i];
    for (size_t b = 0; side && b < side->nb; b++)
        if (!strcmp(side->b[b].name, s->bench))
            return pg_bench_find_series(&side->b[b], s->metric, s->backend);
    return NULL;
}

/* The samples of points [lo, hi) into v (room for all): never more of a
 * point's series than the point counted. Returns how many. */
static size_t pool(double *v, const pg_hist_series *s, const pg_side *const *side_of, size_t lo, size_t hi)
{
    size_t nv = 0;
    for (size_t i = lo; i < hi; i++) {
        const pg_series *m = point_series(s, side_of, i);
        for (size_t k = 0; m && k < m->n && k < s->p[i].n; k++)
            v[nv++] = m->v[k];
    }
    return nv;
}

typedef struct split_ctx {
    const pg_hist_series *s;
    const pg_side *const *side_of;
    double *left, *right;   /* room for every sample of the series */
} split_ctx;

/* pg_hist_split_test on the pooled raw samples either side. */
static double split_test(void *ctx, size_t lo, size_t k, size_t hi)
{
    split_ctx *c = ctx;
    size_t nl = pool(c->left, c->s, c->side_of, lo, k), nr = pool(c->right, c->s, c->side_of, k, hi);
    if (!nl || !nr)
        return 1;   /* nothing to judge by: no change */
    if (pg_stats_all_equal(c->left, nl) && pg_stats_all_equal(c->right, nr))
        return 0;   /* exact counts: the shift alone decides */
    pg_mwu u;
    int rc = pg_stats_mannwhitney(&u, c->left, nl, c->right, nr);
    return rc < 0 ? rc : u.p;
}

/* An exact series' change points: its steps that compare calls a regression
 * or an improvement (past the threshold and, for a count that does not
 * repeat, past its spread), every one of them and no other. Binary
 * segmentation would miss a step at either end (its pieces are at least two
 * points long), and a rank test of a few near-equal counts a side never
 * reaches significance. */
static int exact_changes(pg_hist_series *s)
{
    size_t n = 0;
    for (size_t i = 1; i < s->np; i++)
        n += s->p[i].step == PG_VERDICT_REGRESSED || s->p[i].step == PG_VERDICT_IMPROVED;
    if (n && !(s->cp = calloc(n, sizeof *s->cp)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 1; i < s->np; i++)
        if (s->p[i].step == PG_VERDICT_REGRESSED || s->p[i].step == PG_VERDICT_IMPROVED)
            s->cp[s->ncp++] = (pg_hist_change){.at = i, .kind = PG_HIST_CP_STEP, .q = 0};
    return 0;
}

/* Candidate change points of the points' medians, each judged on its raw samples. */
static int find_changes(pg_hist_series *s, const pg_side *const *side_of)
{
    if (s->exact)
        return exact_changes(s);
    size_t total = 0;
    for (size_t i = 0; i < s->np; i++)
        total += s->p[i].n;
    double *x = malloc((s->np ? s->np : 1) * sizeof *x), *p = malloc((s->np ? s->np : 1) * sizeof *p);
    double *left = malloc((total ? total : 1) * sizeof *left), *right = malloc((total ? total : 1) * sizeof *right);
    size_t *at = malloc((s->np ? s->np : 1) * sizeof *at);
    long n = 0;
    if (!x || !p || !at || !left || !right) {
        n = pg_error_set(PG_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < s->np; i++)
        x[i] = s->p[i].median;
    split_ctx sc = {.s = s, .side_of = side_of, .left = left, .right = right};
    pg_hist_cp_opts o = {.min_rel = s->threshold / 100, .min_seg = 2, .test = split_test, .ctx = &sc, .alpha = 0.05};
    n = pg_hist_changepoints(at, p, s->np, x, s->np, &o);
    if (n > 0 && !(s->cp = calloc((size_t)n, sizeof *s->cp)))
        n = pg_error_set(PG_ENOMEM, "out of memory");
    for (long j = 0; j < n; j++)
        s->cp[s->ncp++] = (pg_hist_change){.at = at[j], .q = p[j]};
out:
    free(x), free(p), free(at), free(left), free(right);
    return n < 0 ? (int)n : 0;
}

/* Across every series: Benjamini-Hochberg over the change points' p-values
 * (each already corrected for its candidate splits); those that do not hold
 * at 5% go. Exact counts' (0) always hold. */
static int correct_changes(pg_history *h)
{
    size_t total = 0;
    for (size_t i = 0; i < h->ns; i++)
        total += h->s[i].ncp;
    double *q = malloc((total ? total : 1) * sizeof *q);
    if (!q)
        return pg_error_set(PG_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < h->ns; i++)
        for (size_t j = 0; j < h->s[i].ncp; j++)
            q[k++] = h->s[i].cp[j].q;
    int rc = pg_stats_bh(q, q, total);
    k = 0;
    for (size_t i = 0; rc == 0 && i < h->ns; i++) {
        pg_hist_series *s = &h->s[i];
        size_t kept = 0;
        for (size_t j = 0; j < s->ncp; j++, k++)
            if (q[k] < 0.05) {
                s->cp[kept] = s->cp[j];
                s->cp[kept++].q = q[k];
            }
        s->ncp = kept;
    }
    free(q);
    return rc;
}

/* The mean of the medians of points [lo, hi) (lo < hi), each divided
 * before it is added: counts near DBL_MAX do not sum to infinity. */
static double mean_median(const pg_hist_series *s, size_t lo, size_t hi)
{
    double m = 0;
    for (size_t i = lo; i < hi; i++)
        m += s->p[i].median / (double)(hi - lo);
    return m;
}

/* Each kept change point's levels and samples either side: to its
 * neighbours, or for an exact step the two commits compare judged (a count
 * that flips between two paths can step at one commit and stay put around
 * it: the stretches' means would hide the step). */
static void describe_changes(pg_hist_series *s)
{
    for (size_t j = 0; j < s->ncp; j++) {
        size_t lo = j ? s->cp[j - 1].at : 0, mid = s->cp[j].at, hi = j + 1 < s->ncp ? s->cp[j + 1].at : s->np;
        if (s->cp[j].kind == PG_HIST_CP_STEP)
            lo = mid - 1, hi = mid + 1;
        size_t nb = 0, na = 0;
        for (size_t i = lo; i < mid; i++)
            nb += s->p[i].n;
        for (size_t i = mid; i < hi; i++)
            na += s->p[i].n;
        pg_hist_change *c = &s->cp[j];
        c->before = mean_median(s, lo, mid), c->after = mean_median(s, mid, hi), c->n_before = nb, c->n_after = na;
        c->delta = c->after - c->before;
        if (!isfinite(c->delta))    /* levels of opposite signs near DBL_MAX */
            c->delta = c->after / 2 - c->before / 2 > 0 ? DBL_MAX : -DBL_MAX;
        c->pct = rel_pct(c->before, c->after);
    }
}

/* The level of point i: the mean of the medians of its stretch between change points. */
static double level_of(const pg_hist_series *s, size_t i)
{
    size_t lo = 0, hi = s->np;
    for (size_t j = 0; j < s->ncp; j++) {
        if (s->cp[j].at <= i)
            lo = s->cp[j].at;
        else if (s->cp[j].at < hi)
            hi = s->cp[j].at;
    }
    return mean_median(s, lo, hi);
}

static int flag(pg_hist_series *s, const pg_side *const *side_of_point)
{
    /* noisy */
    double *rel = malloc((s->np ? s->np : 1) * sizeof *rel);
    if (!rel)
        return pg_error_set(PG_ENOMEM, "out of memory");
    size_t nrel = 0;
    for (size_t i = 0; i < s->np; i++)
        if (s->p[i].n >= 3 && s->p[i].median != 0)
            rel[nrel++] = 100 * ((s->p[i].q3 - s->p[i].q1) / fabs(s->p[i].median));
    s->spread_pct = nrel ? pg_stats_median(rel, nrel) : 0;
    if (!isfinite(s->spread_pct))   /* quartiles near DBL_MAX apart */
        s->spread_pct = DBL_MAX;
    free(rel);
    if (nrel && s->spread_pct > s->threshold)
        s->flags |= PG_HIST_NOISY;
    /* flaky: a step undone by the next one */
    for (size_t i = 1; i + 1 < s->np; i++) {
        const pg_hist_point *a = &s->p[i], *b = &s->p[i + 1];
        int opposite = (a->step == PG_VERDICT_REGRESSED && b->step == PG_VERDICT_IMPROVED) ||
                       (a->step == PG_VERDICT_IMPROVED && b->step == PG_VERDICT_REGRESSED);
        /* undone: the level after both steps is nearer the start than the middle one */
        if (opposite && fabs(b->median - s->p[i - 1].median) < fabs(a->median - s->p[i - 1].median) / 2)
            s->flips++;
    }
    if (s->flips >= 2)
        s->flags |= PG_HIST_FLAKY;
    /* bimodal: every sample over its stretch's level */
    size_t total = 0;
    for (size_t i = 0; i < s->np; i++)
        total += s->p[i].n;
    double *v = malloc((total ? total : 1) * sizeof *v);
    if (!v)
        return pg_error_set(PG_ENOMEM, "out of memory");
    size_t nv = 0;
    double typical = 0;     /* the mean level over the samples: the groups back in the metric's unit */
    for (size_t i = 0; i < s->np; i++) {
        double level = level_of(s, i);
        const pg_series *m = point_series(s, side_of_point, i);
        /* the point was made of this series: never more samples than it counted */
        for (size_t k = 0; m && level != 0 && isfinite(level) && k < m->n && k < s->p[i].n; k++)
            if (isfinite(m->v[k] / level))
                v[nv++] = m->v[k] / level, typical += level / (double)total;
    }
    typical *= nv ? (double)total / (double)nv : 0;
    pg_hist_modes modes;
    int rc = pg_hist_bimodal(&modes, v, nv, s->threshold / 100);
    free(v);
    if (rc < 0)
        return rc;
    if (rc) {
        s->flags |= PG_HIST_BIMODAL;
        s->mode_gap_pct = fmin(100 * modes.gap_rel, DBL_MAX), s->mode_share = modes.share_low;
        s->mode_low = modes.low * typical, s->mode_high = modes.high * typical;
        if (!isfinite(s->mode_low) || !isfinite(s->mode_high))
            s->mode_low = modes.low, s->mode_high = modes.high;   /* the levels' scale, near DBL_MAX */
    }
    return 0;
}

/* The side of each point of `s` (sides are in commit order, like the
 * points), and the load it was measured under (NAN: not known) when `load`. */
static void sides_of(const pg_history *h, const pg_hist_series *s, const pg_side **side_of, double *load)
{
    for (size_t p = 0, e = 0; p < s->np; p++) {
        while (e < h->nsides && (h->sides[e].lane != s->lane || h->sides[e].commit < s->p[p].commit))
            e++;
        int at = e < h->nsides && h->sides[e].commit == s->p[p].commit;
        side_of[p] = at ? h->sides[e].side : NULL;
        if (load)
            load[p] = at ? h->sides[e].load : NAN;
    }
}

/* The median of the known loads of points [lo, hi); NAN when none is known. */
static double stretch_load(double *tmp, const double *load, size_t lo, size_t hi)
{
    size_t n = 0;
    for (size_t i = lo; i < hi; i++)
        if (!isnan(load[i]))
            tmp[n++] = load[i];
    return n ? pg_stats_median(tmp, n) : NAN;
}

/* Two load averages different enough to move a time: at least half a core
 * (session.c records a load from 0.5 on) and a quarter of the larger apart. */
static int loads_differ(double a, double b)
{
    double d = fabs(a - b);
    return !isnan(d) && d >= 0.5 && d >= 0.25 * fmax(a, b);
}

/* Whether an exact series of s's benchmark, in its lane, has a change point
 * at `commit`; *any: whether it has an exact series at all. */
static int exact_shares(const pg_history *h, const pg_hist_series *s, size_t commit, int *any)
{
    *any = 0;
    for (size_t i = 0; i < h->ns; i++) {
        const pg_hist_series *e = &h->s[i];
        if (!e->exact || e->lane != s->lane || strcmp(e->bench, s->bench))
            continue;
        *any = 1;
        for (size_t j = 0; j < e->ncp; j++)
            if (e->p[e->cp[j].at].commit == commit)
                return 1;
    }
    return 0;
}

/* The change points of a noisy series that its benchmark's exact counts
 * do not share, between stretches measured under different load, rank
 * lower (PG_HIST_CP_LOAD): a time that moved with the machine's load. */
static int rank_changes(pg_history *h, pg_hist_series *s, const pg_side **side_of, double *load)
{
    if (s->exact || !s->ncp)
        return 0;
    double *tmp = malloc(s->np * sizeof *tmp);
    if (!tmp)
        return pg_error_set(PG_ENOMEM, "out of memory");
    sides_of(h, s, side_of, load);
    for (size_t j = 0; j < s->ncp; j++) {
        pg_hist_change *c = &s->cp[j];
        size_t lo = j ? s->cp[j - 1].at : 0, hi = j + 1 < s->ncp ? s->cp[j + 1].at : s->np;
        int any;
        if (exact_shares(h, s, s->p[c->at].commit, &any) || !any)
            continue;
        c->load_before = stretch_load(tmp, load, lo, c->at), c->load_after = stretch_load(tmp, load, c->at, hi);
        if (loads_differ(c->load_before, c->load_after))
            c->kind = PG_HIST_CP_LOAD;
    }
    free(tmp);
    return 0;
}

/* Each series' chunk of the page's data: one per benchmark and metric, the
 * lanes of one chart together. */
static int assign_chunks(pg_history *h)
{
    pg_strindex idx = {0};
    char **keys = calloc(h->ns ? h->ns : 1, sizeof *keys);
    int rc = keys ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    h->nchunks = h->npoints = h->nmeasured = 0;
    for (size_t e = 0; e < h->nsides; e++)     /* sides are in commit order */
        h->nmeasured += !e || h->sides[e].commit != h->sides[e - 1].commit;
    for (size_t i = 0; rc == 0 && i < h->ns; i++) {
        pg_hist_series *s = &h->s[i];
        size_t len = strlen(s->bench) + strlen(s->metric) + 48, at;
        h->npoints += s->np;
        if (!(keys[i] = malloc(len))) {
            rc = pg_error_set(PG_ENOMEM, "out of memory");
            break;
        }
        snprintf(keys[i], len, "%zu:%s%zu:%s", strlen(s->bench), s->bench, strlen(s->metric), s->metric);
        if (pg_strindex_get(&idx, keys[i], &at))
            s->chunk = at;
        else if (pg_strindex_put(&idx, keys[i], h->nchunks) < 0)
            rc = pg_error_set(PG_ENOMEM, "out of memory");
        else
            s->chunk = h->nchunks++;
    }
    pg_strindex_free(&idx);
    for (size_t i = 0; keys && i < h->ns; i++)
        free(keys[i]);
    free(keys);
    return rc;
}

int pg_history_analyze(pg_history *h, const pg_thresholds *cli)
{
    int rc = build_series(h, cli);
    size_t most = 1;
    for (size_t i = 0; i < h->ns; i++)
        most = h->s[i].np > most ? h->s[i].np : most;
    const pg_side **side_of = rc == 0 ? calloc(most, sizeof *side_of) : NULL;
    double *load = rc == 0 ? calloc(most, sizeof *load) : NULL;
    if (rc == 0 && (!side_of || !load))
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    /* Candidates per series, then one correction across all of them, then
     * the flags, which read the levels between the change points kept. */
    for (size_t i = 0; rc == 0 && i < h->ns; i++) {
        sides_of(h, &h->s[i], side_of, NULL);
        rc = find_changes(&h->s[i], side_of);
    }
    if (rc == 0)
        rc = correct_changes(h);
    for (size_t i = 0; rc == 0 && i < h->ns; i++) {
        describe_changes(&h->s[i]);
        sides_of(h, &h->s[i], side_of, NULL);
        rc = flag(&h->s[i], side_of);
    }
    /* after every series' change points are known: the exact ones are compared against */
    for (size_t i = 0; rc == 0 && i < h->ns; i++)
        rc = rank_changes(h, &h->s[i], side_of, load);
    if (rc == 0)
        rc = assign_chunks(h);
    free(side_of);
    free(load);
    return rc;
}

void pg_history_free(pg_history *h)
{
    for (size_t i = 0; i < h->ncommits; i++)
        free(h->commits[i].subject);
    for (size_t i = 0; i < h->nsides; i++) {
        pg_side_free(h->sides[i].side);
        free(h->sides[i].side);
    }
    for (size_t i = 0; i < h->ns; i++) {
        for (size_t k = 0; k < h->s[i].np; k++)
            free(h->s[i].p[k].flamegraph), free(h->s[i].p[k].diff_flamegraph);
        free(h->s[i].p);
        free(h->s[i].cp);
        free(h->s[i].key);
    }
    pg_strindex_free(&h->index);
    free(h->commits), free(h->lanes), free(h->sides), free(h->s);
    memset(h, 0, sizeof *h);
}
