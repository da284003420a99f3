/* What a history says: change points (steps found where they are, noise and
 * spikes not taken for them, a creep split a few times only), the two-mode
 * test (two groups found; one normal, one uniform distribution not), and the
 * history model end to end on hand-made sides: steps judged as compare
 * judges them, a flip-flopping benchmark flagged flaky. */
#include "report/histstats.h"
#include "report/history.h"
#include "util/error.h"
#include "tests/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A reproducible normal deviate (Box-Muller on a fixed LCG). */
static double gauss(unsigned long *s)
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    double u1 = ((*s >> 11) + 1.0) / 9007199254740993.0;
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    double u2 = (*s >> 11) / 9007199254740992.0;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static void test_quantile(void)
{
    double v[] = {4, 1, 3, 2};
    CHECK_NEAR(pg_hist_quantile(v, 4, 0.25), 1.75, 1e-12);   /* numpy.quantile([1,2,3,4], .25) */
    CHECK_NEAR(pg_hist_quantile(v, 4, 0.75), 3.25, 1e-12);
    CHECK_NEAR(pg_hist_quantile(v, 4, 0.5), 2.5, 1e-12);
    CHECK_NEAR(v[0], 4, 0);
    CHECK(isnan(pg_hist_quantile(v, 0, 0.5)));
}

/* Change points judged by the standard errors (no raw samples at hand). */
static size_t cps(size_t *at, const double *x, size_t n, double min_rel)
{
    pg_hist_cp_opts o = {.min_rel = min_rel, .min_z = 5, .min_seg = 2};
    long got = pg_hist_changepoints(at, NULL, 64, x, n, &o);
    return got < 0 ? 999 : (size_t)got;
}

static void test_changepoints(void)
{
    size_t at[64];
    /* Exact counts: one 3% step at 6, one -2% at 14. */
    double x[20];
    for (int i = 0; i < 20; i++)
        x[i] = i < 6 ? 1000000 : i < 14 ? 1030000 : 1009400;
    size_t n = cps(at, x, 20, 0.001);
    CHECK_EQ_INT((int)n, 2);
    CHECK_EQ_INT((int)at[0], 6);
    CHECK_EQ_INT((int)at[1], 14);
    /* A step under the threshold is none. */
    for (int i = 0; i < 20; i++)
        x[i] = i < 10 ? 1000000 : 1000500;
    CHECK_EQ_INT((int)cps(at, x, 20, 0.001), 0);
    /* A single spike is no change of level (segments are at least 2 long, and
     * the spike's piece has a spread). */
    for (int i = 0; i < 20; i++)
        x[i] = i == 9 ? 1100000 : 1000000;
    CHECK_EQ_INT((int)cps(at, x, 20, 0.001), 0);
    /* Noise of 2% with no change: none; a 10% step in that noise: found. */
    unsigned long seed = 7;
    double y[60];
    for (int i = 0; i < 60; i++)
        y[i] = 100 * (1 + 0.02 * gauss(&seed));
    CHECK_EQ_INT((int)cps(at, y, 60, 0.05), 0);
    for (int i = 30; i < 60; i++)
        y[i] *= 1.10;
    n = cps(at, y, 60, 0.05);
    CHECK_EQ_INT((int)n, 1);
    CHECK(n == 1 && at[0] >= 29 && at[0] <= 31);
    /* A creep of 0.05% a commit over 200 commits passes the 0.1% threshold
     * many times over, but its pieces have a spread of their own: split a
     * number of times far below the 200 steps, all upwards. */
    double c[200];
    for (int i = 0; i < 200; i++)
        c[i] = 1e7 * (1 + 0.0005 * i);
    n = cps(at, c, 200, 0.001);
    CHECK(n >= 2 && n <= 40);
    for (size_t i = 1; i < n; i++)
        CHECK(at[i] > at[i - 1]);
}

static void test_bimodal(void)
{
    unsigned long seed = 11;
    double v[200];
    pg_hist_modes m;
    /* Two groups 8% apart, each with 0.5% noise, 30% in the lower. */
    for (int i = 0; i < 200; i++)
        v[i] = (i % 10 < 3 ? 1.0 : 1.08) * (1 + 0.005 * gauss(&seed));
    CHECK_EQ_INT(pg_hist_bimodal(&m, v, 200, 0.01), 1);
    CHECK_NEAR(m.gap_rel, 0.08, 0.005);
    CHECK_NEAR(m.share_low, 0.30, 0.02);
    CHECK_NEAR(m.low, 1.0, 0.005);
    CHECK_NEAR(m.high, 1.08, 0.005);
    /* ... but not when the groups are closer than min_rel. */
    CHECK_EQ_INT(pg_hist_bimodal(&m, v, 200, 0.10), 0);
    /* One normal distribution: no. */
    for (int i = 0; i < 200; i++)
        v[i] = 1 + 0.05 * gauss(&seed);
    CHECK_EQ_INT(pg_hist_bimodal(&m, v, 200, 0.001), 0);
    /* A uniform one: no. */
    for (int i = 0; i < 200; i++)
        v[i] = 1 + 0.001 * i;
    CHECK_EQ_INT(pg_hist_bimodal(&m, v, 200, 0.001), 0);
    /* Exact counts all equal but one: not two groups (10% each at least). */
    for (int i = 0; i < 200; i++)
        v[i] = i ? 1.0 : 1.2;
    CHECK_EQ_INT(pg_hist_bimodal(&m, v, 200, 0.001), 0);
    /* Too few values to say. */
    CHECK_EQ_INT(pg_hist_bimodal(&m, v, 19, 0.001), 0);
    /* A group at 0 (0, 1 or 2 context switches): a gap in the values' unit
     * and one relative to their mean, never an infinite one. */
    for (int i = 0; i < 200; i++)
        v[i] = i % 10 < 4 ? 0 : 2 + 0.2 * (i % 2);
    CHECK_EQ_INT(pg_hist_bimodal(&m, v, 200, 0.5), 1);
    CHECK_NEAR(m.low, 0, 0);
    CHECK_NEAR(m.high, 2.1, 1e-12);
    CHECK_NEAR(m.share_low, 0.4, 1e-12);
    CHECK(isfinite(m.gap_rel));
    CHECK_NEAR(m.gap_rel, 2.1 / 1.26, 1e-9);          /* the gap over the mean of all */
    /* Values near the largest double: whatever it says, no infinity. */
    for (int i = 0; i < 200; i++)
        v[i] = i % 2 ? 1.7e308 : 0.5e308;
    int r = pg_hist_bimodal(&m, v, 200, 0.5);
    CHECK(r == 0 || (r == 1 && isfinite(m.gap_rel) && isfinite(m.low) && isfinite(m.high)));
}

/* A side of one benchmark "b" whose `metric` (measured by `backend`) has
 * the samples v[0..n). */
static pg_side *series_side(const char *backend, const char *metric, const char *unit, const double *v, size_t n)
{
    pg_side *s = calloc(1, sizeof *s);
    strcpy(s->machine_id, "m1");
    strcpy(s->backend, backend);
    s->b = calloc(1, sizeof *s->b);
    s->nb = s->cap = 1;
    s->b[0].name = strdup("b");
    s->b[0].m = calloc(1, sizeof *s->b[0].m);
    s->b[0].nm = 1;
    pg_series *m = &s->b[0].m[0];
    m->metric = strdup(metric), m->unit = strdup(unit), m->backend = strdup(backend);
    m->source = strdup(backend);
    m->exact = !strcmp(backend, "valgrind") && !strcmp(unit, "count");
    m->simulated = !strcmp(backend, "valgrind");
    for (size_t i = 0; i < n; i++)
        pg_series_push(m, v[i]);
    return s;
}

/* `n` instruction samples of value `v` (the valgrind backend: exact counts,
 * judged by the threshold alone). */
static pg_side *side_of(double v, size_t n)
{
    double vs[64];
    for (size_t i = 0; i < n && i < 64; i++)
        vs[i] = v;
    return series_side("valgrind", "instructions", "count", vs, n < 64 ? n : 64);
}

static void test_history(void)
{
    /* 8 commits; the second has no results; the 5th regresses by 1% and the
     * 6th undoes it, twice over: three verdicts undone, flaky. */
    double level[] = {1000, 0, 1000, 1000, 1010, 1000, 1010, 1000};
    pg_history h = {0};
    for (int i = 0; i < 8; i++) {
        char id[41];
        snprintf(id, sizeof id, "%040d", i);
        CHECK_EQ_INT(pg_history_add_commit(&h, id, "subject", 1700000000 + i), 0);
        if (level[i])
            CHECK_EQ_INT(pg_history_add_side(&h, side_of(level[i] * 1000, 3)), 0);
    }
    CHECK_EQ_INT(pg_history_analyze(&h, NULL), 0);
    CHECK_EQ_INT((int)h.nlanes, 1);
    CHECK_EQ_INT((int)h.ns, 1);
    const pg_hist_series *s = &h.s[0];
    CHECK_STR(s->bench, "b");
    CHECK_EQ_INT((int)s->np, 7);
    CHECK_EQ_INT((int)s->p[1].commit, 2);           /* commit 1 has no point */
    CHECK_EQ_INT(s->p[0].step, PG_VERDICT_UNCHANGED);
    CHECK(isnan(s->p[0].step_pct));
    CHECK_EQ_INT(s->p[3].step, PG_VERDICT_REGRESSED);  /* commit 4 */
    CHECK_NEAR(s->p[3].step_pct, 1.0, 1e-9);
    CHECK_NEAR(s->p[3].step_threshold, 0.1, 1e-12);    /* the instructions default */
    CHECK_EQ_INT(s->p[4].step, PG_VERDICT_IMPROVED);
    CHECK_EQ_INT((int)s->flips, 3);                    /* up-down, down-up, up-down */
    CHECK(s->flags & PG_HIST_FLAKY);
    CHECK(!(s->flags & PG_HIST_NOISY));                /* exact counts: no spread */
    /* exact counts: every step past the threshold is a change point, also
     * one undone by the next commit (the code it runs changed twice) */
    CHECK_EQ_INT((int)s->ncp, 4);
    CHECK_EQ_INT((int)s->cp[0].at, 3);
    CHECK_EQ_INT(s->cp[0].kind, PG_HIST_CP_STEP);
    CHECK_NEAR(s->cp[0].pct, 1.0, 1e-9);
    CHECK_NEAR(s->cp[1].pct, 100.0 * (1000 - 1010) / 1010, 1e-9);
    pg_history_free(&h);
}

/* One commit holding task-clock from two backends with different sample
 * counts (a valgrind run's own beside its native runs': what a fetched note
 * can hold). They are two series, and the bimodal check reads each one's
 * samples only: it once copied the other's, past the end of its buffer. */
static void test_two_backends(void)
{
    pg_history h = {0};
    for (int i = 0; i < 4; i++) {
        char id[41];
        snprintf(id, sizeof id, "%040d", i);
        CHECK_EQ_INT(pg_history_add_commit(&h, id, "subject", 1700000000 + i), 0);
        pg_side *side = side_of(1000, 1);
        pg_bench_result *b = &side->b[0];
        b->m = realloc(b->m, 3 * sizeof *b->m);
        memset(&b->m[1], 0, 2 * sizeof *b->m);
        b->nm = 3;
        const char *backend[] = {"valgrind", "perf"};
        size_t n[] = {1, 40};
        for (int k = 0; k < 2; k++) {
            pg_series *m = &b->m[1 + k];
            m->metric = strdup("task-clock"), m->unit = strdup("ns"), m->backend = strdup(backend[k]);
            m->source = strdup(backend[k]);
            for (size_t j = 0; j < n[k]; j++)
                pg_series_push(m, 1e6 * (1 + (double)(j % 2)));
        }
        CHECK_EQ_INT(pg_history_add_side(&h, side), 0);
    }
    CHECK_EQ_INT(pg_history_analyze(&h, NULL), 0);
    CHECK_EQ_INT((int)h.ns, 3);                        /* instructions, and task-clock twice */
    size_t found = 0;
    for (size_t i = 0; i < h.ns; i++) {
        if (strcmp(h.s[i].metric, "task-clock"))
            continue;
        found++;
        CHECK_EQ_INT((int)h.s[i].np, 4);               /* one point a commit, not two */
        CHECK_EQ_INT((int)h.s[i].p[0].n, strcmp(h.s[i].backend, "perf") ? 1 : 40);
    }
    CHECK_EQ_INT((int)found, 2);
    pg_history_free(&h);
}

/* task-clock samples v[0..n) (perf: noisy). */
static pg_side *noisy_side(const double *v, size_t n) { return series_side("perf", "task-clock", "ns", v, n); }

/* A deterministic two-mode benchmark (each run takes 100 or 110 us, exactly),
 * 3 samples a commit: the first 8 commits happen to run two fast and one
 * slow, the last 8 two slow and one fast. The medians step by 10% at commit
 * 8 with no spread on either side, which alone would be a change point;
 * the samples are the same two modes throughout, so: bimodal, and no change
 * point. */
static void test_two_modes(void)
{
    pg_history h = {0};
    for (int i = 0; i < 16; i++) {
        char id[41];
        snprintf(id, sizeof id, "%040d", i);
        CHECK_EQ_INT(pg_history_add_commit(&h, id, "subject", 1700000000 + i), 0);
        double fast = 100e3, slow = 110e3;
        double v[3] = {i < 8 ? fast : slow, i < 8 ? fast : slow, i < 8 ? slow : fast};
        CHECK_EQ_INT(pg_history_add_side(&h, noisy_side(v, 3)), 0);
    }
    CHECK_EQ_INT(pg_history_analyze(&h, NULL), 0);
    const pg_hist_series *s = &h.s[0];
    CHECK_EQ_INT((int)s->np, 16);
    CHECK_NEAR(s->p[7].median, 100e3, 0);
    CHECK_NEAR(s->p[8].median, 110e3, 0);
    CHECK_EQ_INT((int)s->ncp, 0);
    CHECK(s->flags & PG_HIST_BIMODAL);
    pg_history_free(&h);

    /* The same history with a real change: every sample of the last 8 commits
     * 10% slower. The split stands on 24 samples a side. */
    memset(&h, 0, sizeof h);
    for (int i = 0; i < 16; i++) {
        char id[41];
        snprintf(id, sizeof id, "%040d", i);
        CHECK_EQ_INT(pg_history_add_commit(&h, id, "subject", 1700000000 + i), 0);
        double k = i < 8 ? 1 : 1.1;
        double v[3] = {100e3 * k, 101e3 * k, 99e3 * k};
        CHECK_EQ_INT(pg_history_add_side(&h, noisy_side(v, 3)), 0);
    }
    CHECK_EQ_INT(pg_history_analyze(&h, NULL), 0);
    s = &h.s[0];
    CHECK_EQ_INT((int)s->ncp, 1);
    if (s->ncp == 1) {
        CHECK_EQ_INT((int)s->cp[0].at, 8);
        CHECK_EQ_INT((int)s->cp[0].n_before, 24);
        CHECK_EQ_INT((int)s->cp[0].n_after, 24);
        CHECK(s->cp[0].q > 0 && s->cp[0].q < 0.05);
        CHECK_NEAR(s->cp[0].pct, 10, 1e-9);
    }
    CHECK(!(s->flags & PG_HIST_BIMODAL));
    pg_history_free(&h);
}

/* One commit measured by a valgrind run (exact instructions, `ins`
 * counts of one run each, one value) with native task-clock samples `tc`,
 * under load average `load`. */
static void add_commit(pg_history *h, int i, const double *ins, size_t nins, const double *tc, size_t ntc, double load)
{
    char id[41];
    snprintf(id, sizeof id, "%040d", i);
    CHECK_EQ_INT(pg_history_add_commit(h, id, "subject", 1700000000 + i), 0);
    pg_side *side = series_side("valgrind", "instructions", "count", ins, 0);
    pg_bench_result *b = &side->b[0];
    for (size_t k = 0; k < nins; k++)     /* one run each, as runs of a count that does not repeat are pooled */
        CHECK_EQ_INT(pg_series_add_run(&b->m[0], &ins[k], 1, "run"), 0);
    b->m = realloc(b->m, 2 * sizeof *b->m);
    memset(&b->m[1], 0, sizeof b->m[1]);
    b->nm = 2;
    pg_series *m = &b->m[1];
    m->metric = strdup("task-clock"), m->unit = strdup("ns"), m->backend = strdup("valgrind");
    m->source = strdup("os");
    for (size_t k = 0; k < ntc; k++)
        pg_series_push(m, tc[k]);
    CHECK_EQ_INT(pg_history_add_side(h, side), 0);
    pg_history_set_load(h, "m1", load);
}

static const pg_hist_series *find(const pg_history *h, const char *metric)
{
    for (size_t i = 0; i < h->ns; i++)
        if (!strcmp(h->s[i].metric, metric))
            return &h->s[i];
    return NULL;
}

/* libdeflate's case: 8 commits measured once each with native runs; the
 * newest makes decompression 16% fewer instructions, whose counts do not
 * repeat (2-9 instructions in 38.9 million, 2 runs a commit). The step is
 * exactly one change point, at its commit (binary segmentation cannot split
 * off the last point, and a rank test of 2 counts a side is never
 * significant); it is an improvement too. The native task-clock of the
 * same commits moves with the machine's load at commit 4 (load 0.2 before,
 * 3 after) where the counts do not: a change point of lower rank. */
static void test_exact_steps(void)
{
    pg_history h = {0};
    for (int i = 0; i < 8; i++) {
        double base = i == 7 ? 38.9e6 * 0.8365 : 38.9e6, ins[2] = {base + 2 + i % 3, base + 9};
        double tc[5], k = i >= 4 ? 1.3 : 1;
        for (int j = 0; j < 5; j++)
            tc[j] = 20e6 * k * (1 + 0.001 * j);
        add_commit(&h, i, ins, 2, tc, 5, i >= 4 ? 3.0 : 0.2);
    }
    CHECK_EQ_INT(pg_history_analyze(&h, NULL), 0);
    const pg_hist_series *s = find(&h, "instructions"), *t = find(&h, "task-clock");
    CHECK(s && t);
    if (!s || !t)
        return;
    CHECK(s->exact);
    CHECK_NEAR(s->floor, 7, 0);
    CHECK_EQ_INT((int)s->ncp, 1);
    CHECK(s->ncp == 1 && s->cp[0].at == 7 && s->cp[0].kind == PG_HIST_CP_STEP);
    CHECK(s->ncp == 1 && fabs(s->cp[0].pct - -16.35) < 0.01);
    CHECK_EQ_INT(s->p[7].step, PG_VERDICT_IMPROVED);
    for (int i = 1; i < 7; i++)
        CHECK_EQ_INT(s->p[i].step, PG_VERDICT_UNCHANGED);
    CHECK(!t->exact);
    CHECK_EQ_INT((int)t->ncp, 1);
    if (t->ncp == 1) {
        CHECK_EQ_INT((int)t->cp[0].at, 4);
        CHECK_EQ_INT(t->cp[0].kind, PG_HIST_CP_LOAD);
        CHECK_NEAR(t->cp[0].load_before, 0.2, 1e-12);
        CHECK_NEAR(t->cp[0].load_after, 3.0, 1e-12);
    }
    pg_history_free(&h);

    /* The same task-clock step under the same load: a change of the same
     * rank as any (the time moved, and the machine did not). */
    memset(&h, 0, sizeof h);
    for (int i = 0; i < 8; i++) {
        double ins[1] = {38.9e6}, tc[5], k = i >= 4 ? 1.3 : 1;
        for (int j = 0; j < 5; j++)
            tc[j] = 20e6 * k * (1 + 0.001 * j);
        add_commit(&h, i, ins, 1, tc, 5, 1.0);
    }
    CHECK_EQ_INT(pg_history_analyze(&h, NULL), 0);
    t = find(&h, "task-clock");
    CHECK(t && t->ncp == 1 && t->cp[0].kind == PG_HIST_CP_LEVEL);
    CHECK(find(&h, "instructions") && find(&h, "instructions")->ncp == 0);
    pg_history_free(&h);
}

/* An exact step's shift is the step's (the medians of its two commits),
 * not that of the stretches' means: a count can move under its threshold
 * on the way (0.05% here) and still step by 2.95% at one commit. */
static void test_step_shift(void)
{
    pg_history h = {0};
    double level[] = {1000000, 1000500, 1000500, 1030000, 1030000};
    for (int i = 0; i < 5; i++) {
        char id[41];
        snprintf(id, sizeof id, "%040d", i);
        CHECK_EQ_INT(pg_history_add_commit(&h, id, "subject", 1700000000 + i), 0);
        CHECK_EQ_INT(pg_history_add_side(&h, side_of(level[i], 1)), 0);
    }
    CHECK_EQ_INT(pg_history_analyze(&h, NULL), 0);
    const pg_hist_series *s = &h.s[0];
    CHECK_EQ_INT((int)s->ncp, 1);
    if (s->ncp == 1) {
        CHECK_EQ_INT((int)s->cp[0].at, 3);
        CHECK_NEAR(s->cp[0].before, 1000500, 0);
        CHECK_NEAR(s->cp[0].after, 1030000, 0);
        CHECK_NEAR(s->cp[0].pct, s->p[3].step_pct, 1e-9);
        CHECK_EQ_INT((int)s->cp[0].n_before, 1);
    }
    pg_history_free(&h);
}

/* Degenerate series: zeros, a single commit, a step from 0. Every figure the
 * page reads is finite, or NAN where documented (a percentage of 0). */
static void test_degenerate(void)
{
    pg_history h = {0};
    double zero[3] = {0, 0, 0};
    add_commit(&h, 0, zero, 1, zero, 3, 0);
    CHECK_EQ_INT(pg_history_analyze(&h, NULL), 0);
    CHECK_EQ_INT((int)h.ns, 2);
    CHECK_EQ_INT((int)h.nchunks, 2);
    CHECK_EQ_INT((int)h.nmeasured, 1);
    pg_history_free(&h);

    /* exact counts from 0 to 5: one change point, its shift in the unit */
    memset(&h, 0, sizeof h);
    for (int i = 0; i < 4; i++) {
        double ins[1] = {i < 2 ? 0 : 5}, tc[1] = {1e6};
        add_commit(&h, i, ins, 1, tc, 1, NAN);
    }
    CHECK_EQ_INT(pg_history_analyze(&h, NULL), 0);
    const pg_hist_series *s = find(&h, "instructions");
    CHECK(s && s->ncp == 1);
    if (s && s->ncp == 1) {
        CHECK(isnan(s->cp[0].pct));
        CHECK_NEAR(s->cp[0].delta, 5, 0);
        CHECK_NEAR(s->cp[0].before, 0, 0);
    }
    pg_history_free(&h);
}

int main(void)
{
    test_exact_steps();
    test_step_shift();
    test_degenerate();
    test_two_modes();
    test_two_backends();
    test_quantile();
    test_changepoints();
    test_bimodal();
    test_history();
    return pg_check_done();
}
