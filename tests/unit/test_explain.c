/* tests/unit/test_explain.c — the function table of exact stacks speaks
 * their backend's unit and adds up to the metric their backend names
 * (pg_side.stacks_unit, stacks_metric), not to "instructions" by default:
 * a heap backend's stacks weigh bytes and add up to heap-bytes. */
#include "report/explain.h"
#include "tests/check.h"
#include "util/folded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pg_folded *stacks(const char *text)
{
    pg_folded *f = NULL;
    CHECK_EQ_INT(pg_folded_new(&f), 0);
    CHECK_EQ_INT(pg_folded_parse(f, text, strlen(text), "test"), 0);
    return f;
}

/* One benchmark whose `metric` went from 1000 to 1500; stacks that hold
 * 900 and 1400 of it (the rest: the run's start, outside the stacks). */
static void one(const char *unit, const char *metric, int exact, const char *want_unit, const char *want_headline)
{
    pg_side a = {.stacks_exact = exact}, b = {.stacks_exact = exact, .label = "B"};
    snprintf(a.stacks_unit, sizeof a.stacks_unit, "%s", unit);
    snprintf(b.stacks_unit, sizeof b.stacks_unit, "%s", unit);
    snprintf(a.stacks_metric, sizeof a.stacks_metric, "%s", metric);
    snprintf(b.stacks_metric, sizeof b.stacks_metric, "%s", metric);
    pg_metric_cmp m[2] = {{.metric = "instructions", .unit = "count", .na = 1, .nb = 1, .base = 5000, .cand = 5000},
                          {.metric = "heap-bytes", .unit = "bytes", .na = 1, .nb = 1, .base = 1000, .cand = 1500,
                           .delta_abs = 500}};
    pg_bench_cmp bench = {.name = "alloc", .m = m, .nm = 2};
    pg_comparison c = {.base = &a, .cand = &b, .bench = &bench, .nbench = 1};
    pg_folded *fa = stacks("main;grow 600\nmain;keep 300\n"), *fb = stacks("main;grow 1100\nmain;keep 300\n");
    CHECK_EQ_INT(pg_explain_funcs(&bench, &c, fa, fb, 10), 0);
    CHECK_STR(bench.funcs_unit, want_unit);
    if (exact) {    /* raw counts: grow's 500 is the only change */
        CHECK_EQ_INT(bench.nfuncs, 1);
        CHECK_STR(bench.nfuncs ? bench.funcs[0].name : "", "grow");
        CHECK_NEAR(bench.nfuncs ? bench.funcs[0].delta : 0, 500, 1e-9);
    }
    if (want_headline) {
        CHECK_STR(bench.funcs_headline, want_headline);
        CHECK_NEAR(bench.funcs_unattributed.base, 100, 1e-9);   /* 1000 less the 900 of the stacks */
        CHECK_NEAR(bench.funcs_unattributed.delta, 0, 1e-9);    /* the rows hold the whole delta */
    } else {
        CHECK(bench.funcs_headline == NULL);
    }
    CHECK_STR(pg_explain_unit(&c), exact ? unit : "samples");
    for (size_t i = 0; i < bench.nfuncs; i++)
        free(bench.funcs[i].name);
    free(bench.funcs);
    free(bench.funcs_unit);
    pg_folded_free(fa);
    pg_folded_free(fb);
}

int main(void)
{
    one("bytes", "heap-bytes", 1, "bytes", "heap-bytes");                /* a heap backend's */
    one("instructions", "", 1, "instructions", NULL);                    /* no metric named: no headline row */
    one("samples", "", 0, "samples, baseline scaled to the candidate's total", NULL);
    return pg_check_done();
}
