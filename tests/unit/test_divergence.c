/* Counts beside time: the divergence rule of report/divergence.h on fixed
 * samples (a valgrind count and a native task-clock), what --fail-on-divergence
 * does to the outcome, and the line or object every format shows. */
#include "report/compare.h"
#include "report/divergence.h"
#include "report/render.h"
#include "tests/check.h"
#include "tests/unit/fixture_render.h"
#include "tests/unit/fixture_side.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

/* Six native samples a side, every candidate below every baseline (or above):
 * the exact Mann-Whitney p is 2/924 = 0.0022, and so is the adjusted one
 * (Benjamini-Hochberg over it and the wall-time, tested beside it with the
 * same p). Medians 100.25 ms and 20.25 ms: -79.80%. */
static const double SLOW[] = {100e6, 101e6, 99e6, 102e6, 98e6, 100.5e6};
static const double FAST[] = {20e6, 21e6, 19e6, 22e6, 18e6, 20.5e6};
static const double SLOW2[] = {150e6, 151e6, 149e6, 152e6, 148e6, 150.5e6};   /* +50% */
static const double NEAR[] = {99.5e6, 100.2e6, 101.5e6, 98.5e6, 100.1e6, 101e6};    /* overlaps SLOW */
static const double SLOWER[] = {103e6, 104e6, 102e6, 105e6, 101.5e6, 103.5e6};   /* +3%, within 5% */

/* A benchmark measured by the valgrind backend with native time: its
 * instructions (one exact sample) and its native task-clock and wall-time. */
static void side_of(pg_side *s, const char *label, double instructions, const double *time)
{
    fx_side(s, label, label[0] == 'A' ? "1111111111111111111111111111111111111111"
                                      : "2222222222222222222222222222222222222222", "m1", "valgrind");
    pg_bench_result *b = fx_bench(s, "chase");
    fx_metric(b, "instructions", "count", "valgrind", &instructions, 1);
    fx_metric(b, "task-clock", "ns", "perf", time, 6);
    fx_metric(b, "wall-time", "ns", "perf", time, 6);
}

typedef struct outcome {
    pg_divergence_kind kind;
    int fails;
    pg_verdict verdict;
} outcome;

static outcome compare(double ia, const double *ta, double ib, const double *tb, const char *gates, int fail_on,
                       const char *threshold)
{
    pg_side a, b;
    side_of(&a, "A", ia, ta);
    side_of(&b, "B", ib, tb);
    pg_gates g = {0};
    pg_thresholds th = {0};
    CHECK_EQ_INT(pg_gates_parse(&g, gates), 0);
    if (threshold)
        CHECK_EQ_INT(pg_thresholds_add(&th, threshold), 0);
    pg_compare_opts o = {.gates = &g, .thresholds = &th, .fail_on_divergence = fail_on};
    pg_comparison c;
    outcome r = {0};
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    r.kind = c.bench[0].div ? (pg_divergence_kind)c.bench[0].div->kind : PG_DIVERGENCE_NONE;
    r.fails = pg_comparison_fails(&c);
    r.verdict = c.verdict;
    CHECK_EQ_INT(c.ndiverged, r.kind != PG_DIVERGENCE_NONE);
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_thresholds_free(&th);
    pg_side_free(&a);
    pg_side_free(&b);
    return r;
}

static void test_rule(void)
{
    /* The case: instructions up, time down. */
    outcome r = compare(1e6, SLOW, 1.6e6, FAST, "instructions", 0, NULL);
    CHECK_EQ_INT(r.kind, PG_DIVERGENCE_OPPOSITE);
    CHECK_EQ_INT(r.verdict, PG_VERDICT_REGRESSED);
    CHECK_EQ_INT(r.fails, 1);
    /* And the other way: fewer instructions, slower. */
    r = compare(1.6e6, FAST, 1e6, SLOW, "instructions", 0, NULL);
    CHECK_EQ_INT(r.kind, PG_DIVERGENCE_OPPOSITE);
    CHECK_EQ_INT(r.verdict, PG_VERDICT_IMPROVED);
    CHECK_EQ_INT(r.fails, 0);
    CHECK_EQ_INT(compare(1.6e6, FAST, 1e6, SLOW, "instructions", 1, NULL).fails, 1);
    /* Both up by about as much (+50% each): they agree. */
    CHECK_EQ_INT(compare(1e6, SLOW, 1.5e6, SLOW2, "instructions", 1, NULL).kind, PG_DIVERGENCE_NONE);
    /* Both up, +2% against +50%: 25 times apart, beyond the factor of 3. */
    CHECK_EQ_INT(compare(1e6, SLOW, 1.02e6, SLOW2, "instructions", 0, NULL).kind, PG_DIVERGENCE_MAGNITUDE);
    /* +20% against +50%: 2.5 times apart, within it. */
    CHECK_EQ_INT(compare(1e6, SLOW, 1.2e6, SLOW2, "instructions", 0, NULL).kind, PG_DIVERGENCE_NONE);
    /* Counts identical, time 5x faster: the count gate saw nothing the time did. */
    CHECK_EQ_INT(compare(1e6, SLOW, 1e6, FAST, "instructions", 0, NULL).kind, PG_DIVERGENCE_MAGNITUDE);
    /* The time change is not significant (the samples overlap): no divergence. */
    CHECK_EQ_INT(compare(1e6, SLOW, 1.6e6, NEAR, "instructions", 0, NULL).kind, PG_DIVERGENCE_NONE);
    /* Significant, but neither the count (-0.05% of 0.1%) nor the time (+3% of
     * 5%) moved beyond its threshold: nothing changed to disagree about. */
    CHECK_EQ_INT(compare(1e6, SLOW, 0.9995e6, SLOWER, "instructions", 0, NULL).kind, PG_DIVERGENCE_NONE);
    /* The count within its threshold, the time beyond it in the other direction. */
    r = compare(1e6, SLOW, 1.6e6, FAST, "instructions", 1, "instructions=1000%");
    CHECK_EQ_INT(r.kind, PG_DIVERGENCE_OPPOSITE);
    CHECK_EQ_INT(r.verdict, PG_VERDICT_UNCHANGED);
    CHECK_EQ_INT(r.fails, 1);                   /* --fail-on-divergence */
    CHECK_EQ_INT(compare(1e6, SLOW, 1.6e6, FAST, "instructions", 0, "instructions=1000%").fails, 0);
    /* Gating on time too fails on the time itself, as any gate does. */
    r = compare(1.6e6, FAST, 1e6, SLOW, "instructions,task-clock", 0, NULL);
    CHECK_EQ_INT(r.verdict, PG_VERDICT_REGRESSED);
    CHECK_EQ_INT(r.fails, 1);
    /* No gating count: nothing to set against the time. */
    CHECK_EQ_INT(compare(1e6, SLOW, 1.6e6, FAST, "task-clock", 0, NULL).kind, PG_DIVERGENCE_NONE);
}

/* valgrind's own wall-time (a document from before native runs) is not time. */
static void test_valgrind_time_ignored(void)
{
    pg_side a, b;
    fx_side(&a, "A", "1111111111111111111111111111111111111111", "m1", "valgrind");
    fx_side(&b, "B", "2222222222222222222222222222222222222222", "m1", "valgrind");
    double ia = 1e6, ib = 1.6e6;
    fx_metric(fx_bench(&a, "chase"), "instructions", "count", "valgrind", &ia, 1);
    fx_metric(&a.b[0], "wall-time", "ns", "valgrind", SLOW, 6);
    fx_metric(fx_bench(&b, "chase"), "instructions", "count", "valgrind", &ib, 1);
    fx_metric(&b.b[0], "wall-time", "ns", "valgrind", FAST, 6);
    pg_gates g = {0};
    pg_gates_parse(&g, "instructions");
    pg_compare_opts o = {.gates = &g};
    pg_comparison c;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    CHECK_EQ_INT(c.ndiverged, 0);
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

static int text_plain(FILE *f, const pg_comparison *c)
{
    pg_render_opts o = {0};
    return pg_render_text(f, c, &o);
}

static void test_formats(void)
{
    pg_side a, b;
    side_of(&a, "A", 1000000, SLOW);
    side_of(&b, "B", 1600000, FAST);
    pg_gates g = {0};
    pg_thresholds th = {0};
    pg_gates_parse(&g, "instructions");
    pg_thresholds_add(&th, "instructions=1000%");   /* the count gate passes; the divergence fails */
    pg_compare_opts o = {.gates = &g, .thresholds = &th, .fail_on_divergence = 1};
    pg_comparison c;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);

    char *t = fx_render(text_plain, &c);
    CHECK_CONTAINS(t, "divergence: instructions +60.00% (+600,000) but task-clock -79.80% (-80.000 ms): opposite "
                      "directions (Mann-Whitney p=0.00216, BH-adjusted 0.00216)");
    CHECK_CONTAINS(t, "; 1 divergence of counts and time (--fail-on-divergence: failing)");
    free(t);

    t = fx_render(pg_render_markdown, &c);
    CHECK_CONTAINS(t, "**Counts and time diverge** (docs/metrics.md):");
    CHECK_CONTAINS(t, "- chase: instructions +60.00% (+600,000) but task-clock -79.80%");
    free(t);

    t = fx_render(pg_render_junit, &c);
    CHECK_CONTAINS(t, "failures=\"1\"");
    CHECK_CONTAINS(t, "<failure type=\"divergence\" message=\"divergence: instructions +60.00%");
    free(t);

    t = fx_render(pg_render_json, &c);
    cJSON *j = cJSON_Parse(t);
    CHECK(j != NULL);
    CHECK_EQ_INT(cJSON_GetObjectItem(j, "divergences")->valuedouble, 1);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "fail_on_divergence")));
    const cJSON *d = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "benchmarks"), 0), "divergence");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(d, "kind")), "opposite");
    const cJSON *cnt = cJSON_GetObjectItem(d, "count"), *tm = cJSON_GetObjectItem(d, "time");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cnt, "name")), "instructions");
    CHECK_NEAR(cJSON_GetObjectItem(cnt, "delta")->valuedouble, 600000, 0);
    CHECK_NEAR(cJSON_GetObjectItem(cnt, "delta_pct")->valuedouble, 60, 1e-9);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(tm, "name")), "task-clock");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(tm, "backend")), "perf");
    CHECK_NEAR(cJSON_GetObjectItem(tm, "delta_pct")->valuedouble, -100.0 * 80 / 100.25, 1e-9);
    CHECK_NEAR(cJSON_GetObjectItem(d, "p")->valuedouble, 2.0 / 924, 1e-12);
    CHECK_NEAR(cJSON_GetObjectItem(d, "p_adjusted")->valuedouble, 2.0 / 924, 1e-12);
    cJSON_Delete(j);
    free(t);
    pg_comparison_free(&c);

    /* Without a divergence the object is null. */
    o.fail_on_divergence = 0;
    pg_thresholds_free(&th);
    o.thresholds = NULL;
    pg_side_free(&b);
    side_of(&b, "B", 1000000, SLOW);
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    t = fx_render(pg_render_json, &c);
    CHECK_CONTAINS(t, "\"divergence\": null");
    CHECK_CONTAINS(t, "\"divergences\": 0");
    free(t);
    t = fx_render(text_plain, &c);
    CHECK(!strstr(t, "divergence"));
    free(t);
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

int main(void)
{
    test_rule();
    test_valgrind_time_ignored();
    test_formats();
    return pg_check_done();
}
