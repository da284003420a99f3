/* Calibration and confirmation: the noise floor of A/A pairs, the threshold
 * it suggests, the calibrated threshold's place in the precedence, and the
 * decision of a second round on fixed samples (report/calib.h, confirm.h). */
#include "report/calib.h"
#include "report/compare.h"
#include "report/confirm.h"
#include "report/render.h"
#include "util/error.h"
#include "tests/check.h"
#include "tests/unit/fixture_side.h"

#include <stdlib.h>

static const char A_COMMIT[] = "1111111111111111111111111111111111111111";
static const char B_COMMIT[] = "2222222222222222222222222222222222222222";

static void test_floor(void)
{
    double pct = -1;
    /* pairs: +0.001%, -0.003% (the largest, whatever its sign), 0 */
    const double base[] = {100000, 100000, 5};
    const double cand[] = {100001, 99997, 5};
    CHECK_EQ_INT(pg_calib_floor(&pct, base, cand, 3), 0);
    CHECK_NEAR(pct, 0.003, 1e-12);
    /* a zero baseline: 0 -> 0 counts as no difference, 0 -> 3 has no percentage */
    const double zb[] = {0, 0, 200}, zc[] = {0, 3, 201};
    CHECK_EQ_INT(pg_calib_floor(&pct, zb, zc, 2), 0);
    CHECK_NEAR(pct, 0, 0);
    CHECK_EQ_INT(pg_calib_floor(&pct, zb, zc, 3), 0);
    CHECK_NEAR(pct, 0.5, 1e-12);
    CHECK_EQ_INT(pg_calib_floor(&pct, zb + 1, zc + 1, 1), PG_EINVAL);

    /* twice the floor, rounded up to 1, 2, 5 x 10^k, at least PG_CALIB_MIN_PCT */
    CHECK_NEAR(pg_calib_suggest(0), PG_CALIB_MIN_PCT, 0);
    CHECK_NEAR(pg_calib_suggest(0.0032), 0.01, 1e-15);
    CHECK_NEAR(pg_calib_suggest(0.028), 0.1, 1e-15);
    CHECK_NEAR(pg_calib_suggest(0.0103), 0.05, 1e-15);
    CHECK_NEAR(pg_calib_suggest(0.1), 0.2, 1e-15);      /* exactly 1 x 10^k stays */
    CHECK_NEAR(pg_calib_suggest(0.25), 0.5, 1e-15);
    CHECK_NEAR(pg_calib_suggest(0.3), 1, 1e-15);
    CHECK_NEAR(pg_calib_suggest(7), 20, 1e-12);
    CHECK_NEAR(pg_calib_suggest(30), 100, 1e-12);
}

/* The calibrated threshold wins over the default only; a floor is reported
 * whatever the threshold's source. */
static void test_precedence(void)
{
    pg_side a, b;
    fx_side(&a, "A", A_COMMIT, "m1", "valgrind");
    fx_side(&b, "B", B_COMMIT, "m1", "valgrind");
    double base = 1000000, up = 1000300;   /* +0.03% */
    fx_metric(fx_bench(&a, "x"), "instructions", "count", "valgrind", &base, 1);
    fx_metric(fx_bench(&b, "x"), "instructions", "count", "valgrind", &up, 1);
    fx_metric(fx_bench(&a, "y"), "instructions", "count", "valgrind", &base, 1);
    fx_metric(fx_bench(&b, "y"), "instructions", "count", "valgrind", &up, 1);
    pg_gates g = {0};
    pg_gates_parse(&g, "instructions");
    pg_floors f = {0};
    CHECK_EQ_INT(pg_floors_set(&f, "x", "instructions", 0.004, 0.01), 0);
    CHECK_EQ_INT(pg_floors_set(&f, "x", "instructions", 0.005, 0.02), 0);   /* replaces */
    CHECK_EQ_INT(f.n, 1);

    pg_comparison c;
    pg_compare_opts o = {.gates = &g, .floors = &f};
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    const pg_metric_cmp *x = pg_bench_cmp_metric(&c.bench[0], "instructions");
    const pg_metric_cmp *y = pg_bench_cmp_metric(&c.bench[1], "instructions");
    CHECK_EQ_INT(x->threshold_source, PG_TH_CALIBRATED);
    CHECK_NEAR(x->threshold_pct, 0.02, 0);
    CHECK_NEAR(x->floor_pct, 0.005, 0);
    CHECK_EQ_INT(x->verdict, PG_VERDICT_REGRESSED);     /* +0.03% > 0.02% */
    CHECK_EQ_INT(y->threshold_source, PG_TH_DEFAULT);   /* not calibrated: the default */
    CHECK(isnan(y->floor_pct));
    pg_comparison_free(&c);

    pg_thresholds cli = {0};
    pg_thresholds_add(&cli, "instructions=0.001%");
    o.thresholds = &cli;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    x = pg_bench_cmp_metric(&c.bench[0], "instructions");
    CHECK_EQ_INT(x->threshold_source, PG_TH_CLI);
    CHECK_NEAR(x->threshold_pct, 0.001, 0);
    CHECK_NEAR(x->floor_pct, 0.005, 0);                 /* below it: compare warns */
    pg_comparison_free(&c);

    pg_thresholds_free(&cli);
    pg_floors_free(&f);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

/* One benchmark gated on a noisy metric ("slow", regressed in round 1) and
 * one gated on an exact count too ("exact", which needs no confirming). */
static void make_round(pg_side *a, pg_side *b, const double *base_t, const double *cand_t)
{
    fx_side(a, "A", A_COMMIT, "m1", "perf");
    fx_side(b, "B", B_COMMIT, "m1", "perf");
    const double ia[] = {1000, 1000, 1000, 1000, 1000, 1000}, ib[] = {2000, 2000, 2000, 2000, 2000, 2000};
    pg_bench_result *sa = fx_bench(a, "slow"), *sb = fx_bench(b, "slow");
    fx_metric(sa, "task-clock", "ns", "perf", base_t, 6);
    fx_metric(sb, "task-clock", "ns", "perf", cand_t, 6);
    fx_metric(sa, "instructions", "count", "perf", ia, 6);     /* unchanged: the time alone regressed */
    fx_metric(sb, "instructions", "count", "perf", ia, 6);
    pg_bench_result *ea = fx_bench(a, "exact"), *eb = fx_bench(b, "exact");
    fx_metric(ea, "instructions", "count", "perf", ia, 6);
    fx_metric(eb, "instructions", "count", "perf", ib, 6);
    fx_metric(ea, "task-clock", "ns", "perf", base_t, 6);
    fx_metric(eb, "task-clock", "ns", "perf", cand_t, 6);
}

static void test_confirm(void)
{
    const double t1[] = {10, 11, 10, 12, 11, 10}, t2[] = {50, 52, 51, 50, 53, 51};
    pg_side a, b, a2, b2, a3, b3;
    make_round(&a, &b, t1, t2);
    pg_gates g = {0};
    pg_gates_parse(&g, "task-clock,instructions");
    pg_compare_opts o = {.gates = &g};
    pg_comparison c, r2;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_REGRESSED);
    CHECK_EQ_INT(c.bench[1].verdict, PG_VERDICT_REGRESSED);
    CHECK(pg_confirm_wanted(&c.bench[0]));
    CHECK(!pg_confirm_wanted(&c.bench[1]));   /* instructions are all equal a side: deterministic */
    CHECK_EQ_INT(pg_confirm_count(&c), 1);

    /* round 2 finds no difference: "slow" becomes inconclusive, "exact" stays */
    make_round(&a2, &b2, t1, t1);
    CHECK_EQ_INT(pg_compare(&r2, &a2, &b2, &o), 0);
    pg_confirm_apply(&c, &r2);
    CHECK_EQ_INT(c.nremeasured, 1);
    CHECK_EQ_INT(c.bench[0].round1, PG_VERDICT_REGRESSED);
    CHECK(c.bench[0].round2 == &r2.bench[0]);
    CHECK(!c.bench[0].confirmed);
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_INCONCLUSIVE);
    CHECK_CONTAINS(c.bench[0].note, "regressed in round 1, not confirmed by round 2 (unchanged)");
    CHECK_EQ_INT(c.count[PG_VERDICT_REGRESSED], 1);
    CHECK_EQ_INT(c.verdict, PG_VERDICT_REGRESSED);      /* "exact" still regressed */

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pg_render_opts ro = {0};
    CHECK_EQ_INT(pg_render_text(f, &c, &ro), 0);
    fclose(f);
    CHECK_CONTAINS(text, "confirmation: regressed on noisy metrics only");
    CHECK_CONTAINS(text, "not confirmed: inconclusive");
    free(text);
    f = open_memstream(&text, &len);
    CHECK_EQ_INT(pg_render_json(f, &c), 0);
    fclose(f);
    CHECK_CONTAINS(text, "\"remeasured\": 1");

    CHECK_CONTAINS(text, "\"confirmation\": {\"confirmed\": false, \"rounds\": [{\"round\": 1, \"verdict\": \"regressed\"}, "
                         "{\"round\": 2, \"verdict\": \"unchanged\", \"metrics\": [");
    free(text);
    f = open_memstream(&text, &len);
    CHECK_EQ_INT(pg_render_markdown(f, &c), 0);
    fclose(f);
    CHECK_CONTAINS(text, "**Confirmation:** regressed on noisy metrics only");
    CHECK_CONTAINS(text, "| slow | task-clock (gate) | ");
    CHECK_CONTAINS(text, "- slow: not confirmed, inconclusive\n");
    free(text);
    pg_comparison_free(&c);
    pg_comparison_free(&r2);

    /* round 2 regressed too: confirmed, regressed */
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    make_round(&a3, &b3, t1, t2);
    CHECK_EQ_INT(pg_compare(&r2, &a3, &b3, &o), 0);
    pg_confirm_apply(&c, &r2);
    CHECK(c.bench[0].confirmed);
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_REGRESSED);
    CHECK(c.bench[0].note == NULL);     /* confirmed: nothing to say */
    pg_comparison_free(&c);
    pg_comparison_free(&r2);

    pg_gates_free(&g);
    pg_side *all[] = {&a, &b, &a2, &b2, &a3, &b3};
    for (size_t i = 0; i < 6; i++)
        pg_side_free(all[i]);
}

int main(void)
{
    test_floor();
    test_precedence();
    test_confirm();
    return pg_check_done();
}
