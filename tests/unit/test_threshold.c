/* The threshold parser, precedence (CLI > manifest > default) and gate lists. */
#include "report/threshold.h"
#include "util/error.h"
#include "tests/check.h"

static void test_parse(void)
{
    double p = -1;
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, "5%"), 0);
    CHECK_NEAR(p, 5, 0);
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, "0.5"), 0);    /* a bare number is percent */
    CHECK_NEAR(p, 0.5, 0);
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, " 2.25 % "), 0);
    CHECK_NEAR(p, 2.25, 0);
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, "0"), 0);
    CHECK_NEAR(p, 0, 0);
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, ""), PG_EINVAL);
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, "%"), PG_EINVAL);
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, "5%%"), PG_EINVAL);
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, "five"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "'five' is not a percentage");
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, "-1%"), PG_EINVAL);
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, "nan"), PG_EINVAL);
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, "inf"), PG_EINVAL);
    CHECK_EQ_INT(pg_threshold_parse_pct(&p, "5% x"), PG_EINVAL);
}

static void test_rules(void)
{
    pg_thresholds t = {0};
    CHECK_EQ_INT(pg_thresholds_add(&t, "instructions=0.5%"), 0);
    CHECK_EQ_INT(pg_thresholds_add(&t, "cycles = 7"), 0);
    CHECK_EQ_INT(pg_thresholds_add(&t, "instructions=0.25%"), 0);   /* replaces */
    CHECK_EQ_INT(t.n, 2);
    CHECK_EQ_INT(pg_thresholds_add(&t, "=5%"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "no metric before '='");
    CHECK_EQ_INT(pg_thresholds_add(&t, "cycles=fast"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "--threshold cycles=fast");

    pg_thresholds mt = {0}, *manifest = &mt;
    CHECK_EQ_INT(pg_thresholds_set(manifest, "instructions", 2), 0);
    CHECK_EQ_INT(pg_thresholds_set(manifest, "wall-time", 8), 0);
    CHECK_EQ_INT(pg_thresholds_set(manifest, "cache-misses", 3), 0);
    pg_threshold_source src;
    CHECK_NEAR(pg_threshold_for(&t, manifest, "instructions", &src), 0.25, 0);
    CHECK_EQ_INT(src, PG_TH_CLI);
    CHECK_NEAR(pg_threshold_for(&t, manifest, "wall-time", &src), 8, 0);
    CHECK_EQ_INT(src, PG_TH_MANIFEST);
    CHECK_NEAR(pg_threshold_for(&t, manifest, "cache-misses", &src), 3, 0);
    CHECK_NEAR(pg_threshold_for(&t, manifest, "branch-misses", &src), 10, 0);
    CHECK_EQ_INT(src, PG_TH_DEFAULT);
    CHECK_NEAR(pg_threshold_for(NULL, NULL, "instructions", &src), 0.1, 0);
    CHECK_NEAR(pg_threshold_for(NULL, NULL, "cycles", NULL), 5, 0);
    CHECK(pg_threshold_default("instructions") < pg_threshold_default("cycles"));
    CHECK(pg_threshold_default("instructions") < pg_threshold_default("wall-time"));

    /* A bare PCT is every metric's, below a rule naming the metric. */
    CHECK_EQ_INT(pg_thresholds_add(&t, "3%"), 0);
    CHECK_NEAR(pg_threshold_for(&t, manifest, "wall-time", &src), 3, 0);
    CHECK_EQ_INT(src, PG_TH_CLI);
    CHECK_NEAR(pg_threshold_for(&t, manifest, "instructions", NULL), 0.25, 0);
    pg_thresholds_free(manifest);
    pg_thresholds_free(&t);
    CHECK_EQ_INT(t.n, 0);
}

static void test_gates(void)
{
    pg_gates g = {0};
    CHECK_EQ_INT(pg_gates_parse(&g, "instructions"), 0);
    CHECK_EQ_INT(g.n, 1);
    CHECK_EQ_INT(pg_gates_parse(&g, "instructions, cycles,instructions"), 0);
    CHECK_EQ_INT(g.n, 2);
    CHECK(pg_gates_has(&g, "cycles"));
    CHECK(!pg_gates_has(&g, "wall-time"));
    /* an alias gates its metric */
    CHECK_EQ_INT(pg_gates_parse(&g, "Ir,cpu-cycles,instructions"), 0);
    CHECK_EQ_INT(g.n, 2);
    CHECK_STR(g.v[0], "instructions");
    CHECK_STR(g.v[1], "cycles");
    CHECK(pg_gates_has(&g, "Ir"));
    pg_thresholds ta = {0};
    CHECK_EQ_INT(pg_thresholds_add(&ta, "Ir=0.25%"), 0);
    CHECK_NEAR(pg_threshold_for(&ta, NULL, "instructions", NULL), 0.25, 0);
    pg_thresholds_free(&ta);
    CHECK_EQ_INT(pg_gates_parse(&g, "cycles,,x"), PG_EINVAL);
    CHECK_EQ_INT(g.n, 2);           /* unchanged on error */
    CHECK_EQ_INT(pg_gates_parse(&g, ""), PG_EINVAL);
    pg_gates_free(&g);
}

int main(void)
{
    test_parse();
    test_rules();
    test_gates();
    return pg_check_done();
}
