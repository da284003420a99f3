/* counters/gbench.c — Google Benchmark runs: the library's JSON report, and
 * callgrind dumps at the edges of its timed region. See gbench.h. */
#include "counters/gbench.h"
#include "counters/callgrind.h"
#include "util/array.h"
#include "util/error.h"
#include "util/jsonfile.h"
#include "util/strindex.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The timed region's edges. The patterns end in '*' because callgrind names a
 * C++ function with its parameter list ("benchmark::State::PauseTiming()"). */
#define EDGE_START "benchmark::State::StartKeepRunning"
#define EDGE_RESUME "benchmark::State::ResumeTiming"
#define EDGE_PAUSE "benchmark::State::PauseTiming"
#define EDGE_FINISH "benchmark::State::FinishKeepRunning"

/* Dumps at the timed region's edges: what both counting and stacks split on. */
#define EDGE_DUMPS "--dump-after=" EDGE_START "*", "--dump-after=" EDGE_RESUME "*", \
                   "--dump-before=" EDGE_PAUSE "*", "--dump-before=" EDGE_FINISH "*"

/* `argv` with PG_GBENCH_MIN_TIME_ARG appended (last: it wins over an earlier
 * one), sharing argv's strings; free the vector only. */
static char **with_min_time(char *const *argv)
{
    size_t n = 0;
    while (argv[n])
        n++;
    char **v = calloc(n + 2, sizeof *v);
    if (v) {
        memcpy(v, argv, n * sizeof *argv);
        v[n] = PG_GBENCH_MIN_TIME_ARG;
    }
    return v;
}

int pg_gbench_wrap_stacks(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir)
{
    static const char *const edges[] = {EDGE_DUMPS, NULL};
    char **v = with_min_time(argv);
    if (!v)
        return pg_error_set(PG_ENOMEM, "out of memory");
    int rc = pg_callgrind_wrap_more(vg, out_argv, v, outdir, edges);
    free(v);
    return rc;
}

int pg_gbench_wrap_callgrind(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir)
{
    char outfile[PATH_MAX], logfile[PATH_MAX];
    snprintf(outfile, sizeof outfile, "--callgrind-out-file=%s/callgrind.out.%%p", outdir);
    snprintf(logfile, sizeof logfile, "--log-file=%s/valgrind.log.%%p", outdir);
    const char *const opts[] = {
        "--tool=callgrind", "--dump-instr=no", "--compress-strings=no", "--compress-pos=no", EDGE_DUMPS,
        "-q", outfile, logfile, NULL,
    };
    char **withmin = with_min_time(argv);
    if (!withmin)
        return pg_error_set(PG_ENOMEM, "out of memory");
    int rc = pg_valgrind_wrap_tool(vg, out_argv, withmin, opts);
    free(withmin);
    return rc;
}

static int trigger_of(const char *line, size_t len)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)len, line);
    if (strstr(buf, "--dump-after=" EDGE_START) || strstr(buf, "--dump-after=" EDGE_RESUME))
        return PG_GBENCH_TRIGGER_BEGIN;
    if (strstr(buf, "--dump-before=" EDGE_PAUSE))
        return PG_GBENCH_TRIGGER_END_PAUSE;
    if (strstr(buf, "--dump-before=" EDGE_FINISH))
        return PG_GBENCH_TRIGGER_END_BATCH;
    return PG_GBENCH_TRIGGER_OTHER;
}

int pg_gbench_parse_dump(int *part, int *trigger, unsigned long long *ir, const char *text, const char *path)
{
    int have_part = 0, have_ir = 0;
    *part = 0;
    *trigger = PG_GBENCH_TRIGGER_OTHER;
    *ir = 0;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (!strncmp(line, "part:", 5)) {
            *part = atoi(line + 5);
            have_part = *part > 0;
        } else if (!strncmp(line, "desc: Trigger:", 14)) {
            *trigger = trigger_of(line, len);
        } else if (!strncmp(line, "events:", 7)) {
            /* Only Ir is collected (no cache simulation): the first column. */
            if (strncmp(line + 7 + strspn(line + 7, " "), "Ir", 2))
                return pg_error_set(PG_EINVAL, "%s: the first event is not Ir", path);
        } else if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7)) {
            const char *p = line + (line[0] == 's' ? 8 : 7);
            char *end;
            errno = 0;
            *ir = strtoull(p, &end, 10);
            if (end == p || errno)
                return pg_error_set(PG_EINVAL, "%s: unreadable %s line", path, line[0] == 's' ? "summary" : "totals");
            have_ir = 1;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!have_part || !have_ir)
        return pg_error_set(PG_EINVAL, "%s: not a callgrind dump (no %s)", path, have_part ? "summary" : "part");
    return 0;
}

typedef struct dump { int part, trigger; unsigned long long ir; } dump;

static int by_part(const void *a, const void *b)
{
    return ((const dump *)a)->part - ((const dump *)b)->part;
}

/* Sums the counted segments of each batch (see gbench.h) from dumps in part order. */
static int segments_of(pg_gbench_segments *out, const dump *d, size_t n)
{
    size_t cap = 0;
    unsigned long long batch = 0;
    int prev = PG_GBENCH_TRIGGER_OTHER;
    for (size_t i = 0; i < n; i++) {
        int t = d[i].trigger;
        if (prev == PG_GBENCH_TRIGGER_BEGIN && (t == PG_GBENCH_TRIGGER_END_PAUSE || t == PG_GBENCH_TRIGGER_END_BATCH))
            batch += d[i].ir;
        if (t == PG_GBENCH_TRIGGER_END_BATCH) {
            int rc = pg_array_grow(&out->ir, &cap, out->n, sizeof *out->ir, 8);
            if (rc < 0)
                return rc;
            out->ir[out->n++] = batch;
            batch = 0;
        }
        prev = t;
    }
    return 0;
}

typedef struct dumps { dump *v; size_t n, cap; } dumps;

/* A dump's text kept, for the stacks of the timed region. */
typedef struct text_dump { int part, trigger; char *text; size_t len; char path[PATH_MAX]; } text_dump;
typedef struct text_dumps { text_dump *v; size_t n, cap; } text_dumps;

static int add_text_dump(void *ctx, const char *text, size_t len, const char *path)
{
    text_dumps *d = ctx;
    int rc = pg_array_grow(&d->v, &d->cap, d->n, sizeof *d->v, 16);
    unsigned long long ir;
    text_dump *t = rc == 0 ? &d->v[d->n] : NULL;
    if (rc == 0 && (rc = pg_gbench_parse_dump(&t->part, &t->trigger, &ir, text, path)) == 0) {
        if (!(t->text = malloc(len + 1)))
            return pg_error_set(PG_ENOMEM, "out of memory");
        memcpy(t->text, text, len);
        t->text[len] = '\0';
        t->len = len;
        snprintf(t->path, sizeof t->path, "%s", path);
        d->n++;
    }
    return rc;
}

static int by_text_part(const void *a, const void *b)
{
    return ((const text_dump *)a)->part - ((const text_dump *)b)->part;
}

int pg_gbench_collect_stacks(pg_folded *f, double *iterations, const char *outdir, const char *report, size_t len)
{
    pg_gbench_report rep = {0};
    text_dumps d = {0};
    *iterations = 0;
    int rc = pg_valgrind_outputs(outdir, "callgrind.out.", add_text_dump, &d);
    if (rc >= 0)
        rc = pg_gbench_parse_json(&rep, NULL, "valgrind", report, len);
    if (rc >= 0 && rep.error)
        rc = pg_error_set(PG_EINVAL, "the benchmark reported an error: %s", rep.error);
    if (rc >= 0) {
        qsort(d.v, d.n, sizeof *d.v, by_text_part);
        size_t batches = 0, batch = 0;
        for (size_t i = 0; i < d.n; i++)
            batches += d.v[i].trigger == PG_GBENCH_TRIGGER_END_BATCH;
        if (batches < rep.runs || !(rep.iterations > 0))
            rc = pg_error_set(PG_EINVAL, "callgrind saw %zu timed batches for %zu reported runs", batches, rep.runs);
        /* The timed segments of the reported runs' batches (the last ones):
         * exactly what the per-iteration count sums. */
        int prev = PG_GBENCH_TRIGGER_OTHER;
        for (size_t i = 0; i < d.n && rc >= 0; i++) {
            int t = d.v[i].trigger;
            if (batch >= batches - rep.runs && prev == PG_GBENCH_TRIGGER_BEGIN &&
                (t == PG_GBENCH_TRIGGER_END_PAUSE || t == PG_GBENCH_TRIGGER_END_BATCH)) {
                long long got = pg_callgrind_parse(f, d.v[i].text, d.v[i].len, d.v[i].path);
                rc = got < 0 ? (int)got : 0;
            }
            batch += t == PG_GBENCH_TRIGGER_END_BATCH;
            prev = t;
        }
        if (rc >= 0)
            *iterations = rep.iterations;
    }
    for (size_t i = 0; i < d.n; i++)
        free(d.v[i].text);
    free(d.v);
    free(rep.error);
    return rc < 0 ? rc : 0;
}

static int add_dump(void *ctx, const char *text, size_t len, const char *path)
{
    (void)len;
    dumps *d = ctx;
    int rc = pg_array_grow(&d->v, &d->cap, d->n, sizeof *d->v, 16);
    if (rc == 0 && (rc = pg_gbench_parse_dump(&d->v[d->n].part, &d->v[d->n].trigger, &d->v[d->n].ir, text, path)) == 0)
        d->n++;
    return rc;
}

int pg_gbench_collect_callgrind(pg_gbench_segments *out, const char *outdir)
{
    memset(out, 0, sizeof *out);
    dumps d = {0};
    int rc = pg_valgrind_outputs(outdir, "callgrind.out.", add_dump, &d);
    if (rc >= 0) {
        qsort(d.v, d.n, sizeof *d.v, by_part);
        rc = segments_of(out, d.v, d.n);
    }
    free(d.v);
    if (rc < 0)
        pg_gbench_segments_free(out);
    return rc;
}

void pg_gbench_segments_free(pg_gbench_segments *s)
{
    free(s->ir);
    memset(s, 0, sizeof *s);
}

static double ns_per(const char *unit)
{
    if (!unit || !strcmp(unit, "ns"))
        return 1;
    if (!strcmp(unit, "us"))
        return 1e3;
    if (!strcmp(unit, "ms"))
        return 1e6;
    if (!strcmp(unit, "s"))
        return 1e9;
    return 0;
}

/* The keys of a run that are not counters. */
static int is_run_key(const char *k)
{
    static const char *const keys[] = {
        "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
        "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
        "aggregate_name", "aggregate_unit", "error_occurred", "error_message", "label", NULL,
    };
    for (const char *const *p = keys; *p; p++)
        if (!strcmp(k, *p))
            return 1;
    return 0;
}

/* What perfgate takes from run `i` of the report, checked before it is taken:
 * a number that is not finite (cJSON reads 1e999 as infinity) would be
 * stored as null and damage the store; a key given twice would be two
 * samples of one run; a counter's name must fit its metric's name
 * ("counter:NAME"), or two would be cut into one. */
static int check_run(const cJSON *run, size_t i)
{
    static const size_t name_max = sizeof ((pg_reading *)0)->name - sizeof "counter:";
    if (!cJSON_IsObject(run))
        return pg_error_set(PG_EINVAL, "the Google Benchmark JSON report: benchmarks[%zu] is not an object", i);
    pg_strindex keys = {0};
    int rc = 0;
    for (const cJSON *c = run->child; c && rc == 0; c = c->next) {
        size_t seen;
        if (pg_strindex_get(&keys, c->string, &seen))
            rc = pg_error_set(PG_EINVAL, "the Google Benchmark JSON report: benchmarks[%zu] has \"%s\" twice", i, c->string);
        else if (cJSON_IsNumber(c) && !isfinite(c->valuedouble))
            rc = pg_error_set(PG_EINVAL, "the Google Benchmark JSON report: benchmarks[%zu].%s is not a finite number", i,
                              c->string);
        else if (cJSON_IsNumber(c) && !is_run_key(c->string) && strlen(c->string) > name_max)
            rc = pg_error_set(PG_EINVAL, "the Google Benchmark JSON report: benchmarks[%zu]: the counter name \"%.40s...\" "
                              "is longer than %zu bytes", i, c->string, name_max);
        else
            rc = pg_strindex_put(&keys, c->string, 0);
    }
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(run, "iterations");
    if (rc == 0 && cJSON_IsNumber(it) && it->valuedouble < 0)
        rc = pg_error_set(PG_EINVAL, "the Google Benchmark JSON report: benchmarks[%zu].iterations is negative", i);
    pg_strindex_free(&keys);
    return rc;
}

static int add_run(pg_readings *r, const char *backend, const cJSON *run)
{
    double per = ns_per(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "time_unit")));
    const cJSON *rt = cJSON_GetObjectItemCaseSensitive(run, "real_time");
    const cJSON *ct = cJSON_GetObjectItemCaseSensitive(run, "cpu_time");
    int rc = 0;
    if (per > 0 && cJSON_IsNumber(rt))
        rc = pg_readings_add(r, "real-time", "ns", backend, rt->valuedouble * per, 1.0);
    if (rc == 0 && per > 0 && cJSON_IsNumber(ct))
        rc = pg_readings_add(r, "cpu-time", "ns", backend, ct->valuedouble * per, 1.0);
    for (const cJSON *c = run->child; c && rc == 0; c = c->next) {
        if (!cJSON_IsNumber(c) || is_run_key(c->string))
            continue;
        char name[96];
        snprintf(name, sizeof name, "counter:%s", c->string);
        rc = pg_readings_add(r, name, "count", backend, c->valuedouble, 1.0);
    }
    return rc;
}

int pg_gbench_parse_json(pg_gbench_report *rep, pg_readings *readings, const char *backend,
                         const char *text, size_t len)
{
    memset(rep, 0, sizeof *rep);
    /* The report is the first line that opens an object; what a benchmark
     * printed before it is not part of it. */
    const char *p = text;
    while (p && p < text + len && *p != '{') {
        p = memchr(p, '\n', (size_t)(text + len - p));
        p = p ? p + 1 : NULL;
    }
    if (!p || p >= text + len)
        return pg_error_set(PG_EINVAL, "no Google Benchmark JSON report on stdout");
    cJSON *doc = NULL;
    int rc = pg_json_parse(&doc, p, (size_t)(text + len - p), "the Google Benchmark JSON report");
    if (rc < 0)
        return rc;
    const cJSON *benches = cJSON_GetObjectItemCaseSensitive(doc, "benchmarks");
    if (!cJSON_IsArray(benches))
        rc = pg_error_set(PG_EINVAL, "the Google Benchmark JSON report has no \"benchmarks\" array");
    const cJSON *run;
    size_t idx = 0;
    cJSON_ArrayForEach(run, benches) {
        if (rc < 0)
            break;
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "run_type"));
        if (type && strcmp(type, "iteration")) {
            idx++;
            continue;   /* aggregates (mean, median, stddev) are computed from the runs again */
        }
        if ((rc = check_run(run, idx++)) < 0)
            break;
        const char *err = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "error_message"));
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "error_occurred")) && !rep->error)
            rep->error = strdup(err ? err : "error_occurred");
        int threads = pg_json_int(cJSON_GetObjectItemCaseSensitive(run, "threads"), 1);
        rep->threads = threads > rep->threads ? threads : rep->threads;
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(run, "iterations");
        rep->iterations += cJSON_IsNumber(it) ? it->valuedouble : 0;
        rep->runs++;
        if (readings)
            rc = add_run(readings, backend, run);
    }
    if (rc == 0 && rep->runs == 0)
        rc = pg_error_set(PG_EINVAL, "the Google Benchmark JSON report lists no run (did the filter match?)");
    cJSON_Delete(doc);
    if (rc < 0) {
        free(rep->error);
        rep->error = NULL;
    }
    return rc;
}

int pg_gbench_per_iteration(double *out, const pg_gbench_segments *seg, const pg_gbench_report *rep)
{
    /* Under valgrind the CPU is valgrind's: it emulates no AVX-512 (and
     * reports CPU features of its own), so a benchmark that checks for what
     * it needs may skip itself only here. */
    if (rep->error)
        return pg_error_set(PG_EINVAL, "the benchmark reported an error: %s (under valgrind: it emulates no AVX-512 and "
                            "only some CPU features, so a benchmark that checks the CPU may skip itself there; "
                            "docs/google-benchmark.md)", rep->error);
    if (rep->threads > 1)
        return pg_error_set(PG_EINVAL, "a benchmark on %d threads cannot be counted per iteration under valgrind "
                            "(its threads' timed regions overlap); run it with --backend perf", rep->threads);
    if (seg->n < rep->runs || !(rep->iterations > 0))
        return pg_error_set(PG_EINVAL, "callgrind saw %zu timed batches for %zu reported runs: not a Google Benchmark "
                            "timing loop perfgate can count", seg->n, rep->runs);
    unsigned long long sum = 0;
    for (size_t i = seg->n - rep->runs; i < seg->n; i++)
        sum += seg->ir[i];
    *out = (double)sum / rep->iterations;
    return 0;
}
