/* compare --control (report/control.h): a noisy regression no larger than
 * the control's delta is within the noise of this run (the benchmark
 * unchanged, the comparison passing), one larger stays regressed, and an
 * exact count that differs between A and A' is counted and noted. */
#include "report/compare.h"
#include "report/control.h"
#include "tests/check.h"
#include "tests/unit/fixture_side.h"

#include <math.h>
#include <string.h>

/* Benchmark `name` with `metric` samples v0 on side a and v1 on side b. */
static void pair(pg_side *a, pg_side *b, const char *name, const char *metric, const char *backend, const double *v0,
                 const double *v1, size_t n)
{
    fx_metric(fx_bench(a, name), metric, "count", backend, v0, n);
    fx_metric(fx_bench(b, name), metric, "count", backend, v1, n);
}

static void test_noisy(void)
{
    double a0[] = {100, 101, 99, 100.5, 99.5};
    double up4[] = {104, 105, 103, 104.5, 103.5};       /* +4%, separated: regressed at 2% */
    double up12[] = {112, 113, 111, 112.5, 111.5};      /* +12%, separated */
    double ctl6[] = {106, 107, 105, 106.5, 105.5};      /* the control: A' +6% on A */
    pg_side a, b, ca, cb;
    fx_side(&a, "A", "", "m1", "perf");
    fx_side(&b, "B", "", "m1", "perf");
    fx_side(&ca, "A", "", "m1", "perf");
    fx_side(&cb, "A'", "", "m1", "perf");
    pair(&a, &b, "small", "cycles", "perf", a0, up4, 5);
    pair(&ca, &cb, "small", "cycles", "perf", a0, ctl6, 5);
    pair(&a, &b, "large", "cycles", "perf", a0, up12, 5);
    pair(&ca, &cb, "large", "cycles", "perf", a0, ctl6, 5);

    pg_gates g = {0};
    pg_gates_parse(&g, "cycles");
    pg_thresholds th = {0};
    pg_thresholds_add(&th, "cycles=2%");
    pg_compare_opts o = {.gates = &g, .thresholds = &th};
    pg_comparison c, ctl;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK_EQ_INT(pg_compare(&ctl, &ca, &cb, &o), 0);
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_REGRESSED);     /* the alarm, before the control */
    CHECK_EQ_INT(c.count[PG_VERDICT_REGRESSED], 2);

    pg_control_apply(&c, &ctl);
    CHECK(c.controlled);
    const pg_metric_cmp *m = pg_bench_cmp_metric(&c.bench[0], "cycles");
    CHECK(m->controlled && m->within_noise);
    CHECK_NEAR(m->control_pct, 100.0 * 6 / 100, 0.01);
    CHECK_EQ_INT(m->verdict, PG_VERDICT_UNCHANGED);
    CHECK_CONTAINS(m->note, "within the noise of this run: +4.00% against the control's 6.00%");
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_UNCHANGED);
    CHECK_CONTAINS(c.bench[0].note, "within the noise of this run");
    /* +12% is beyond the control's 6%: still regressed, and the comparison fails. */
    CHECK_EQ_INT(c.bench[1].verdict, PG_VERDICT_REGRESSED);
    CHECK(!pg_bench_cmp_metric(&c.bench[1], "cycles")->within_noise);
    CHECK_EQ_INT(c.nwithin_noise, 1);
    CHECK_EQ_INT(c.count[PG_VERDICT_REGRESSED], 1);
    CHECK_EQ_INT(c.count[PG_VERDICT_UNCHANGED], 1);
    CHECK_EQ_INT(c.verdict, PG_VERDICT_REGRESSED);
    CHECK_NEAR(pg_control_largest(&c, "cycles"), 6, 0.01);
    CHECK(isnan(pg_control_largest(&c, "instructions")));
    pg_comparison_free(&c);
    pg_comparison_free(&ctl);
    pg_thresholds_free(&th);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
    pg_side_free(&ca);
    pg_side_free(&cb);
}

static void test_exact(void)
{
    double n0 = 1000000, n1 = 1000000, drift = 1000012;
    pg_side a, b, ca, cb;
    fx_side(&a, "A", "", "m1", "valgrind");
    fx_side(&b, "B", "", "m1", "valgrind");
    fx_side(&ca, "A", "", "m1", "valgrind");
    fx_side(&cb, "A'", "", "m1", "valgrind");
    pair(&a, &b, "steady", "instructions", "valgrind", &n0, &n1, 1);
    pair(&ca, &cb, "steady", "instructions", "valgrind", &n0, &n0, 1);
    pair(&a, &b, "drifts", "instructions", "valgrind", &n0, &n1, 1);
    pair(&ca, &cb, "drifts", "instructions", "valgrind", &n0, &drift, 1);
    pg_gates g = {0};
    pg_gates_parse(&g, "instructions");
    pg_compare_opts o = {.gates = &g};
    pg_comparison c, ctl;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK_EQ_INT(pg_compare(&ctl, &ca, &cb, &o), 0);
    pg_control_apply(&c, &ctl);
    const pg_metric_cmp *s = pg_bench_cmp_metric(&c.bench[0], "instructions");
    CHECK(s->controlled && s->control_abs == 0 && s->control_pct == 0);
    CHECK_EQ_INT(c.nexact_drift, 1);
    CHECK(!s->exact_drift && pg_bench_cmp_metric(&c.bench[1], "instructions")->exact_drift);
    CHECK_NEAR(pg_bench_cmp_metric(&c.bench[1], "instructions")->control_abs, 12, 0);
    CHECK_CONTAINS(c.bench[1].note, "its instructions differs in the control (A against A': +12)");
    CHECK_EQ_INT(c.verdict, PG_VERDICT_UNCHANGED);
    pg_comparison_free(&c);
    pg_comparison_free(&ctl);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
    pg_side_free(&ca);
    pg_side_free(&cb);
}

/* An exact count whose A and A' differ by 12: the A/B delta is decided
 * against that difference, as against a spread between stored runs. */
static void test_exact_drift_decides(void)
{
    double a0 = 1000000, a1 = 1000012;
    double within = 1000010, near = 1000030, far = 1000100;
    pg_side a, b, ca, cb;
    fx_side(&a, "A", "", "m1", "valgrind");
    fx_side(&b, "B", "", "m1", "valgrind");
    fx_side(&ca, "A", "", "m1", "valgrind");
    fx_side(&cb, "A'", "", "m1", "valgrind");
    pair(&a, &b, "within", "instructions", "valgrind", &a0, &within, 1);
    pair(&a, &b, "near", "instructions", "valgrind", &a0, &near, 1);
    pair(&a, &b, "far", "instructions", "valgrind", &a0, &far, 1);
    pair(&ca, &cb, "within", "instructions", "valgrind", &a0, &a1, 1);
    pair(&ca, &cb, "near", "instructions", "valgrind", &a0, &a1, 1);
    pair(&ca, &cb, "far", "instructions", "valgrind", &a0, &a1, 1);
    pg_gates g = {0};
    pg_gates_parse(&g, "instructions");
    pg_thresholds th = {0};
    pg_thresholds_add(&th, "instructions=0.0001%");       /* one instruction in 10^6 */
    pg_compare_opts o = {.gates = &g, .thresholds = &th};
    pg_comparison c, ctl;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK_EQ_INT(pg_compare(&ctl, &ca, &cb, &o), 0);
    CHECK_EQ_INT(c.count[PG_VERDICT_REGRESSED], 3);      /* before the control: three regressions */
    pg_control_apply(&c, &ctl);
    CHECK_EQ_INT(c.nexact_drift, 3);
    CHECK_EQ_INT(c.bench[0].verdict, PG_VERDICT_UNCHANGED);
    CHECK_CONTAINS(pg_bench_cmp_metric(&c.bench[0], "instructions")->note, "within the control's A/A difference (12)");
    CHECK_EQ_INT(c.bench[1].verdict, PG_VERDICT_INCONCLUSIVE);
    CHECK_CONTAINS(pg_bench_cmp_metric(&c.bench[1], "instructions")->note, "less than 3 times the control's A/A difference");
    CHECK_EQ_INT(c.bench[2].verdict, PG_VERDICT_REGRESSED);
    CHECK_EQ_INT(c.verdict, PG_VERDICT_REGRESSED);
    CHECK_EQ_INT(c.nwithin_noise, 1);
    pg_comparison_free(&c);
    pg_comparison_free(&ctl);
    pg_thresholds_free(&th);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
    pg_side_free(&ca);
    pg_side_free(&cb);
}

int main(void)
{
    test_noisy();
    test_exact();
    test_exact_drift_decides();
    return pg_check_done();
}
