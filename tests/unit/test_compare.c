/* Verdicts: deterministic metrics by threshold alone, noisy ones by threshold
 * and Mann-Whitney U with Benjamini-Hochberg, too few samples, backends never
 * crossed, failures, new and vanished benchmarks, gates, overall verdict. */
#include "report/compare.h"
#include "report/render.h"
#include "tests/check.h"
#include "tests/unit/fixture_side.h"

#include <math.h>

static const char A_COMMIT[] = "1111111111111111111111111111111111111111";
static const char B_COMMIT[] = "2222222222222222222222222222222222222222";

static void test_deterministic(void)
{
    pg_side a, b;
    fx_side(&a, "HEAD~1", A_COMMIT, "m1", "valgrind");
    fx_side(&b, "HEAD", B_COMMIT, "m1", "valgrind");
    double base = 1000000, up3 = 1030000, down = 900000, tiny = 1000999;
    /* valgrind counts: one sample each side is enough. */
    fx_metric(fx_bench(&a, "grew"), "instructions", "count", "valgrind", &base, 1);
    fx_metric(fx_bench(&b, "grew"), "instructions", "count", "valgrind", &up3, 1);
    fx_metric(fx_bench(&a, "shrank"), "instructions", "count", "valgrind", &base, 1);
    fx_metric(fx_bench(&b, "shrank"), "instructions", "count", "valgrind", &down, 1);
    fx_metric(fx_bench(&a, "within"), "instructions", "count", "valgrind", &base, 1);
    fx_metric(fx_bench(&b, "within"), "instructions", "count", "valgrind", &tiny, 1);
    fx_bench(&a, "gone");
    fx_bench(&b, "fresh");

    pg_gates g = {0};
    pg_gates_parse(&g, "instructions");
    pg_comparison c;
    pg_compare_opts o = {.gates = &g};
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK_EQ_INT(c.nbench, 3);
    CHECK_STR(c.bench[0].name, "grew");
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_REGRESSED);
    const pg_metric_cmp *m = pg_bench_cmp_metric(&c.bench[0], "instructions");
    CHECK(m && m->deterministic && m->gating && !m->tested);
    CHECK_NEAR(m->delta_abs, 30000, 0);
    CHECK_NEAR(m->delta_pct, 3.0, 1e-12);
    CHECK_NEAR(m->threshold_pct, 0.1, 0);
    CHECK_EQ_INT(c.bench[1].verdict, PG_VERDICT_IMPROVED);
    CHECK_NEAR(c.bench[1].m[0].delta_pct, -10.0, 1e-12);
    CHECK_EQ_INT(c.bench[2].verdict, PG_VERDICT_UNCHANGED);     /* 0.0999% <= 0.1% */
    CHECK_EQ_INT(c.nadded, 1);
    CHECK_STR(c.added[0], "fresh");
    CHECK_EQ_INT(c.nvanished, 1);
    CHECK_STR(c.vanished[0], "gone");
    CHECK_EQ_INT(c.verdict, PG_VERDICT_REGRESSED);
    CHECK_EQ_INT(c.count[PG_VERDICT_REGRESSED], 1);
    CHECK_EQ_INT(c.count[PG_VERDICT_IMPROVED], 1);
    CHECK_EQ_INT(c.count[PG_VERDICT_UNCHANGED], 1);
    char counts[200];
    pg_render_counts(counts, sizeof counts, &c);
    CHECK_STR(counts, "1 regressed, 1 improved, 1 unchanged of 3 benchmarks compared; 1 new; 1 vanished");
    pg_comparison_free(&c);

    /* A CLI threshold loosens it: 3% is not beyond 5%. */
    pg_thresholds t = {0};
    pg_thresholds_add(&t, "instructions=5%");
    o.thresholds = &t;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_UNCHANGED);
    CHECK_EQ_INT(c.bench[0].m[0].threshold_source, PG_TH_CLI);
    CHECK_EQ_INT(c.verdict, PG_VERDICT_IMPROVED);
    pg_comparison_free(&c);
    /* The manifest's threshold is used when the CLI gives none. */
    pg_thresholds_set(&a.b[0].thresholds, "instructions", 4);
    pg_thresholds_set(&b.b[0].thresholds, "instructions", 4);
    o.thresholds = NULL;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_UNCHANGED);
    CHECK_EQ_INT(c.bench[0].m[0].threshold_source, PG_TH_MANIFEST);
    pg_comparison_free(&c);
    pg_thresholds_free(&t);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

/* Exact counts that do not repeat (a program printing its own timings):
 * decided against their spread, not refused. */
static void test_spread(void)
{
    pg_side a, b;
    fx_side(&a, "HEAD~1", A_COMMIT, "m1", "valgrind");
    fx_side(&b, "HEAD", B_COMMIT, "m1", "valgrind");
    double base[] = {1000000, 1000300, 1000150};       /* spread 300 (0.03%) */
    double within[] = {1000400};                        /* +250: no more than the spread */
    double near[] = {1000900};                          /* +750: 2.5 spreads */
    double far[] = {1020000};                           /* +2%: 66 spreads */
    double steady = 1000000, steady_up = 1000400;       /* repeats: the threshold alone decides */
    fx_metric(fx_bench(&a, "within"), "instructions", "count", "valgrind", base, 3);
    fx_metric(fx_bench(&b, "within"), "instructions", "count", "valgrind", within, 1);
    fx_metric(fx_bench(&a, "near"), "instructions", "count", "valgrind", base, 3);
    fx_metric(fx_bench(&b, "near"), "instructions", "count", "valgrind", near, 1);
    fx_metric(fx_bench(&a, "far"), "instructions", "count", "valgrind", base, 3);
    fx_metric(fx_bench(&b, "far"), "instructions", "count", "valgrind", far, 1);
    fx_metric(fx_bench(&a, "steady"), "instructions", "count", "valgrind", &steady, 1);
    fx_metric(fx_bench(&b, "steady"), "instructions", "count", "valgrind", &steady_up, 1);
    pg_gates g = {0};
    pg_gates_parse(&g, "instructions");
    pg_thresholds t = {0};
    pg_thresholds_add(&t, "instructions=0.02%");
    pg_compare_opts o = {.gates = &g, .thresholds = &t};
    pg_comparison c;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    const pg_metric_cmp *m = pg_bench_cmp_metric(&c.bench[0], "instructions");
    CHECK_NEAR(m->spread, 300, 0);
    CHECK_NEAR(m->delta_abs, 250, 0);
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_UNCHANGED);
    CHECK_CONTAINS(m->note, "within its spread: its counts vary by 300 between runs, the delta is 250");
    CHECK_EQ_INT(c.bench[1].verdict, PG_VERDICT_INCONCLUSIVE);
    CHECK_CONTAINS(pg_bench_cmp_metric(&c.bench[1], "instructions")->note, "does not repeat: its counts vary by 300");
    CHECK_EQ_INT(c.bench[2].verdict, PG_VERDICT_REGRESSED);
    CHECK_EQ_INT(c.bench[3].verdict, PG_VERDICT_REGRESSED);     /* +0.04% of a count that repeats */
    CHECK_NEAR(pg_bench_cmp_metric(&c.bench[3], "instructions")->spread, 0, 0);
    pg_comparison_free(&c);
    pg_thresholds_free(&t);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

static void test_noisy(void)
{
    pg_side a, b;
    fx_side(&a, "a.json", "", "m1", "perf");
    fx_side(&b, "b.json", "", "m1", "perf");
    double c0[] = {100, 101, 99, 100.5, 99.5}, c1[] = {110, 111, 109, 110.5, 109.5};   /* +10%, separated */
    double n0[] = {100, 130, 80, 120, 90}, n1[] = {110, 95, 140, 85, 125};              /* +10% median, noise */
    double s0[] = {100, 100}, s1[] = {120, 121};                                        /* too few */
    double i0[] = {50, 50, 50}, i1[] = {60, 60, 60};                                    /* identical repeats */
    fx_metric(fx_bench(&a, "clear"), "cycles", "count", "perf", c0, 5);
    fx_metric(fx_bench(&b, "clear"), "cycles", "count", "perf", c1, 5);
    fx_metric(fx_bench(&a, "noise"), "cycles", "count", "perf", n0, 5);
    fx_metric(fx_bench(&b, "noise"), "cycles", "count", "perf", n1, 5);
    fx_metric(fx_bench(&a, "few"), "cycles", "count", "perf", s0, 2);
    fx_metric(fx_bench(&b, "few"), "cycles", "count", "perf", s1, 2);
    fx_metric(fx_bench(&a, "same"), "cycles", "count", "perf", i0, 3);
    fx_metric(fx_bench(&b, "same"), "cycles", "count", "perf", i1, 3);
    double k0[] = {100, 101, 99, 100.5, 99.5}, k1[] = {100.2, 101.1, 99.3, 100.4, 99.6};  /* within 5% */
    fx_metric(fx_bench(&a, "calm"), "cycles", "count", "perf", k0, 5);
    fx_metric(fx_bench(&b, "calm"), "cycles", "count", "perf", k1, 5);
    /* A metric measured by another backend on one side is never compared. */
    fx_metric(&a.b[0], "instructions", "count", "perf", c0, 5);
    fx_metric(&b.b[0], "instructions", "count", "valgrind", c1, 5);

    pg_gates g = {0};
    pg_gates_parse(&g, "cycles");
    pg_comparison c;
    pg_compare_opts o = {.gates = &g};
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    const pg_metric_cmp *m = pg_bench_cmp_metric(&c.bench[0], "cycles");
    CHECK(m->tested && !m->deterministic);
    CHECK_NEAR(m->p, 2.0 / 252.0, 1e-12);
    /* BH over the 3 tested pairs (calm too, though within its threshold: the
     * correction counts every test): clear has the smallest p, q = p * 3 / 1. */
    CHECK_NEAR(m->q, 6.0 / 252.0, 1e-12);
    CHECK_EQ_INT(m->verdict, PG_VERDICT_REGRESSED);
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_REGRESSED);
    const pg_metric_cmp *x = pg_bench_cmp_metric(&c.bench[0], "instructions");
    CHECK(x && x->not_compared && !x->gating);
    CHECK_CONTAINS(x->note, "measured by perf in the baseline, by valgrind in the candidate");

    m = pg_bench_cmp_metric(&c.bench[1], "cycles");
    CHECK(m->tested && m->p > 0.05);
    CHECK_EQ_INT(m->verdict, PG_VERDICT_INCONCLUSIVE);
    CHECK_CONTAINS(m->note, "not significant");
    m = pg_bench_cmp_metric(&c.bench[2], "cycles");
    CHECK(!m->tested);
    CHECK_EQ_INT(m->verdict, PG_VERDICT_INCONCLUSIVE);
    CHECK_CONTAINS(m->note, "3 per side needed");
    m = pg_bench_cmp_metric(&c.bench[3], "cycles");
    CHECK(m->deterministic && !m->tested);
    CHECK_EQ_INT(m->verdict, PG_VERDICT_REGRESSED);
    m = pg_bench_cmp_metric(&c.bench[4], "cycles");
    CHECK(m->tested && !m->exceeds && !isnan(m->q));
    CHECK_EQ_INT(m->verdict, PG_VERDICT_UNCHANGED);
    CHECK_EQ_INT(c.verdict, PG_VERDICT_REGRESSED);
    pg_comparison_free(&c);

    /* Gating on instructions: perf vs valgrind is never decided -> inconclusive. */
    pg_gates_parse(&g, "instructions");
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_INCONCLUSIVE);
    CHECK_CONTAINS(c.bench[1].note, "gating metric instructions was measured on neither side");
    CHECK_EQ_INT(c.verdict, PG_VERDICT_INCONCLUSIVE);
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

static void test_failed_and_zero(void)
{
    pg_side a, b;
    fx_side(&a, "a", "", "m1", "valgrind");
    fx_side(&b, "b", "", "m2", "valgrind");
    double zero = 0, one = 5, base = 100;
    fx_metric(fx_bench(&a, "fromzero"), "instructions", "count", "valgrind", &zero, 1);
    fx_metric(fx_bench(&b, "fromzero"), "instructions", "count", "valgrind", &one, 1);
    fx_metric(fx_bench(&a, "crashed"), "instructions", "count", "valgrind", &base, 1);
    pg_bench_result *cr = fx_bench(&b, "crashed");
    cr->failed = 1;
    cr->failure = strdup("killed by signal 11 (SIGSEGV)");
    pg_gates g = {0};
    pg_gates_parse(&g, "instructions");
    pg_comparison c;
    pg_compare_opts o = {.gates = &g};
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK(c.cross_machine);
    CHECK(isnan(c.bench[0].m[0].delta_pct));
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_REGRESSED);     /* from zero: beyond any threshold */
    CHECK_EQ_INT(c.bench[1].verdict, PG_VERDICT_INCONCLUSIVE);
    CHECK_CONTAINS(c.bench[1].note, "failed in the candidate: killed by signal 11");
    CHECK_CONTAINS(c.bench[1].m[0].note, "not measured in the candidate");
    pg_comparison_free(&c);

    /* Nothing in common: inconclusive, never unchanged. */
    pg_side e;
    fx_side(&e, "e", "", "m1", "valgrind");
    CHECK_EQ_INT(pg_compare(&c, &a, &e, &o), 0);
    CHECK_EQ_INT(c.nbench, 0);
    CHECK_EQ_INT(c.nvanished, 2);
    CHECK_EQ_INT(c.verdict, PG_VERDICT_INCONCLUSIVE);
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
    pg_side_free(&e);
}

/* A failure reason as long as a hostile document makes it is cut in the
 * note, as it always was: the bench note stays under PG_NOTE_BENCH bytes. */
static void test_long_failure(void)
{
    pg_side a, b;
    fx_side(&a, "a", "", "m1", "valgrind");
    fx_side(&b, "b", "", "m1", "valgrind");
    char *reason = malloc(2001);
    memset(reason, 'x', 2000);
    reason[2000] = '\0';
    pg_bench_result *fa = fx_bench(&a, "long"), *fb = fx_bench(&b, "long");
    fa->failed = fb->failed = 1;
    fa->failure = reason;
    fb->failure = strdup("exit status 3");
    pg_gates g = {0};
    pg_gates_parse(&g, "instructions");
    pg_comparison c;
    pg_compare_opts o = {.gates = &g};
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_INCONCLUSIVE);
    const char *note = c.bench[0].note;
    CHECK(note && strlen(note) == PG_NOTE_BENCH - 1);
    CHECK(note && !strncmp(note, "gating metric instructions was measured on neither side; failed in the baseline: xxx", 84));
    CHECK(note && !strstr(note, "candidate"));      /* no room left for it */
    CHECK_EQ_INT(c.nmissing, 1);
    CHECK(c.nmissing == 1 && strlen(c.missing[0].reason) == sizeof c.missing[0].reason - 1);
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

/* A suite large enough that pg_compare tests its two halves on two threads:
 * each benchmark's verdict, order and delta are its own, the added and
 * vanished ones are found, and the noisy pairs of both halves share one
 * Benjamini-Hochberg pass. */
static void test_large_suite(void)
{
    pg_side a, b;
    fx_side(&a, "HEAD~1", A_COMMIT, "m1", "valgrind");
    fx_side(&b, "HEAD", B_COMMIT, "m1", "valgrind");
    enum { N = 1200 };
    char name[32];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "b%04d", i);
        double base = 1000000 + i, cand = base * (i % 7 == 0 ? 1.02 : 1.0);
        double ta[5], tb[5];
        for (int k = 0; k < 5; k++)
            ta[k] = 100 + k, tb[k] = (i == 1100 ? 200 : 100) + k;
        pg_bench_result *ba = fx_bench(&a, name), *bb = fx_bench(&b, name);
        fx_metric(ba, "instructions", "count", "valgrind", &base, 1);
        fx_metric(bb, "instructions", "count", "valgrind", &cand, 1);
        fx_metric(ba, "task-clock", "ns", "os", ta, 5);
        fx_metric(bb, "task-clock", "ns", "os", tb, 5);
    }
    fx_bench(&b, "fresh");
    fx_bench(&a, "gone");
    pg_gates g = {0};
    pg_gates_parse(&g, "instructions");
    pg_comparison c;
    pg_compare_opts o = {.gates = &g};
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK_EQ_INT(c.nbench, N);
    int wrong = 0;
    for (int i = 0; i < N && c.nbench == N; i++) {
        snprintf(name, sizeof name, "b%04d", i);
        const pg_metric_cmp *m = pg_bench_cmp_metric(&c.bench[i], "instructions");
        wrong += strcmp(c.bench[i].name, name) || !m || fabs(m->delta_abs - (i % 7 == 0 ? (1000000 + i) * 0.02 : 0)) > 1e-6 ||
                 c.bench[i].verdict != (i % 7 == 0 ? PG_VERDICT_REGRESSED : PG_VERDICT_UNCHANGED);
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(c.count[PG_VERDICT_REGRESSED], (N + 6) / 7);
    CHECK_EQ_INT(c.nadded, 1);
    CHECK_EQ_INT(c.nvanished, 1);
    /* task-clock doubled in one benchmark of the second half: tested with the rest. */
    const pg_metric_cmp *t = c.nbench == N ? pg_bench_cmp_metric(&c.bench[1100], "task-clock") : NULL;
    CHECK(t && t->tested && t->delta_pct > 90);
    /* Not gated: only the two on one side, in the candidate's order, then the vanished. */
    CHECK_EQ_INT(c.nmissing, 2);
    if (c.nmissing == 2) {
        CHECK_STR(c.missing[0].bench, "fresh");
        CHECK_STR(c.missing[0].reason, "not in the baseline");
        CHECK_STR(c.missing[1].bench, "gone");
        CHECK_STR(c.missing[1].reason, "not in the candidate");
    }
    CHECK(c.nbench == N && c.bench[1].note == NULL && c.bench[1].m[0].note == NULL);   /* nothing to say */
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

int main(void)
{
    test_deterministic();
    test_spread();
    test_large_suite();
    test_noisy();
    test_failed_and_zero();
    test_long_failure();
    return pg_check_done();
}
