/* The run document module: the writer and the reader agree (a full document
 * round-trips byte for byte), docs/result-schema.md documents exactly the
 * keys the writer emits, the reader refuses wrong shapes with file, JSON path
 * and reason, and the metric registry is consistent. */
#include "harness/store/rundoc.h"
#include "counters/backend.h"
#include "tests/check.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/metrics.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>

/* A run document with every field the writer knows set. */
static void full_doc(pg_rundoc *r)
{
    memset(r, 0, sizeof *r);
    pg_rundoc_set(&r->perfgate_version, "0.1.0");
    pg_rundoc_set(&r->id, "2026-01-01T00:00:00Z-42");
    pg_rundoc_set(&r->commit, "0123456789abcdef0123456789abcdef01234567");
    r->dirty = 1;
    r->shard_index = 2;
    r->shard_count = 3;
    pg_rundoc_set(&r->start_time, "2026-01-01T00:00:00Z");
    pg_rundoc_set(&r->end_time, "2026-01-01T00:00:09Z");
    pg_rundoc_set(&r->session, "2026-01-01T00:00:00Z-42-0000beef");
    r->load = 1.25;
    snprintf(r->machine.id, sizeof r->machine.id, "aabbccddeeff");
    snprintf(r->machine.cpu_model, sizeof r->machine.cpu_model, "Test CPU");
    snprintf(r->machine.kernel, sizeof r->machine.kernel, "Linux 6.1 x86_64");
    r->machine.cores = 2;
    snprintf(r->machine.backend, sizeof r->machine.backend, "perf");
    snprintf(r->machine.backend_version, sizeof r->machine.backend_version, "perf_event");
    snprintf(r->machine.geometry, sizeof r->machine.geometry, "I1=32768,8,64");
    snprintf(r->machine.hostname, sizeof r->machine.hostname, "host");
    pg_rundoc_set(&r->backend, "perf");
    CHECK_EQ_INT(pg_rundoc_add_backend(r, "perf"), 0);
    CHECK_EQ_INT(pg_rundoc_add_backend(r, "valgrind"), 0);
    CHECK_EQ_INT(pg_rundoc_add_backend(r, "perf"), 0);     /* once */
    CHECK_EQ_INT(r->nbackends, 2);
    r->cpu = 1;
    r->aslr_disabled = 1;
    pg_rundoc_set(&r->stdin_path, "/dev/null");
    pg_rundoc_set(&r->events, PG_METRICS_PERF_DEFAULT);
    r->user_only = 1;
    r->has_native = 1;      /* (a valgrind run's key, written whenever set) */
    r->native = 1;
    pg_rundoc_strings_add(&r->uncontrolled, "turbo boost is on");
    pg_rundoc_strings_add(&r->notices, "no PMU");
    for (int k = 0; k < 3; k++) {
        pg_rundoc_bench *b;
        pg_rundoc_add_bench(&b, r);
        pg_rundoc_set(&b->name, k == 0 ? "sort" : k == 1 ? "broken" : "killed");
        b->command = calloc(3, sizeof *b->command);
        b->command[0] = strdup("/bin/sort");
        b->command[1] = strdup("-n");
        pg_rundoc_set(&b->cwd, "/tmp");
        b->repeat = 3;
        b->warmup = 1;
        b->timeout = 60;
        b->has_thresholds = 1;
        pg_thresholds_set(&b->thresholds, "instructions", 0.5);
        b->runs = 2;
        pg_rundoc_set(&b->stdout_log, "/s/logs/sort.stdout");
        pg_rundoc_set(&b->stderr_log, "/s/logs/sort.stderr");
        pg_rundoc_set(&b->stacks, "stacks/x/sort.folded");
        pg_rundoc_set(&b->stacks_weight, "samples");
        pg_rundoc_set(&b->stacks_note, "note");
        b->stacks_iterations = 40;
        pg_rundoc_set(&b->stacks_error, "none");
        pg_rundoc_set(&b->reuse_key, "0123456789abcdef0123456789abcdef01234567");
        pg_rundoc_set(&b->exact_varies, "its output differs from run to run");
        pg_rundoc_set(&b->reused_run, "2025-12-31T00:00:00Z-7-0000beef");
        pg_rundoc_set(&b->reused_commit, "89abcdef0123456789abcdef0123456789abcdef");
        pg_rundoc_strings_add(&b->selected_metrics, "instructions");
        pg_rundoc_metric *m;
        pg_rundoc_metric_get(&m, b, "instructions", "count", "perf");
        pg_rundoc_metric_push(m, 123456789012.0, 1);
        pg_rundoc_metric_push(m, 123456789013.0, 0.5);
        if (k) {
            b->failed = 1;
            pg_rundoc_set(&b->failure.reason, "exit status 3");
            pg_rundoc_set(&b->failure.phase, "measured run");
            b->failure.run = 3;
            b->failure.has_exit_code = k == 1;
            b->failure.exit_code = 3;
            b->failure.has_signal = k == 2;
            b->failure.signal = 9;
            pg_rundoc_set(&b->failure.stderr_tail, "oops\n");
        }
    }
}

/* Every object key under `v`, except the names of metrics and thresholds
 * (data, not schema), into the space-separated list `keys`. */
static void collect_keys(char *keys, size_t len, const cJSON *v, int data_names)
{
    for (const cJSON *c = v ? v->child : NULL; c; c = c->next) {
        if (c->string && !data_names) {
            char k[80];
            snprintf(k, sizeof k, " %s ", c->string);
            if (!strstr(keys, k) && strlen(keys) + strlen(k) < len)
                strcat(keys, k + (keys[0] ? 1 : 0));
        }
        int names_are_data = c->string && (!strcmp(c->string, "metrics") || !strcmp(c->string, "thresholds") ||
                                           !strcmp(c->string, "backends"));
        collect_keys(keys, len, c, names_are_data);
    }
}

/* The schema section of the docs: from "## Run document" to the next "## ". */
static char *run_section(const char *docs)
{
    const char *a = strstr(docs, "## Run document");
    const char *b = a ? strstr(a + 3, "\n## ") : NULL;
    return a ? strndup(a, b ? (size_t)(b - a) : strlen(a)) : NULL;
}

static void test_docs_match_writer(void)
{
    pg_rundoc r;
    full_doc(&r);
    char *text = NULL;
    CHECK_EQ_INT(pg_rundoc_write(&text, &r), 0);
    cJSON *doc = cJSON_Parse(text);
    CHECK(doc != NULL);
    static char keys[4096];
    keys[0] = '\0';
    collect_keys(keys, sizeof keys, doc, 0);
    char *docs = NULL;
    CHECK_EQ_INT(pg_file_read(&docs, NULL, "../../docs/result-schema.md"), 0);
    char *section = docs ? run_section(docs) : NULL;
    CHECK(section != NULL);

    /* Every key the writer emits is documented. */
    char k[80];
    for (const char *p = keys; section && *p;) {
        size_t n = strcspn(p, " ");
        snprintf(k, sizeof k, "`%.*s`", (int)n, p);
        if (!strstr(section, k))
            fprintf(stderr, "key %s is written but not in docs/result-schema.md\n", k);
        CHECK(strstr(section, k) != NULL);
        p += n + (p[n] == ' ');
    }
    /* Every key documented in the tables is one the writer emits (and so,
     * by the round trip below, one the reader reads). */
    for (const char *line = section; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (*line != '|')
            continue;
        const char *end = strchr(line, '\n');
        for (const char *q = strchr(line, '`'); q && (!end || q < end); q = strchr(q, '`')) {
            const char *e = strchr(q + 1, '`');
            if (!e)
                break;
            size_t n = (size_t)(e - q - 1);
            int ident = n > 0 && n < 60 && islower((unsigned char)q[1]);
            for (size_t i = 1; i <= n && ident; i++)
                ident = islower((unsigned char)q[i]) || isdigit((unsigned char)q[i]) || q[i] == '_';
            snprintf(k, sizeof k, " %.*s ", (int)n, q + 1);
            if (ident && strcmp(k, " null ") && strcmp(k, " true ") && strcmp(k, " false ")) {
                char spaced[4200];
                snprintf(spaced, sizeof spaced, " %s ", keys);
                if (!strstr(spaced, k))
                    fprintf(stderr, "key%sis documented but never written\n", k);
                CHECK(strstr(spaced, k) != NULL);
            }
            q = e + 1;
        }
    }
    /* The store document's keys. */
    char *store = NULL;
    CHECK_EQ_INT(pg_storedoc_append(&store, NULL, 0, "s.json", r.commit, r.machine.id, &r), 0);
    cJSON *sdoc = cJSON_Parse(store);
    for (const cJSON *c = sdoc ? sdoc->child : NULL; c; c = c->next) {
        snprintf(k, sizeof k, "\"%s\"", c->string);
        CHECK(docs && strstr(docs, k));
    }

    /* Reader and writer agree on every key: read back, write again, same text. */
    pg_rundoc_list l = {0};
    CHECK_EQ_INT(pg_rundoc_parse(&l, text, strlen(text), "full.json"), 0);
    CHECK_EQ_INT(l.n, 1);
    char *again = NULL;
    if (l.n == 1)
        CHECK_EQ_INT(pg_rundoc_write(&again, &l.v[0]), 0);
    CHECK_STR(again, text);
    /* So does the store document, read as a list of runs. */
    pg_rundoc_list_free(&l);
    CHECK_EQ_INT(pg_rundoc_parse(&l, store, strlen(store), "s.json"), 0);
    CHECK_EQ_INT(l.n, 1);
    CHECK(l.n == 1 && l.v[0].has_native && l.v[0].native);
    CHECK(l.n == 1 && l.v[0].nbench == 3 && l.v[0].bench[1].failed && l.v[0].bench[2].failure.signal == 9 && l.v[0].bench[1].failure.exit_code == 3);

    pg_rundoc_list_free(&l);
    cJSON_Delete(sdoc);
    cJSON_Delete(doc);
    free(store);
    free(again);
    free(section);
    free(docs);
    free(text);
    pg_rundoc_free(&r);
}

/* `text` must be refused with a message containing `want`. */
static void refused(const char *text, const char *want)
{
    pg_rundoc_list l = {0};
    int rc = pg_rundoc_parse(&l, text, strlen(text), "r.json");
    CHECK_EQ_INT(rc, PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), want);
    CHECK_EQ_INT(l.n, 0);
    pg_rundoc_list_free(&l);
}

#define RUN(bench) "{\"schema\": \"perfgate-run/1\", \"machine\": {\"id\": \"m1\"}, \"backend\": \"perf\", \"benchmarks\": [" bench "]}"
#define BENCH(metrics) "{\"name\": \"b\", \"status\": \"ok\", \"metrics\": " metrics "}"

static void test_reader_refuses(void)
{
    /* The shapes that crashed before (issue 8), and wrong types at every level. */
    refused(RUN(BENCH("[ {\"unit\": \"count\"} ]")), "r.json: benchmarks[0].metrics: expected an object, got an array");
    refused("{\"schema\": \"perfgate-store/1\", \"runs\": [ {}, " RUN(BENCH("{\"instructions\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": [1, 2, \"x\"]}}")) "]}",
            "r.json: runs[0].schema: missing");
    refused("{\"schema\": \"perfgate-store/1\", \"runs\": [" RUN(BENCH("{\"instructions\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": [1, 2, \"x\"]}}")) "]}",
            "r.json: runs[0].benchmarks[0].metrics.instructions.samples[2]: expected a number, got \"x\"");
    refused(RUN(BENCH("{\"instructions\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": [1e999]}}")),
            "benchmarks[0].metrics.instructions.samples[0]: expected a finite number >= 0, got inf");
    /* values and names from a document are data, checked (issue 19) */
    refused(RUN(BENCH("{\"instructions\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": [5, -1]}}")),
            "benchmarks[0].metrics.instructions.samples[1]: expected a finite number >= 0, got -1");
    refused(RUN("{\"name\": \"a/b\", \"status\": \"ok\", \"metrics\": {}}"),
            "benchmarks[0].name: a benchmark name has no '/' or newline (docs/manifest.md, Names)");
    refused(RUN("{\"name\": \"a\\nb\", \"status\": \"ok\", \"metrics\": {}}"), "benchmarks[0].name: a benchmark name has no");
    /* A "\u0000" would cut a name short in C: refused, wherever a name or text is. */
    refused(RUN("{\"name\": \"a\\u0000b\", \"status\": \"ok\", \"metrics\": {}}"),
            "r.json: benchmarks[0].name: holds a NUL byte (\\u0000), which no name or text may");
    refused(RUN(BENCH("{\"instr\\u0000x\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": [1]}}")),
            "r.json: benchmarks[0].metrics.instr: holds a NUL byte");
    refused(RUN(BENCH("{\"instructions\": {\"unit\": \"count\\u0000\", \"backend\": \"perf\", \"samples\": [1]}}")),
            "r.json: benchmarks[0].metrics.instructions.unit: holds a NUL byte");
    refused(RUN("{\"name\": \"b\", \"status\": \"ok\", \"command\": [\"./a\", \"x\\u0000y\"], \"metrics\": {}}"),
            "r.json: benchmarks[0].command[1]: holds a NUL byte");
    refused(RUN("{\"name\": \"a\xff\", \"status\": \"ok\", \"metrics\": {}}"),
            "r.json: benchmarks[0].name: a string that is not UTF-8");
    refused(RUN("{\"name\": \"a\", \"name\": \"b\", \"status\": \"ok\", \"metrics\": {}}"),
            "r.json: benchmarks[0].name: a key given twice");
    refused(RUN(BENCH("{\"instructions\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": [1], \"running\": [2]}}")),
            "metrics.instructions.running[0]: expected a number from 0 to 1, got 2");
    refused(RUN(BENCH("{\"instructions\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": [1], \"running\": []}}")),
            "metrics.instructions.running: 0 values for 1 samples");
    refused(RUN(BENCH("{\"instructions\": {\"unit\": 7, \"backend\": \"perf\", \"samples\": []}}")),
            "metrics.instructions.unit: expected a string, got 7");
    refused(RUN(BENCH("{\"x\": {\"unit\": \"count\", \"backend\": \"perf\"}}")), "metrics.x.samples: missing");
    refused(RUN("{\"name\": null, \"status\": \"ok\", \"metrics\": {}}"), "benchmarks[0].name: expected a string, got null");
    refused(RUN("{\"name\": \"b\", \"status\": \"fine\", \"metrics\": {}}"), "benchmarks[0].status: expected \"ok\" or \"failed\"");
    refused(RUN(BENCH("{}") ", " BENCH("{}")), "benchmarks[1].name: benchmark \"b\" is listed twice");
    refused(RUN("{\"name\": \"b\", \"status\": \"failed\", \"metrics\": {}, \"failure\": {\"run\": \"x\"}}"),
            "benchmarks[0].failure.run: expected a whole number from 0 to 2147483647, got \"x\"");
    refused(RUN("{\"name\": \"b\", \"status\": \"ok\", \"runs\": 1e300, \"metrics\": {}}"), "benchmarks[0].runs: expected a whole number");
    refused(RUN("{\"name\": \"b\", \"status\": \"ok\", \"thresholds\": {\"instructions\": \"lots\"}, \"metrics\": {}}"),
            "benchmarks[0].thresholds.instructions: expected a percentage like \"1%\", got \"lots\"");
    refused(RUN("{\"name\": \"b\", \"status\": \"ok\", \"command\": [\"a\", [[]]], \"metrics\": {}}"),
            "benchmarks[0].command[1]: expected a string, got an array");
    refused("{\"schema\": \"perfgate-run/1\", \"machine\": {\"id\": 5}, \"backend\": \"perf\", \"benchmarks\": []}",
            "r.json: machine.id: expected a string, got 5");
    refused("{\"schema\": \"perfgate-run/1\", \"machine\": {\"id\": \"0123456789abcdef\"}, \"backend\": \"perf\", \"benchmarks\": []}",
            "r.json: machine.id: longer than 12 bytes");
    refused("{\"schema\": \"perfgate-run/1\", \"machine\": {\"id\": \"m\"}, \"benchmarks\": []}", "r.json: backend: missing");
    refused("{\"schema\": \"perfgate-run/1\", \"machine\": {\"id\": \"m\"}, \"backend\": \"perf\", \"dirty\": 1, \"benchmarks\": []}",
            "r.json: dirty: expected true or false, got 1");
    /* Control characters in names are not printed as they are. */
    refused(RUN(BENCH("{\"a\\u001b[2J\": 1}")), "benchmarks[0].metrics.a?[2J: expected an object, got 1");

    /* Schemas: the major this perfgate reads, with any minor; nothing else. */
    refused("{\"schema\": \"perfgate-run/2\", \"benchmarks\": []}", "r.json: schema: unsupported schema \"perfgate-run/2\": this perfgate reads perfgate-run/1");
    refused("{\"schema\": \"perfgate-run/10\", \"benchmarks\": []}", "unsupported schema");
    refused("{\"schema\": \"perfgate-run/1.x\", \"benchmarks\": []}", "unsupported schema");
    refused("{\"benchmarks\": []}", "r.json: schema: missing: not a perfgate run document");
    refused("{\"schema\": \"perfgate-store/2\", \"runs\": []}", "r.json: schema: unsupported schema \"perfgate-store/2\"");
    refused("[1]", "r.json: [0]: expected a run document (an object), got 1");
    refused("{\"runs\": 3, \"schema\": \"perfgate-store/1\"}", "r.json: runs: expected an array, got 3");
    refused("[", "r.json:1:2: invalid JSON");

    /* An array of numbers only is packed by the parser (util/json_scratch.h):
     * where strings or objects belong, its first number is still refused. */
    refused(RUN("{\"name\": \"b\", \"status\": \"ok\", \"command\": [1, 2], \"metrics\": {}}"),
            "r.json: benchmarks[0].command[0]: expected a string, got 1");
    refused("{\"schema\": \"perfgate-run/1\", \"machine\": {\"id\": \"m\"}, \"backend\": \"perf\", \"uncontrolled\": [3], \"benchmarks\": []}",
            "r.json: uncontrolled[0]: expected a string, got 3");
    refused(RUN("4, 5"), "r.json: benchmarks[0]: expected an object, got 4");
    refused("{\"schema\": \"perfgate-store/1\", \"runs\": [7]}", "r.json: runs[0]: expected a run document (an object), got 7");
    refused(RUN(BENCH("{\"instructions\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": [1, 2], \"running\": [1, 0.5, 1]}}")),
            "metrics.instructions.running: 3 values for 2 samples");
    /* Text after the document is not ignored: a file with two is corrupt. */
    refused(RUN("") " {}", "r.json:1:93: invalid JSON");
    /* Nesting: 1000 levels parse (as with cJSON), 1001 do not. */
    char deep[2 * 1001 + 1];
    for (int depth = 1000; depth <= 1001; depth++) {
        memset(deep, '[', (size_t)depth);
        memset(deep + depth, ']', (size_t)depth);
        deep[2 * depth] = '\0';
        refused(deep, depth == 1000 ? "r.json: [0]: expected a run document (an object), got an array" : "r.json:1:1002: invalid JSON");
    }

    /* Numbers read as strtod reads them, packed or not. */
    const char *nums = RUN(BENCH("{\"a\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": "
                                 "[0, -0, 1.5, 2e3, 999999999999999, 1000000000000001, 12345678901234567890, 0.1, 1E-2]}, "
                                 "\"b\": {\"unit\": \"count\", \"backend\": \"perf\", \"samples\": [3], \"running\": [0.25]}}"));
    const double want[] = {0, 0, 1.5, 2000, 999999999999999.0, 1000000000000001.0, 12345678901234567890.0, 0.1, 0.01};
    pg_rundoc_list l = {0};
    CHECK_EQ_INT(pg_rundoc_parse(&l, nums, strlen(nums), "r.json"), 0);
    const pg_rundoc_metric *m = l.n == 1 && l.v[0].nbench == 1 && l.v[0].bench[0].nmetrics == 2 ? l.v[0].bench[0].metrics : NULL;
    CHECK(m && m[0].n == 9 && m[1].n == 1);
    for (size_t i = 0; m && i < 9; i++)
        CHECK(m[0].samples[i] == want[i] && pg_rundoc_metric_running(&m[0], i) == 1.0 && !m[0].running);
    CHECK(m && !signbit(m[0].samples[1]));     /* -0 is read as 0: a count is never negative, nor shown as "-0" */
    CHECK(m && m[1].samples[0] == 3 && pg_rundoc_metric_running(&m[1], 0) == 0.25);
    pg_rundoc_list_free(&l);
    /* Packed arrays all good take one loop (eight digits at a time, then a
     * copy): fractions below 1 still keep a running array, -0 read as 0. */
    const char *packed = RUN(BENCH("{\"c\": {\"unit\": \"count\", \"backend\": \"perf\", "
                                   "\"samples\": [87654321, 123456789012345, 7], \"running\": [1, 0.5, -0]}, "
                                   "\"d\": {\"unit\": \"count\", \"backend\": \"perf\", "
                                   "\"samples\": [10000000, 99999999], \"running\": [1, 1]}}"));
    CHECK_EQ_INT(pg_rundoc_parse(&l, packed, strlen(packed), "r.json"), 0);
    m = l.n == 1 && l.v[0].nbench == 1 && l.v[0].bench[0].nmetrics == 2 ? l.v[0].bench[0].metrics : NULL;
    CHECK(m && m[0].n == 3 && m[0].samples[0] == 87654321 && m[0].samples[1] == 123456789012345.0 && m[0].samples[2] == 7);
    CHECK(m && m[0].running && m[0].running[0] == 1 && m[0].running[1] == 0.5 && m[0].running[2] == 0 &&
          !signbit(m[0].running[2]));
    CHECK(m && m[1].n == 2 && m[1].samples[0] == 10000000 && m[1].samples[1] == 99999999 && !m[1].running);
    pg_rundoc_list_free(&l);
    /* A document not checked strictly (a store's, pg_storedoc_check) may
     * hold a key twice: the first is the one read, as cJSON's lookup finds. */
    const char *twice = "{\"schema\": \"perfgate-store/1\", \"runs\": [" RUN("{\"name\": \"b\", \"status\": \"fine\", "
                        "\"status\": \"ok\", \"metrics\": {}}") "]}";
    CHECK_EQ_INT(pg_storedoc_check(twice, strlen(twice), "s.json"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "s.json: runs[0].benchmarks[0].status: expected \"ok\" or \"failed\"");
    const char *minor = "{\"schema\": \"perfgate-run/1.3\", \"new_key\": {\"x\": [1]}, \"machine\": {\"id\": \"m\"}, \"backend\": \"perf\", \"benchmarks\": []}";
    CHECK_EQ_INT(pg_rundoc_parse(&l, minor, strlen(minor), "r.json"), 0);
    CHECK_EQ_INT(l.n, 1);
    pg_rundoc_list_free(&l);
}

static void test_merge(void)
{
    pg_rundoc into = {0}, round = {0};
    pg_rundoc_bench *b;
    pg_rundoc_metric *m;
    pg_rundoc_add_bench(&b, &into);
    pg_rundoc_set(&b->name, "a");
    b->runs = 1;
    pg_rundoc_metric_get(&m, b, "instructions", "count", "perf");
    pg_rundoc_metric_push(m, 10, 1);
    pg_rundoc_add_bench(&b, &round);
    pg_rundoc_set(&b->name, "a");
    b->runs = 1;
    b->failed = 1;
    pg_rundoc_set(&b->failure.reason, "timeout");
    pg_rundoc_metric_get(&m, b, "instructions", "count", "perf");
    pg_rundoc_metric_push(m, 11, 0.5);
    CHECK_EQ_INT(pg_rundoc_merge_bench(&into, &round.bench[0]), 0);
    pg_rundoc_add_bench(&b, &round);
    pg_rundoc_set(&b->name, "new");
    CHECK_EQ_INT(pg_rundoc_merge_bench(&into, &round.bench[1]), 0);
    CHECK_EQ_INT(into.nbench, 2);
    CHECK_EQ_INT(into.bench[0].runs, 2);
    CHECK_EQ_INT(into.bench[0].metrics[0].n, 2);
    CHECK_NEAR(pg_rundoc_metric_running(&into.bench[0].metrics[0], 1), 0.5, 0);
    CHECK_NEAR(pg_rundoc_metric_running(&into.bench[0].metrics[0], 0), 1.0, 0);
    CHECK_EQ_INT(into.bench[0].failed, 1);
    CHECK_STR(into.bench[0].failure.reason, "timeout");
    CHECK_STR(into.bench[1].name, "new");
    pg_rundoc_free(&into);
    pg_rundoc_free(&round);
}

static void test_registry(void)
{
    /* The perf backend's default events are the registry's perf_default metrics, in order. */
    char list[256] = "";
    const pg_metric_info *m;
    for (size_t i = 0; (m = pg_metric_at(i)); i++)
        if (m->perf_default)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? "," : "", m->name);
    CHECK_STR(list, PG_METRICS_PERF_DEFAULT);
    CHECK_STR(pg_metric_find_alias("Ir")->name, "instructions");
    CHECK(pg_metric_find_alias("instructions") == NULL);
    CHECK(pg_metric_find("Ir") == NULL);
    CHECK_EQ_INT(pg_metric_order("instructions"), 0);
    CHECK(pg_metric_order("cycles") < pg_metric_order("max-rss"));
    CHECK(pg_metric_order("D1mr") > pg_metric_order("max-rss"));
    CHECK_NEAR(pg_metric_threshold("instructions"), 0.1, 0);
    CHECK_NEAR(pg_metric_threshold("context-switches"), 50, 0);
    CHECK_NEAR(pg_metric_threshold("D1mr"), PG_METRIC_OTHER_THRESHOLD, 0);
    CHECK_STR(pg_metric_find("max-rss")->unit, "bytes");
    /* One name each; typos get the nearest name, far-off names none. */
    CHECK_STR(pg_metric_canonical("Ir"), "instructions");
    CHECK_STR(pg_metric_canonical("cs"), "context-switches");
    CHECK_STR(pg_metric_canonical("D1mr"), "D1mr");
    /* a backend's own counters are known as the backends give them (counters/backend.h) */
    const char *const *own = pg_backend_events();
    CHECK(pg_metric_known("D1mr", own) && pg_metric_known("faults", own) && pg_metric_known("wall-time", own));
    CHECK(!pg_metric_known("D1mr", NULL) && pg_metric_known("faults", NULL));
    CHECK(!pg_metric_known("instruction", own) && !pg_metric_known("perf::L1-dcache-load-misses", own));
    char mean[128];
    CHECK_STR(pg_metric_suggest(mean, sizeof mean, "instruction", own, NULL, 0), " (did you mean 'instructions'?)");
    CHECK_STR(pg_metric_suggest(mean, sizeof mean, "instrctions", own, NULL, 0), " (did you mean 'instructions'?)");
    CHECK_STR(pg_metric_suggest(mean, sizeof mean, "cache-miss", own, NULL, 0), " (did you mean 'cache-misses'?)");
    CHECK_STR(pg_metric_suggest(mean, sizeof mean, "d1mx", own, NULL, 0), " (did you mean 'D1mr'?)");
    CHECK_STR(pg_metric_suggest(mean, sizeof mean, "throughput", own, NULL, 0), "");
    const char *extra[] = {"perf::L1-dcache-load-misses"};
    CHECK_STR(pg_metric_suggest(mean, sizeof mean, "perf::L1-dcache-load-miss", own, extra, 1), " (did you mean 'perf::L1-dcache-load-misses'?)");
}

/* A run says what its backends' measurements are: a backend this perfgate
 * does not know is read by what the document says, one it knows must be
 * described as it is, and a document older than "backends" is read by name. */
static void test_backends(void)
{
#define WITH(backends) "{\"schema\": \"perfgate-run/1\", \"machine\": {\"id\": \"m1\"}, \"backend\": \"quantum\", " \
                       "\"backends\": " backends ", \"benchmarks\": []}"
    pg_rundoc_list l = {0};
    const char *t = WITH("{\"quantum\": {\"exact\": true, \"simulated\": false, \"stacks_unit\": \"qubits\"}}");
    CHECK_EQ_INT(pg_rundoc_parse(&l, t, strlen(t), "r.json"), 0);
    pg_rundoc_props p;
    CHECK_EQ_INT(l.n, 1);
    if (l.n == 1) {
        CHECK_EQ_INT(pg_rundoc_backend_props(&p, &l.v[0], "quantum"), 1);
        CHECK_EQ_INT(p.exact, 1);
        CHECK_EQ_INT(p.simulated, 0);
        CHECK_STR(p.stacks_unit, "qubits");
        CHECK_EQ_INT(pg_rundoc_backend_props(&p, &l.v[0], "valgrind"), 1);    /* not in it: known by name */
        CHECK_EQ_INT(p.exact, 1);
        CHECK_EQ_INT(pg_rundoc_backend_props(&p, &l.v[0], "os"), 0);
    }
    pg_rundoc_list_free(&l);
    refused(WITH("{\"perf\": {\"exact\": true, \"simulated\": false, \"stacks_unit\": \"samples\"}}"),
            "r.json: backends.perf: not what the perf backend's measurements are (exact false, simulated false, "
            "stacks in samples)");
    refused(WITH("{\"quantum\": {\"exact\": 1, \"stacks_unit\": \"q\"}}"),
            "r.json: backends.quantum.exact: expected true or false, got 1");
    refused(WITH("{\"quantum\": {\"exact\": true}}"), "r.json: backends.quantum.stacks_unit: missing");
    refused(WITH("[]"), "r.json: backends: expected an object, got an array");
    refused(WITH("{\"a\": {\"stacks_unit\": \"x\"}, \"b\": {\"stacks_unit\": \"x\"}, \"c\": {\"stacks_unit\": \"x\"}, "
                 "\"d\": {\"stacks_unit\": \"x\"}, \"e\": {\"stacks_unit\": \"x\"}}"),
            "r.json: backends.e: more than 4 backends");
#undef WITH
}

int main(void)
{
    test_docs_match_writer();
    test_backends();
    test_reader_refuses();
    test_merge();
    test_registry();
    return pg_check_done();
}
