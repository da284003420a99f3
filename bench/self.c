/* bench/self.c — perfgate's own hot paths as benchmarks, so that perfgate
 * gates on its own instruction counts (docs/ci.md, "perfgate on itself"):
 *
 *     self read N           reading a result document of N benchmarks
 *                           (5 metrics x 10 samples each): parse and validate
 *     self compare N        compare of two such documents, as `perfgate
 *                           compare a.json b.json --format json` does it:
 *                           read, collect, decide, render
 *     self flamegraph N     rendering a flamegraph of N distinct stacks
 *     self history C B      history of C commits x B benchmarks: analysis
 *                           (steps, change points, flags) and the page
 *
 * Each generates its input deterministically (the same bytes on every run,
 * no time, no addresses), then measures only the hot path between
 * perfgate's own markers (include/perfgate.h), and prints a checksum so
 * the work cannot be dropped. Built against perfgate's libraries as they
 * are in the tree: a commit that makes one of these paths slower shows
 * in `perfgate compare` like any user's regression. */
#include "harness/store/results.h"
#include "harness/store/rundoc.h"
#include "report/compare.h"
#include "report/flamegraph.h"
#include "report/history.h"
#include "report/render.h"
#include "report/threshold.h"
#include "util/error.h"
#include "util/folded.h"
#include "util/pair.h"
#include "counters/backend.h"

#include "bench/common.h"
#include "perfgate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what)
{
    fprintf(stderr, "self %s: %s\n", what, pg_error_last());
    exit(1);
}

/* A growing text buffer. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap ? t->cap * 2 : 1 << 16;
        if (!(t->s = realloc(t->s, t->cap)))
            exit(1);
    }
}

/* A run document of n benchmarks, 5 metrics x 10 samples, as `perfgate run
 * --backend perf --repeat 10` writes it; `shift` makes every 100th
 * benchmark 5% slower (the candidate of a comparison). */
static char *run_doc(size_t *len, long n, const char *commit, int shift, uint64_t seed)
{
    static const struct { const char *name, *unit; double base, noise; } m[] = {
        {"instructions", "count", 1e7, 0.001}, {"cycles", "count", 2e7, 0.03}, {"cache-misses", "count", 1e4, 0.05},
        {"branch-misses", "count", 5e4, 0.05}, {"wall-time", "ns", 5e6, 0.04},
    };
    text t = {0};
    put(&t, "{\"schema\": \"perfgate-run/1\", \"id\": \"2026-01-01T00:00:00Z-1-%08llx\", \"commit\": \"%s\", "
            "\"dirty\": false, \"machine\": {\"id\": \"0123456789ab\", \"cpu_model\": \"bench\", \"cores\": 2}, "
            "\"backend\": \"perf\", \"benchmarks\": [", (unsigned long long)seed, commit);
    for (long i = 0; i < n; i++) {
        put(&t, "%s{\"name\": \"bench-%06ld\", \"status\": \"ok\", \"runs\": 10, \"metrics\": {", i ? ", " : "", i);
        for (size_t k = 0; k < sizeof m / sizeof *m; k++) {
            put(&t, "%s\"%s\": {\"unit\": \"%s\", \"backend\": \"perf\", \"samples\": [", k ? ", " : "", m[k].name,
                m[k].unit);
            double f = (1 + (double)(i % 7) / 10) * (shift && i % 100 == 0 ? 1.05 : 1.0);
            for (int s = 0; s < 10; s++) {
                double u = (double)(bench_rng(&seed) >> 11) / 9007199254740992.0 - 0.5;
                put(&t, "%s%.0f", s ? ", " : "", m[k].base * f * (1 + 2 * m[k].noise * u));
            }
            put(&t, "]}");
        }
        put(&t, "}}");
    }
    put(&t, "]}");
    *len = t.len;
    return t.s;
}

static const char *const commit_a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char *const commit_b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

static int self_read(long n)
{
    size_t len;
    char *doc = run_doc(&len, n, commit_a, 0, 1);
    pg_rundoc_list runs = {0};
    PERFGATE_START();
    int rc = pg_rundoc_parse(&runs, doc, len, "a.json");
    PERFGATE_STOP();
    if (rc < 0)
        die("read");
    printf("%zu benchmarks read\n", runs.n ? runs.v[0].nbench : 0);
    pg_rundoc_list_free(&runs);
    free(doc);
    return 0;
}

static int self_compare(long n)
{
    size_t la, lb;
    char *a = run_doc(&la, n, commit_a, 0, 1), *b = run_doc(&lb, n, commit_b, 1, 2);
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    pg_rundoc_list ra = {0}, rb = {0};
    pg_side sa = {0}, sb = {0};
    pg_gates gates = {0};
    pg_comparison c;
    PERFGATE_START();
    int rc = pg_rundoc_parse(&ra, a, la, "a.json");
    if (rc == 0)
        rc = pg_rundoc_parse(&rb, b, lb, "b.json");
    if (rc == 0)
        rc = pg_results_collect(&sa, &ra, NULL, NULL, NULL);
    if (rc == 0)
        rc = pg_results_collect(&sb, &rb, NULL, NULL, NULL);
    if (rc == 0)
        rc = pg_gates_parse(&gates, "instructions");
    pg_compare_opts co = {.gates = &gates};
    if (rc == 0 && (rc = pg_compare(&c, &sa, &sb, &co)) == 0) {
        rc = pg_render_json(f, &c);
        pg_comparison_free(&c);
    }
    fclose(f);
    PERFGATE_STOP();
    if (rc < 0)
        die("compare");
    printf("%zu bytes of comparison\n", outlen);
    free(out);
    pg_gates_free(&gates);
    pg_side_free(&sa);
    pg_side_free(&sb);
    pg_rundoc_list_free(&ra);
    pg_rundoc_list_free(&rb);
    free(a);
    free(b);
    return 0;
}

/* n distinct stacks 4..20 frames deep over a few hundred names, skewed counts. */
static int self_flamegraph(long n)
{
    static const char *const mods[] = {"core", "io", "net", "db", "json", "http", "sched", "alloc"};
    static const char *const verbs[] = {"parse", "read", "write", "lookup", "insert", "visit", "emit", "flush"};
    text t = {0};
    uint64_t seed = 20261127;
    for (long i = 0; i < n; i++) {
        int depth = 4 + (int)(bench_rng(&seed) % 17);
        put(&t, "main");
        for (int d = 0; d < depth; d++) {
            uint64_t r = bench_rng(&seed);
            put(&t, ";%s::%s_%d", mods[r % 8], verbs[(r >> 8) % 8], (int)((r >> 16) % (d < 3 ? 3 : 12)));
        }
        put(&t, ";leaf_%ld %llu\n", i, (unsigned long long)(1 + bench_rng(&seed) % 1000 * (i % 10 == 0 ? 50 : 1)));
    }
    pg_folded *f;
    char *svg = NULL;
    size_t svglen = 0;
    if (pg_folded_new(&f) < 0)
        die("flamegraph");
    PERFGATE_START();
    int rc = pg_folded_parse(f, t.s, t.len, "self.folded");
    if (rc == 0)
        rc = pg_flamegraph_render(&svg, &svglen, f, NULL);
    PERFGATE_STOP();
    if (rc < 0)
        die("flamegraph");
    printf("%zu bytes of SVG from %zu stacks\n", svglen, pg_folded_count(f));
    free(svg);
    pg_folded_free(f);
    free(t.s);
    return 0;
}

/* C commits of B benchmarks (one perf run of 5 samples each, exact
 * instructions stepping up at a few commits), analyzed and drawn. */
static int self_history(long ncommits, long nbench)
{
    pg_rundoc_list *runs = calloc((size_t)ncommits, sizeof *runs);
    uint64_t seed = 7;
    for (long c = 0; c < ncommits && runs; c++) {
        text t = {0};
        put(&t, "{\"schema\": \"perfgate-run/1\", \"id\": \"run-%ld\", \"commit\": \"%040ld\", \"machine\": "
                "{\"id\": \"0123456789ab\"}, \"backend\": \"valgrind\", \"benchmarks\": [", c, c);
        for (long b = 0; b < nbench; b++) {
            double level = 1e6 * (1 + (double)(b % 5)) * (c >= ncommits / 2 && b % 10 == 0 ? 1.02 : 1.0);
            put(&t, "%s{\"name\": \"bench-%04ld\", \"status\": \"ok\", \"metrics\": {\"instructions\": {\"unit\": "
                    "\"count\", \"backend\": \"valgrind\", \"samples\": [%.0f]}, \"wall-time\": {\"unit\": \"ns\", "
                    "\"backend\": \"perf\", \"samples\": [", b ? ", " : "", b, level);
            for (int s = 0; s < 5; s++)
                put(&t, "%s%.0f", s ? ", " : "", 5e6 * (1 + (double)(bench_rng(&seed) % 1000) / 25000));
            put(&t, "]}}}");
        }
        put(&t, "]}");
        if (pg_rundoc_parse(&runs[c], t.s, t.len, "history.json") < 0)
            die("history");
        free(t.s);
    }
    char *page = NULL;
    size_t pagelen = 0;
    FILE *f = open_memstream(&page, &pagelen);
    pg_history h = {0};
    int rc = runs ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    PERFGATE_START();
    for (long c = 0; c < ncommits && rc == 0; c++) {
        char id[41];
        snprintf(id, sizeof id, "%040ld", c);
        rc = pg_history_add_commit(&h, id, "a commit", 1700000000 + c);
        if (rc == 0)
            rc = pg_results_history_add(&h, &runs[c], id, NULL, NULL, NULL);
    }
    if (rc == 0)
        rc = pg_history_analyze(&h, NULL);
    pg_hist_page hp = {.title = "perfgate history: self", .range = "HEAD", .generated = "today"};
    if (rc == 0)
        rc = pg_history_render_html(f, &h, &hp);
    fclose(f);
    PERFGATE_STOP();
    if (rc < 0)
        die("history");
    size_t changes = 0;
    for (size_t s = 0; s < h.ns; s++)
        changes += h.s[s].ncp;
    printf("%zu series, %zu change point%s, %zu bytes of page\n", h.ns, changes, changes == 1 ? "" : "s", pagelen);
    pg_history_free(&h);
    for (long c = 0; c < ncommits; c++)
        pg_rundoc_list_free(&runs[c]);
    free(runs);
    free(page);
    return 0;
}

static long size_arg(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v <= 0 || v > 10000000) {
        fprintf(stderr, "self: expected a size from 1 to 10000000, got '%s'\n", s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    pg_pair_serial(pg_backend_hosted());    /* the same exact count on every run */
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "read") && argc == 3)
        return self_read(size_arg(argv[2]));
    if (!strcmp(what, "compare") && argc == 3)
        return self_compare(size_arg(argv[2]));
    if (!strcmp(what, "flamegraph") && argc == 3)
        return self_flamegraph(size_arg(argv[2]));
    if (!strcmp(what, "history") && argc == 4)
        return self_history(size_arg(argv[2]), size_arg(argv[3]));
    fprintf(stderr, "usage: self read N | compare N | flamegraph N | history COMMITS BENCHMARKS\n");
    return 2;
}
