/* Gathering a side from runs: pg_results_take, which frees each benchmark
 * of the runs as it is gathered, makes the side pg_results_collect makes of
 * the same runs, and leaves the runs empty. Under AddressSanitizer the text
 * of a freed benchmark's string read again (the working directory the last
 * origin was made for) is a use after free. */
#include "harness/store/results.h"
#include "tests/check.h"
#include "util/strindex.h"

#include <stdio.h>

static void metric(pg_rundoc_bench *b, const char *name, const char *unit, const char *source, const double *v,
                   size_t n)
{
    pg_rundoc_metric *m;
    REQUIRE(pg_rundoc_metric_get(&m, b, name, unit, source) == 0);
    for (size_t i = 0; i < n; i++)
        REQUIRE(pg_rundoc_metric_push(m, v[i], 1) == 0);
}

/* Run `id`: benchmarks x (in /w/x), y (in /w/y-ID), and z in the second
 * run only; common words and words of their own for metrics; an exact call
 * count that differs between the runs. */
static void make_run(pg_rundoc *r, const char *id, int second)
{
    memset(r, 0, sizeof *r);
    r->cpu = -1;
    pg_rundoc_set(&r->id, id);
    pg_rundoc_set(&r->backend, "valgrind");
    REQUIRE(pg_rundoc_add_backend(r, "valgrind") == 0);
    snprintf(r->machine.id, sizeof r->machine.id, "aabbccddeeff");
    const char *names[] = {"x", "y", "z"};
    for (int i = 0; i < (second ? 3 : 2); i++) {
        pg_rundoc_bench *b;
        REQUIRE(pg_rundoc_add_bench(&b, r) == 0);
        char cwd[64];
        snprintf(cwd, sizeof cwd, i ? "/w/%s-%s" : "/w/%s", names[i], id);
        pg_rundoc_set(&b->name, names[i]);
        pg_rundoc_set(&b->cwd, cwd);
        double ir[] = {1000 + i, 1000 + i}, w[] = {5, 6, 7}, calls[] = {second ? 41 : 40}, odd[] = {1.5, 2.5};
        metric(b, "instructions", "count", "valgrind", ir, 2);
        metric(b, "wall-time", "ns", "os", w, 3);
        metric(b, "calls:parse", "count", "valgrind", calls, 1);
        metric(b, "widgets-made", "widgets", "my-counter", odd, 2);
    }
}

static void make_runs(pg_rundoc_list *l)
{
    memset(l, 0, sizeof *l);
    REQUIRE((l->v = calloc(2, sizeof *l->v)) != NULL);
    make_run(&l->v[0], "r1", 0);
    make_run(&l->v[1], "r2", 1);
    l->n = 2;
}

static void same_side(const pg_side *a, const pg_side *b)
{
    CHECK_EQ_INT(a->nb, 3);
    CHECK_EQ_INT(b->nb, a->nb);
    CHECK_EQ_INT(b->nruns, a->nruns);
    CHECK_STR(b->machine_id, a->machine_id);
    for (size_t i = 0; i < a->nb && i < b->nb; i++) {
        const pg_bench_result *x = &a->b[i], *y = &b->b[i];
        CHECK_STR(y->name, x->name);
        CHECK_EQ_INT(y->nm, x->nm);
        for (size_t k = 0; k < x->nm && k < y->nm; k++) {
            const pg_series *s = &x->m[k], *t = &y->m[k];
            CHECK_STR(t->metric, s->metric);
            CHECK_STR(t->unit, s->unit);
            CHECK_STR(t->backend, s->backend);
            CHECK_STR(t->source, s->source);
            CHECK_STR(t->origin, s->origin);
            CHECK_EQ_INT(t->exact, s->exact);
            CHECK_EQ_INT(t->n, s->n);
            CHECK(t->n == s->n && !memcmp(t->v, s->v, s->n * sizeof *s->v));
            CHECK((t->disagreement == NULL) == (s->disagreement == NULL));
            if (s->disagreement && t->disagreement)
                CHECK_STR(t->disagreement, s->disagreement);
        }
    }
}

static void test_take_is_collect(void)
{
    pg_rundoc_list one, two;
    make_runs(&one);
    make_runs(&two);
    pg_side a = {0}, b = {0};
    CHECK_EQ_INT(pg_results_collect(&a, &one, NULL, NULL, NULL), 0);
    CHECK_EQ_INT(pg_results_take(&b, &two, NULL, NULL, NULL), 0);
    same_side(&a, &b);
    CHECK_EQ_INT(two.n, 0);
    CHECK(two.v == NULL);
    /* x and y merged both runs; the call count that moved says where each value came from. */
    const pg_bench_result *y = &b.b[1];
    CHECK_STR(y->name, "y");
    CHECK_EQ_INT(y->m[0].n, 4);
    const pg_series *calls = NULL;
    for (size_t k = 0; k < y->nm; k++)
        if (!strcmp(y->m[k].metric, "calls:parse"))
            calls = &y->m[k];
    CHECK(calls != NULL);
    if (calls)
        CHECK_STR(calls->disagreement, "40 (run r1 in /w/y-r1) and 41 (run r2 in /w/y-r2)");
    pg_side_free(&a);
    pg_side_free(&b);
    pg_rundoc_list_free(&one);
}

/* A machine the runs are not of: nothing gathered, and the runs still freed. */
static void test_take_none(void)
{
    pg_rundoc_list l;
    make_runs(&l);
    pg_side s = {0};
    CHECK_EQ_INT(pg_results_take(&s, &l, "001122334455", NULL, NULL), 0);
    CHECK_EQ_INT(s.nb, 0);
    CHECK_EQ_INT(l.n, 0);
    pg_side_free(&s);
}

/* The name index: add says whether a key was new, reserve keeps keys found. */
static void test_strindex(void)
{
    pg_strindex m = {0};
    size_t old = 99;
    CHECK_EQ_INT(pg_strindex_add(&m, "a", 1, &old), 1);
    CHECK_EQ_INT(pg_strindex_add(&m, "a", 2, &old), 0);
    CHECK_EQ_INT(old, 1);
    CHECK_EQ_INT(pg_strindex_reserve(&m, 1000), 0);
    CHECK(m.cap >= 2000);
    size_t cap = m.cap, v = 0;
    CHECK(pg_strindex_get(&m, "a", &v) && v == 1);
    char keys[1000][8];
    for (int i = 0; i < 1000; i++) {
        snprintf(keys[i], sizeof keys[i], "k%d", i);
        CHECK_EQ_INT(pg_strindex_add(&m, keys[i], (size_t)i, &old), 1);
    }
    CHECK_EQ_INT(m.cap, cap);       /* room made once, not at every doubling */
    CHECK(pg_strindex_get(&m, "k999", &v) && v == 999);
    CHECK_EQ_INT(m.n, 1001);
    pg_strindex_free(&m);
}

int main(void)
{
    test_take_is_collect();
    test_take_none();
    test_strindex();
    return pg_check_done();
}
