/* Unit tests: util/json_scratch.h's streaming of a document's benchmarks,
 * and harness/store/rundoc_read.c reading documents that way: the same
 * runs, the same errors in the same order as a reader of the whole tree. */
#include "../check.h"
#include "harness/store/rundoc.h"
#include "util/error.h"
#include "util/json_scratch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct seen {
    char log[512];
    int stop_at;                /* index whose element stops the parse (-1: none) */
} seen;

static int each(void *ctx, const cJSON *e, size_t record, const char *outer, size_t index)
{
    seen *s = ctx;
    size_t n = strlen(s->log);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
    snprintf(s->log + n, sizeof s->log - n, "%s%s[%zu].%zu=%s", n ? " " : "", outer ? outer : "",
             record == SIZE_MAX ? 99 : record, index,
             cJSON_IsString(name) ? name->valuestring : cJSON_IsNumber(e) ? "number" : "?");
    if ((int)index == s->stop_at)
        return pg_error_set(PG_ENOMEM, "stopped at %zu", index);
    return 0;
}

/* Which elements reach the callback, with their records, and what stays in the tree. */
static void test_stream_elements(void)
{
    const char *run = "{\"benchmarks\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"x\": {\"benchmarks\": [{\"name\": \"no\"}]}}";
    const char *store = "{\"runs\": [{\"benchmarks\": [{\"name\": \"a\"}]}, {\"benchmarks\": [{\"name\": \"b\"}, 7]}], "
                        "\"benchmarks\": [{\"name\": \"top\"}]}";
    const char *list = "[{\"benchmarks\": [{\"name\": \"a\"}]}, {\"nested\": [{\"benchmarks\": [{\"name\": \"no\"}]}]}]";
    struct { const char *doc, *want; } cases[] = {
        {run, "[99].0=a [99].1=b"},            /* the root's own; not one under another key */
        {store, "runs[0].0=a runs[1].0=b runs[1].1=number [99].0=top"},
        {list, "[0].0=a"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        seen s = {.stop_at = -1};
        pg_json_stream st = {.key = "benchmarks", .outer = "runs", .each = each, .ctx = &s};
        cJSON *doc;
        pg_json_scratch *mem;
        CHECK_EQ_INT(pg_json_parse_stream(&doc, &mem, cases[i].doc, strlen(cases[i].doc), "d.json", &st), 0);
        CHECK_STR(s.log, cases[i].want);
        /* The streamed arrays stay, empty; the rest of the tree is whole. */
        if (i == 0) {
            CHECK_EQ_INT((int)pg_json_array_len(cJSON_GetObjectItemCaseSensitive(doc, "benchmarks")), 0);
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(doc, "x");
            CHECK_EQ_INT((int)pg_json_array_len(cJSON_GetObjectItemCaseSensitive(x, "benchmarks")), 1);
        }
        pg_json_scratch_free(mem);
    }
    /* The callback's error stops the parse, and is the parse's error. */
    seen s = {.stop_at = 1};
    pg_json_stream st = {.key = "benchmarks", .each = each, .ctx = &s};
    cJSON *doc;
    pg_json_scratch *mem;
    CHECK_EQ_INT(pg_json_parse_stream(&doc, &mem, run, strlen(run), "d.json", &st), PG_ENOMEM);
    CHECK_STR(pg_error_last(), "stopped at 1");
    CHECK(doc == NULL && mem == NULL);
}

static char *big_run(size_t n, const char *tail)
{
    size_t cap = n * 200 + 400, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "{\"schema\": \"perfgate-run/1\",\n\"benchmarks\": [\n");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len, "%s{\"name\": \"b%zu\", \"status\": \"ok\", \"metrics\": "
                                "{\"instructions\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": [%zu, %zu]}}}\n",
                                i ? "," : "", i, i, i + 1);
    snprintf(t + len, cap - len, "],\n\"machine\": {\"id\": \"m1\"}, \"backend\": \"perf\"%s", tail);
    return t;
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* text[0..len) into a new temporary file named from `path` (a mkstemp template). */
static void temp_file(char *path, const char *text, size_t len)
{
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, text, len) == (ssize_t)len);
    close(fd);
}

/* A file read in pieces (64 KiB each) gives every benchmark, and an error
 * past the first piece is placed exactly. */
static void test_read_file_in_pieces(void)
{
    char path[] = "/tmp/pg-json-stream-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    char *ok = big_run(2000, "}\n");        /* about 250 KB */
    CHECK(strlen(ok) > 200000);
    CHECK_EQ_INT(write_file(path, ok), 0);
    pg_rundoc_list l = {0};
    CHECK_EQ_INT(pg_rundoc_read_file(&l, path), 0);
    CHECK(l.n == 1 && l.v[0].nbench == 2000);
    const pg_rundoc_bench *last = l.n ? &l.v[0].bench[1999] : NULL;
    CHECK(last && !strcmp(last->name, "b1999") && last->nmetrics == 1 && last->metrics[0].n == 2 &&
          last->metrics[0].samples[1] == 2000);
    CHECK(l.n && !strcmp(l.v[0].machine.id, "m1"));
    pg_rundoc_list_free(&l);

    /* Line 2004 (2 lines, 2000 benchmarks, "],", the machine's line), where
     * yajl stops: the place a parse of the whole text gives. */
    char *bad = big_run(2000, ", x}\n");
    CHECK_EQ_INT(write_file(path, bad), 0);
    CHECK_EQ_INT(pg_rundoc_read_file(&l, path), PG_EINVAL);
    char got[600];
    snprintf(got, sizeof got, "%s", pg_error_last());
    CHECK_EQ_INT(pg_rundoc_parse(&l, bad, strlen(bad), path), PG_EINVAL);
    CHECK_STR(got, pg_error_last());
    char want[600];
    snprintf(want, sizeof want, "%s:2004:46: invalid JSON", path);
    CHECK_STR(got, want);
    CHECK_EQ_INT(l.n, 0);
    unlink(path);
    CHECK_EQ_INT(pg_rundoc_read_file(&l, path), PG_ENOTFOUND);
    free(ok);
    free(bad);
}

static void refused(const char *text, const char *want)
{
    pg_rundoc_list l = {0};
    CHECK_EQ_INT(pg_rundoc_parse(&l, text, strlen(text), "r.json"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), want);
    CHECK_EQ_INT(l.n, 0);
    pg_rundoc_list_free(&l);
}

#define BAD_BENCH "{\"name\": \"b\", \"status\": \"fine\", \"metrics\": {}}"

/* The benchmarks are read as they stream in, before the run's own fields
 * that follow them; errors still come in the order of a reading of the
 * whole tree: the run's fields, then its benchmarks, then the next run. */
static void test_error_order(void)
{
    refused("{\"schema\": \"perfgate-run/1\", \"benchmarks\": [" BAD_BENCH "], \"machine\": {\"id\": 5}, \"backend\": \"perf\"}",
            "r.json: machine.id: expected a string, got 5");
    refused("{\"schema\": \"perfgate-run/1\", \"benchmarks\": [" BAD_BENCH "], \"machine\": {\"id\": \"m\"}, \"backend\": \"perf\"}",
            "r.json: benchmarks[0].status: expected \"ok\" or \"failed\"");
    refused("[{\"schema\": \"perfgate-run/1\", \"machine\": {\"id\": \"m\"}, \"backend\": \"perf\", \"benchmarks\": [{\"name\": \"a\", "
            "\"status\": \"ok\", \"metrics\": {}}, " BAD_BENCH "]}]",
            "r.json: [0].benchmarks[1].status: expected \"ok\" or \"failed\"");
    refused("{\"schema\": \"perfgate-store/1\", \"runs\": [{\"schema\": \"perfgate-run/1\", \"machine\": {\"id\": \"m\"}, "
            "\"backend\": \"perf\", \"benchmarks\": [" BAD_BENCH "]}, {\"schema\": 3}]}",
            "r.json: runs[0].benchmarks[0].status: expected");
    /* Bad JSON anywhere wins over what its benchmarks held. */
    refused("{\"schema\": \"perfgate-run/1\", \"benchmarks\": [" BAD_BENCH "], \"machine\": {\"id\": \"m\"}, \"backend\": \"perf\"",
            "r.json:1:");
    /* A store document's own "benchmarks" are not a run's: ignored, errors and all. */
    const char *store = "{\"schema\": \"perfgate-store/1\", \"benchmarks\": [" BAD_BENCH "], \"runs\": []}";
    pg_rundoc_list l = {0};
    CHECK_EQ_INT(pg_rundoc_parse(&l, store, strlen(store), "r.json"), 0);
    CHECK_EQ_INT(l.n, 0);
}

/* Tokens longer than many of the file's 64 KiB pieces (the pieces grow to
 * the token's length: json_scratch.c) come back byte for byte: a 3 MiB
 * string whose escapes put runs of 1 to 5 backslashes and escaped quotes
 * everywhere (so that pieces end inside them), a 200 KiB key, a number of
 * 300,000 digits, and what follows each still in its place. */
static void test_long_tokens_in_pieces(void)
{
    const char *unit[] = {"ab\\\"c", "\\\\", "\\\\\\\"", "x\\u00e9\\n", "\\\\\\\\\\\\\\\"\\\\", "\\/", "long tail text "};
    const char *plain[] = {"ab\"c", "\\", "\\\"", "x\xc3\xa9\n", "\\\\\\\"\\", "/", "long tail text "};
    size_t n = 3u << 20, cap = n * 2 + (1u << 20), len = 0, slen = 0;
    char *t = malloc(cap), *want = malloc(n + 64);
    REQUIRE(t && want);
    len += (size_t)snprintf(t, cap, "{\"s\": \"");
    for (size_t k = 0; slen < n; k++) {
        size_t u = k % 7;
        len += (size_t)snprintf(t + len, cap - len, "%s", unit[u]);
        slen += (size_t)snprintf(want + slen, n + 64 - slen, "%s", plain[u]);
    }
    len += (size_t)snprintf(t + len, cap - len, "\",\n \"");
    size_t klen = 200u << 10;
    memset(t + len, 'k', klen), len += klen;
    len += (size_t)snprintf(t + len, cap - len, "\": [1, \"after\"], \"n\": 1");
    memset(t + len, '0', 300000), len += 300000;
    len += (size_t)snprintf(t + len, cap - len, ", \"m\": -12.5e-1, \"end\": [true, null]}");

    char path[] = "/tmp/pg-json-long-XXXXXX";
    temp_file(path, t, len);
    cJSON *doc;
    pg_json_scratch *mem;
    CHECK_EQ_INT(pg_json_read_stream(&doc, &mem, path, NULL), 0);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "s");
    CHECK(cJSON_IsString(s) && strlen(s->valuestring) == slen && !memcmp(s->valuestring, want, slen));
    const cJSON *k = s ? s->next : NULL;
    CHECK(k && strlen(k->string) == klen && strspn(k->string, "k") == klen);
    CHECK(k && pg_json_array_len(k) == 2 && cJSON_IsString(k->child->next) && !strcmp(k->child->next->valuestring, "after"));
    const cJSON *num = cJSON_GetObjectItemCaseSensitive(doc, "n");
    CHECK(cJSON_IsNumber(num) && isinf(num->valuedouble));
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "m");
    CHECK(cJSON_IsNumber(m) && m->valuedouble == -1.25);
    const cJSON *end = cJSON_GetObjectItemCaseSensitive(doc, "end");
    CHECK(end && cJSON_IsTrue(end->child) && cJSON_IsNull(end->child->next));
    pg_json_scratch_free(mem);
    unlink(path);
    free(t);
    free(want);
}

/* A store document of a million empty runs, then one with a benchmark
 * (3 MB): refused at its first run, in the memory of its tree, not in a
 * record per run of the million (1.2 GB when shells were kept by index).
 * In a child whose address space is capped; not under AddressSanitizer,
 * whose shadow memory no cap allows. */
static void test_many_empty_runs(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return;
#endif
    size_t n = 1000000, cap = 3 * n + 400, len = 0;
    char *t = malloc(cap);
    REQUIRE(t);
    len += (size_t)snprintf(t + len, cap - len, "{\"schema\": \"perfgate-store/1\", \"runs\": [");
    for (size_t i = 0; i < n; i++)
        memcpy(t + len, "{},", 3), len += 3;
    snprintf(t + len, cap - len, "{\"benchmarks\": [{\"name\": \"b\"}]}]}");
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit lim = {512u << 20, 512u << 20};
        setrlimit(RLIMIT_AS, &lim);
        pg_rundoc_list l = {0};
        int rc = pg_rundoc_parse(&l, t, strlen(t), "r.json");
        _exit(rc == PG_EINVAL && strstr(pg_error_last(), "r.json: runs[0].schema: missing") ? 0 : 1);
    }
    int status = 0;
    REQUIRE(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(t);
}

/* What the parse finds strict (pg_json_strict_known) and what it leaves to
 * pg_json_check_strict's walk: never a node the walk would refuse. */
static void test_strict_known(void)
{
    struct { const char *doc, *path; int known; } cases[] = {
        {"{\"a\": [1, 2], \"b\": {\"c\": \"d\", \"e\": [\"f\", null, true]}}", "", 1},
        {"{\"a\": {\"c\": 1, \"c\": 2}, \"b\": {\"c\": 1}}", "a", 0},
        {"{\"a\": {\"c\": 1, \"c\": 2}, \"b\": {\"c\": 1}}", "", 0},
        {"{\"a\": {\"c\": 1, \"c\": 2}, \"b\": {\"c\": 1}}", "b", 1},
        {"{\"a\": {\"n\": \"x\\u0000y\"}, \"b\": [\"\\u00e9\"]}", "a", 0},     /* cut: the walk says so */
        {"{\"a\": {\"n\": \"x\\u0000y\"}, \"b\": [\"\\u00e9\"]}", "b", 1},     /* escaped, valid */
        {"{\"a\": {\"k\\u0000\": 1}}", "a", 0},
        {"{\"a\": [\"\xff\"], \"b\": {\"\xc3\": 1}, \"c\": [1]}", "a", 0},        /* not UTF-8 */
        {"{\"a\": [\"\xff\"], \"b\": {\"\xc3\": 1}, \"c\": [1]}", "b", 0},
        {"{\"a\": [\"\xff\"], \"b\": {\"\xc3\": 1}, \"c\": [1]}", "c", 1},
        {"{\"a\": [{\"k\": 1, \"k\": 1}], \"b\": 1}", "a", 0},   /* a child's repeat */
        {"{\"k0\":0,\"k1\":0,\"k2\":0,\"k3\":0,\"k4\":0,\"k5\":0,\"k6\":0,\"k7\":0,\"k8\":0,\"k9\":0,"
         "\"ka\":0,\"kb\":0,\"kc\":0,\"kd\":0,\"ke\":0,\"kf\":0}", "", 1},             /* 16 keys */
        {"{\"k0\":0,\"k1\":0,\"k2\":0,\"k3\":0,\"k4\":0,\"k5\":0,\"k6\":0,\"k7\":0,\"k8\":0,\"k9\":0,"
         "\"ka\":0,\"kb\":0,\"kc\":0,\"kd\":0,\"ke\":0,\"kf\":0,\"kg\":0}", "", 0},   /* 17: the map's */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *doc;
        pg_json_scratch *mem;
        CHECK_EQ_INT(pg_json_parse_stream(&doc, &mem, cases[i].doc, strlen(cases[i].doc), "d.json", NULL), 0);
        const cJSON *v = *cases[i].path ? cJSON_GetObjectItemCaseSensitive(doc, cases[i].path) : doc;
        CHECK(v != NULL);
        if (pg_json_strict_known(v) != cases[i].known)
            fprintf(stderr, "case %zu (%s): strict known %d\n", i, cases[i].path, pg_json_strict_known(v));
        CHECK_EQ_INT(pg_json_strict_known(v), cases[i].known);
        pg_json_scratch_free(mem);
    }
    CHECK(!pg_json_strict_known(NULL));
}


/* pg_json_stream's `flat`: what each metric of an element looks like to a
 * reader, "name:F" (kept flat) or "name:T" (a tree), then its unit and its
 * samples' count as that reader finds them. */
static const char *const flat_keys[] = {"unit", "backend", "samples", "running"};

static int each_flat(void *ctx, const cJSON *e, size_t record, const char *outer, size_t index)
{
    (void)record, (void)outer, (void)index;
    char *log = ctx;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(e, "metrics")) {
        const cJSON *const *vals, *unit, *samples, *running;
        int flat = pg_json_flat(m, &vals);
        if (flat) {
            unit = vals[0], samples = vals[2], running = vals[3];
            CHECK(!m->child);
            for (size_t k = 0; k < 4; k++)      /* every value as a tree would hold it, and strict */
                CHECK(!vals[k] || (!strcmp(vals[k]->string, flat_keys[k]) &&
                                   (cJSON_IsNumber(vals[k]) || pg_json_strict_known(vals[k]))));
        } else {
            unit = cJSON_GetObjectItemCaseSensitive(m, "unit");
            samples = cJSON_GetObjectItemCaseSensitive(m, "samples");
            running = cJSON_GetObjectItemCaseSensitive(m, "running");
        }
        const double *v = NULL;
        size_t n = 0;
        if (samples && pg_json_packed(samples, &v, &n) && n > 1)
            CHECK(v[1] == 20);
        size_t len = strlen(log);
        snprintf(log + len, 512 - len, "%s%s:%c:%s:%zu%s", len ? " " : "", m->string, flat ? 'F' : 'T',
                 cJSON_IsString(unit) ? unit->valuestring : unit ? "?" : "-", pg_json_array_len(samples),
                 running ? "r" : "");
    }
    return 0;
}

static void test_flat_metrics(void)
{
    struct { const char *metrics, *want; } cases[] = {
        {"{\"m\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": [1, 20, 3], \"running\": [1, 1, 1]},"
         " \"n\": {\"samples\":[-5,20] ,\"unit\":\"ns\"}}", "m:F:count:3r n:F:ns:2"},
        /* Not plain, or not a flat key once: a tree, as ever; the metrics after it still flat. */
        {"{\"a\": {\"unit\": \"c\\u006fnt\"}, \"b\": {\"unit\": \"x\"}}", "a:T:cont:0 b:F:x:0"},
        {"{\"a\": {\"unit\": \"x\"}, \"b\": {\"unit\": \"x\", \"extra\": 1}, \"c\": {\"unit\": \"y\"}}",
         "a:F:x:0 b:T:x:0 c:F:y:0"},
        {"{\"a\": {\"unit\": \"x\", \"unit\": \"y\"}}", "a:T:x:0"},
        {"{\"a\": {\"samples\": [1.5, 20]}, \"b\": {\"samples\": []}, \"c\": {}}", "a:T:-:2 b:T:-:0 c:T:-:0"},
        {"{\"a\": {\"unit\": {\"x\": 1}}, \"b\": {\"unit\": 7, \"samples\": [0, 20]}}", "a:T:?:0 b:F:?:2"},
        {"{\"a\": {\"unit\": \"\xc3\xa9\"}, \"b\": {\"unit\" : \"x\" }}", "a:T:\xc3\xa9:0 b:F:x:0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char doc[1024], log[512] = "";
        snprintf(doc, sizeof doc, "{\"benchmarks\": [{\"name\": \"b\", \"metrics\": %s}], "
                 "\"metrics\": {\"top\": {\"unit\": \"x\"}}}", cases[i].metrics);
        pg_json_stream st = {.key = "benchmarks", .each = each_flat, .ctx = log,
                             .flat = "metrics", .flat_keys = flat_keys, .nflat = 4};
        cJSON *root;
        pg_json_scratch *mem;
        CHECK_EQ_INT(pg_json_parse_stream(&root, &mem, doc, strlen(doc), "f.json", &st), 0);
        if (strcmp(log, cases[i].want))
            fprintf(stderr, "case %zu: %s\n", i, log);
        CHECK_STR(log, cases[i].want);
        /* Only an element's metrics: the root's "metrics" is a tree. */
        const cJSON *const *vals;
        const cJSON *top = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "metrics"), "top");
        CHECK(top && !pg_json_flat(top, &vals) && cJSON_GetObjectItemCaseSensitive(top, "unit"));
        pg_json_scratch_free(mem);
    }
    /* Bad JSON after a flat metric is still where yajl finds it. */
    const char *bad = "{\"benchmarks\": [{\"metrics\": {\"a\": {\"unit\": \"x\"}, \"b\": {\"unit\": \"x\",}}}]}";
    char log[512] = "";
    pg_json_stream st = {.key = "benchmarks", .each = each_flat, .ctx = log,
                         .flat = "metrics", .flat_keys = flat_keys, .nflat = 4};
    cJSON *root;
    pg_json_scratch *mem;
    for (int flat = 0; flat < 2; flat++) {
        st.flat = flat ? "metrics" : NULL;
        CHECK_EQ_INT(pg_json_parse_stream(&root, &mem, bad, strlen(bad), "f.json", &st), PG_EINVAL);
        CHECK_STR(pg_error_last(), "f.json:1:69: invalid JSON");
    }
}


/* The arrays of numbers of a file read in pieces come back as strtod reads
 * each token, bit for bit (-0 too): integers of 1 to 18 digits, signed or
 * not, among fractions and exponents, with every kind of JSON space around
 * them, in arrays of 1 to 300 values that cross the 64 KiB pieces; a bad
 * token among integers is placed where yajl finds it. */
static void test_number_arrays(void)
{
    const char *space[] = {"", " ", "\n", "\t", "\r\n ", "  "};
    const char *odd[] = {"-0", "0", "1.5", "-2e3", "1E+2", "0.1", "123456789012345", "-999999999999999",
                         "1234567890123456", "9007199254740993", "123456789012345678", "1e-400", "4.9e-324"};
    size_t cap = 4u << 20, len = 0, ntok = 0, captok = 200000;
    char *t = malloc(cap);
    double *want = malloc(captok * sizeof *want);
    size_t *count = malloc(4000 * sizeof *count);
    REQUIRE(t && want && count);
    unsigned seed = 12345;
    len += (size_t)snprintf(t + len, cap - len, "{");
    size_t narrays = 0;
    while (len < (1u << 20) + 50000) {
        seed = seed * 1103515245 + 12345;
        size_t n = 1 + (seed >> 8) % 300, start = ntok;
        len += (size_t)snprintf(t + len, cap - len, "%s\"a%zu\":%s[%s", narrays ? "," : "", narrays,
                                space[(seed >> 4) % 6], space[(seed >> 6) % 6]);
        for (size_t i = 0; i < n && ntok < captok; i++) {
            seed = seed * 1103515245 + 12345;
            char tok[64];
            unsigned r = seed >> 16;
            if (r % 17 == 0) {
                snprintf(tok, sizeof tok, "%s", odd[(r / 17) % (sizeof odd / sizeof *odd)]);
            } else {
                unsigned long long v = ((unsigned long long)seed << 20) ^ (r * 2654435761u);
                int digits = 1 + (int)(r % 18);
                unsigned long long mod = 1;
                for (int d = 0; d < digits; d++)
                    mod *= 10;
                snprintf(tok, sizeof tok, "%s%llu", r % 5 == 0 ? "-" : "", v % mod);
            }
            want[ntok++] = strtod(tok, NULL);
            len += (size_t)snprintf(t + len, cap - len, "%s%s%s", i ? "," : "", i ? space[r % 6] : "", tok);
            len += (size_t)snprintf(t + len, cap - len, "%s", space[(r >> 3) % 6]);
        }
        len += (size_t)snprintf(t + len, cap - len, "]");
        count[narrays++] = ntok - start;
        REQUIRE(narrays < 4000 && ntok < captok);
    }
    len += (size_t)snprintf(t + len, cap - len, "}");
    char path[] = "/tmp/pg-json-numbers-XXXXXX";
    temp_file(path, t, len);
    for (int from_file = 0; from_file < 2; from_file++) {
        cJSON *doc;
        pg_json_scratch *mem;
        int rc = from_file ? pg_json_read_stream(&doc, &mem, path, NULL)
                           : pg_json_parse_stream(&doc, &mem, t, len, "n.json", NULL);
        CHECK_EQ_INT(rc, 0);
        size_t k = 0, bad = 0, arrays = 0;
        for (const cJSON *a = doc ? doc->child : NULL; a; a = a->next, arrays++) {
            const double *v;
            size_t n = 0;
            CHECK(pg_json_packed(a, &v, &n));
            CHECK_EQ_INT(n, count[arrays]);
            for (size_t i = 0; i < n && k < ntok; i++, k++)
                bad += memcmp(&v[i], &want[k], sizeof *v) != 0;
        }
        CHECK_EQ_INT(arrays, narrays);
        CHECK_EQ_INT(k, ntok);
        CHECK_EQ_INT(bad, 0);
        pg_json_scratch_free(mem);
    }
    unlink(path);
    free(t);
    free(want);
    free(count);

    /* An object of plain members, then one that is not: the same tree. */
    const char *obj = "{\"a\": 1, \"b\": [1, -0], \"c\": \"d\", \"e\": {\"f\": -7, \"g\": 1.5, \"h\": \"\\u00e9\"}, \"i\": []}";
    cJSON *o;
    pg_json_scratch *om;
    CHECK_EQ_INT(pg_json_parse_stream(&o, &om, obj, strlen(obj), "o.json", NULL), 0);
    char *back = o ? cJSON_PrintUnformatted(o) : NULL;
    CHECK(back && !strcmp(back, "{\"a\":1,\"b\":[],\"c\":\"d\",\"e\":{\"f\":-7,\"g\":1.5,\"h\":\"\xc3\xa9\"},\"i\":[]}"));
    free(back);
    const double *bv;
    size_t bn = 0;
    CHECK(o && pg_json_packed(cJSON_GetObjectItemCaseSensitive(o, "b"), &bv, &bn) && bn == 2 && bv[0] == 1 &&
          bv[1] == 0 && signbit(bv[1]));
    pg_json_scratch_free(om);

    /* Brackets inside strings are the strings' (escaped quotes before them). */
    const char *strs = "[\"x\\\"[1, 2]\\\\\", \"[3]\", [\"\\\\\", [4 ]]]";
    cJSON *doc;
    pg_json_scratch *mem;
    CHECK_EQ_INT(pg_json_parse_stream(&doc, &mem, strs, strlen(strs), "s.json", NULL), 0);
    const cJSON *c = doc ? doc->child : NULL;
    CHECK(c && !strcmp(c->valuestring, "x\"[1, 2]\\") && c->next && !strcmp(c->next->valuestring, "[3]"));
    const cJSON *in = c && c->next ? c->next->next : NULL;
    const double *v;
    size_t n = 0;
    CHECK(in && !strcmp(in->child->valuestring, "\\") && pg_json_packed(in->child->next, &v, &n) && n == 1 && v[0] == 4);
    pg_json_scratch_free(mem);

    struct { const char *doc, *want; } refused[] = {
        {"{\"a\": [1, 2 3]}", "e.json:1:14: invalid JSON"},
        {"{\"a\": [1, 02]}", "e.json:1:13: invalid JSON"},
        {"{\"a\": [1,]}", "e.json:1:11: invalid JSON"},
        {"{\"a\": [1,\n 2,\n 3 x]}", "e.json:3:5: invalid JSON"},
        {"{\"a\": [1, 2]]}", "e.json:1:13: invalid JSON"},
        {"{\"a\": [1, 2}", "e.json:1:13: invalid JSON"},
        {"{\"a\" [1, 2]}", "e.json:1:7: invalid JSON"},
        {"[1, 2, -]", "e.json:1:9: invalid JSON"},
        {"{\"a\": [1, 2", "e.json:1:12: invalid JSON"},
        {"{\"a\": 1, \"b\": [2],}", "e.json:1:20: invalid JSON"},
        {"{\"a\": \"x\" \"b\": 1}", "e.json:1:13: invalid JSON"},
        {"{\"a\": [1, 2], \"b\": 01}", "e.json:1:21: invalid JSON"},
        {"{\"a\": 1, \"b\" 2}", "e.json:1:15: invalid JSON"},
        {"{\"a\": 1,\n \"b\": [3 4]}", "e.json:2:11: invalid JSON"},
        {"[{\"a\": 1, \"b\": [1, 2], \"c\": \"d\"}, {\"a\": 1,", "e.json:1:43: invalid JSON"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        CHECK_EQ_INT(pg_json_parse_stream(&doc, &mem, refused[i].doc, strlen(refused[i].doc), "e.json", NULL),
                     PG_EINVAL);
        CHECK_STR(pg_error_last(), refused[i].want);
    }
}

int main(void)
{
    test_number_arrays();
    test_strict_known();
    test_flat_metrics();
    test_stream_elements();
    test_read_file_in_pieces();
    test_long_tokens_in_pieces();
    test_error_order();
    test_many_empty_runs();
    return pg_check_done();
}
