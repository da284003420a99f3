/* harness/store/rundoc_write.c — the one writer of run and store documents. See
 * rundoc.h. cJSON serializes; every allocation it makes is checked through
 * one flag, so an out-of-memory anywhere fails the whole write instead of
 * leaving a key out. */
#include "harness/store/rundoc.h"
#include "harness/store/rundoc_json.h"
#include "util/error.h"
#include "util/jsonfile.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct writer {
    int oom;
} writer;

/* Adds `item` to `parent` (under `key`, or appended when key is NULL);
 * returns it, or NULL with w->oom set when anything failed. */
static cJSON *put(writer *w, cJSON *parent, const char *key, cJSON *item)
{
    if (!item || !parent) {
        w->oom = 1;
        cJSON_Delete(item);
        return NULL;
    }
    if (!(key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item))) {
        w->oom = 1;
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

static void put_str(writer *w, cJSON *o, const char *key, const char *s)
{
    put(w, o, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

static void put_num(writer *w, cJSON *o, const char *key, double v) { put(w, o, key, cJSON_CreateNumber(v)); }
static void put_bool(writer *w, cJSON *o, const char *key, int v) { put(w, o, key, cJSON_CreateBool(v)); }

static void put_strings(writer *w, cJSON *o, const char *key, const pg_rundoc_strings *l)
{
    cJSON *a = put(w, o, key, cJSON_CreateArray());
    for (size_t i = 0; a && i < l->n; i++)
        put_str(w, a, NULL, l->v[i]);
}

static cJSON *machine_json(writer *w, const pg_machine *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) {
        w->oom = 1;
        return NULL;
    }
    put_str(w, o, "id", m->id);
    put_str(w, o, "cpu_model", m->cpu_model);
    put_str(w, o, "kernel", m->kernel);
    put_num(w, o, "cores", m->cores);
    put_str(w, o, "backend", m->backend);
    put_str(w, o, "backend_version", m->backend_version);
    put_str(w, o, "cache_geometry", m->geometry);
    put_str(w, o, "hostname", m->hostname);
    return o;
}

static void put_failure(writer *w, cJSON *b, const pg_rundoc_failure *f)
{
    cJSON *o = put(w, b, "failure", cJSON_CreateObject());
    if (!o)
        return;
    if (f->reason)
        put_str(w, o, "reason", f->reason);
    if (f->phase)
        put_str(w, o, "phase", f->phase);
    if (f->run)
        put_num(w, o, "run", f->run);
    if (f->timeout > 0)
        put_num(w, o, "timeout", f->timeout);
    else if (f->has_signal)
        put_num(w, o, "signal", f->signal);
    else if (f->has_exit_code)
        put_num(w, o, "exit_code", f->exit_code);
    if (f->stderr_tail)
        put_str(w, o, "stderr_tail", f->stderr_tail);
}

static void put_metrics(writer *w, cJSON *b, const pg_rundoc_bench *bench)
{
    cJSON *ms = put(w, b, "metrics", cJSON_CreateObject());
    for (size_t i = 0; ms && i < bench->nmetrics; i++) {
        const pg_rundoc_metric *m = &bench->metrics[i];
        cJSON *o = put(w, ms, m->name, cJSON_CreateObject());
        if (!o)
            return;
        put_str(w, o, "unit", m->unit);
        put_str(w, o, "backend", m->source);
        cJSON *s = put(w, o, "samples", cJSON_CreateArray());
        cJSON *r = put(w, o, "running", cJSON_CreateArray());
        for (size_t k = 0; s && r && k < m->n; k++) {
            put_num(w, s, NULL, m->samples[k]);
            put_num(w, r, NULL, pg_rundoc_metric_running(m, k));
        }
    }
}

/* Thresholds are written as "PCT%" strings, which the manifest and this
 * reader both accept. */
static void put_thresholds(writer *w, cJSON *b, const pg_thresholds *t)
{
    cJSON *o = put(w, b, "thresholds", cJSON_CreateObject());
    for (size_t i = 0; o && i < t->n; i++) {
        char pct[64];
        snprintf(pct, sizeof pct, "%.15g%%", t->v[i].pct);
        put_str(w, o, t->v[i].metric, pct);
    }
}

static void put_bench(writer *w, cJSON *arr, const pg_rundoc_bench *bench)
{
    cJSON *b = put(w, arr, NULL, cJSON_CreateObject());
    if (!b)
        return;
    put_str(w, b, "name", bench->name);
    if (bench->command) {
        cJSON *cmd = put(w, b, "command", cJSON_CreateArray());
        for (char **a = bench->command; cmd && *a; a++)
            put_str(w, cmd, NULL, *a);
    }
    if (bench->cwd)
        put_str(w, b, "cwd", bench->cwd);
    if (bench->repeat >= 0)
        put_num(w, b, "repeat", bench->repeat);
    if (bench->warmup >= 0)
        put_num(w, b, "warmup", bench->warmup);
    if (bench->timeout > 0)
        put_num(w, b, "timeout", bench->timeout);
    if (bench->has_thresholds)
        put_thresholds(w, b, &bench->thresholds);
    if (bench->stdout_log)
        put_str(w, b, "stdout_log", bench->stdout_log);
    if (bench->stderr_log)
        put_str(w, b, "stderr_log", bench->stderr_log);
    if (bench->failed)
        put_failure(w, b, &bench->failure);
    static const struct { const char *key; size_t off; } stacks[] = {
        {"stacks", offsetof(pg_rundoc_bench, stacks)},
        {"stacks_weight", offsetof(pg_rundoc_bench, stacks_weight)},
        {"stacks_note", offsetof(pg_rundoc_bench, stacks_note)},
        {"stacks_error", offsetof(pg_rundoc_bench, stacks_error)},
        {"reuse_key", offsetof(pg_rundoc_bench, reuse_key)},
        {"exact_varies", offsetof(pg_rundoc_bench, exact_varies)},
    };
    for (size_t i = 0; i < sizeof stacks / sizeof stacks[0]; i++) {
        const char *s = *(char *const *)((const char *)bench + stacks[i].off);
        if (s)
            put_str(w, b, stacks[i].key, s);
    }
    if (bench->stacks_iterations > 0)
        put_num(w, b, "stacks_iterations", bench->stacks_iterations);
    cJSON *reused = bench->reused_run ? put(w, b, "reused", cJSON_CreateObject()) : NULL;
    if (reused) {
        put_str(w, reused, "run", bench->reused_run);
        if (bench->reused_commit)
            put_str(w, reused, "commit", bench->reused_commit);
    }
    if (bench->selected_metrics.n)
        put_strings(w, b, "selected_metrics", &bench->selected_metrics);
    put_num(w, b, "runs", bench->runs);
    put_str(w, b, "status", bench->failed ? "failed" : "ok");
    put_metrics(w, b, bench);
}

static cJSON *run_json(writer *w, const pg_rundoc *r)
{
    cJSON *doc = cJSON_CreateObject();
    if (!doc) {
        w->oom = 1;
        return NULL;
    }
    put_str(w, doc, "schema", PG_RUNDOC_SCHEMA);
    if (r->perfgate_version)
        put_str(w, doc, "perfgate_version", r->perfgate_version);
    if (r->id)
        put_str(w, doc, "id", r->id);
    put_str(w, doc, "commit", r->commit);
    put_bool(w, doc, "dirty", r->dirty);
    if (r->start_time)
        put_str(w, doc, "start_time", r->start_time);
    if (r->session)
        put_str(w, doc, "session", r->session);
    if (r->load >= 0)
        put_num(w, doc, "load", r->load);
    put(w, doc, "machine", machine_json(w, &r->machine));
    put_str(w, doc, "backend", r->backend ? r->backend : "");
    cJSON *backends = r->nbackends ? put(w, doc, "backends", cJSON_CreateObject()) : NULL;
    for (size_t i = 0; backends && i < r->nbackends; i++) {
        cJSON *o = put(w, backends, r->backends[i].name, cJSON_CreateObject());
        if (o) {
            put_bool(w, o, "exact", r->backends[i].exact);
            put_bool(w, o, "simulated", r->backends[i].simulated);
            put_str(w, o, "stacks_unit", r->backends[i].stacks_unit);
        }
    }
    cJSON *settings = put(w, doc, "settings", cJSON_CreateObject());
    if (settings) {
        put(w, settings, "cpu", r->cpu >= 0 ? cJSON_CreateNumber(r->cpu) : cJSON_CreateNull());
        put_bool(w, settings, "aslr_disabled", r->aslr_disabled);
        if (r->stdin_path)
            put_str(w, settings, "stdin", r->stdin_path);
        if (r->events) {
            put_str(w, settings, "events", r->events);
            put_bool(w, settings, "user_only", r->user_only);
        }
        if (r->has_native)
            put_bool(w, settings, "native", r->native);
    }
    if (r->shard_count > 0) {
        cJSON *shard = put(w, doc, "shard", cJSON_CreateObject());
        if (shard) {
            put_num(w, shard, "index", r->shard_index);
            put_num(w, shard, "count", r->shard_count);
        }
    }
    put_strings(w, doc, "uncontrolled", &r->uncontrolled);
    put_strings(w, doc, "notices", &r->notices);
    cJSON *benchmarks = put(w, doc, "benchmarks", cJSON_CreateArray());
    for (size_t i = 0; benchmarks && i < r->nbench; i++)
        put_bench(w, benchmarks, &r->bench[i]);
    if (r->end_time)
        put_str(w, doc, "end_time", r->end_time);
    return doc;
}

/* Prints `doc` (consumed) as text ending in a newline. */
static int print(char **text, cJSON *doc, writer *w)
{
    /* pg_json_print: names and logs that are not UTF-8 become U+FFFD, so the
     * document is valid JSON whatever the bytes (util/text.h). */
    char *t = w->oom ? NULL : pg_json_print(doc, NULL);
    cJSON_Delete(doc);
    if (!t)
        return pg_error_set(PG_ENOMEM, "out of memory writing a result document");
    *text = t;
    return 0;
}

int pg_rundoc_write(char **text, const pg_rundoc *r)
{
    writer w = {0};
    cJSON *doc = run_json(&w, r);
    return print(text, doc, &w);
}

int pg_rundoc_list_write(char **text, const pg_rundoc_list *l)
{
    writer w = {0};
    cJSON *arr = cJSON_CreateArray();
    w.oom = !arr;
    for (size_t i = 0; arr && i < l->n; i++)
        put(&w, arr, NULL, run_json(&w, &l->v[i]));
    return print(text, arr, &w);
}

int pg_storedoc_append(char **text, const char *old, size_t old_len, const char *path, const char *commit,
                       const char *machine_id, const pg_rundoc *run)
{
    writer w = {0};
    cJSON *doc;
    if (old) {
        int rc = pg_json_parse(&doc, old, old_len, path);
        if (rc == 0 && (rc = pg_rundoc_check_store_json(doc, path)) < 0)
            cJSON_Delete(doc);
        if (rc == PG_EINVAL)
            return pg_error_wrap(rc, "corrupt result file (move it away or delete it)");
        if (rc < 0)
            return rc;
    } else {
        doc = cJSON_CreateObject();
        w.oom = !doc;
        put_str(&w, doc, "schema", PG_STOREDOC_SCHEMA);
        put_str(&w, doc, "commit", commit);
        put_str(&w, doc, "machine_id", machine_id);
        put(&w, doc, "runs", cJSON_CreateArray());
    }
    cJSON *runs = cJSON_GetObjectItemCaseSensitive(doc, "runs"), *node = run_json(&w, run);
    /* A run the reader refuses (a benchmark named twice) would make the
     * whole file unreadable, every earlier run in it with it: refused here,
     * before anything is written. */
    /* Checked as it will be written: a name that is not UTF-8 is printed
     * with U+FFFD, and two such names may become one. */
    int rc = node && pg_json_repair_utf8(node) < 0 ? pg_error_set(PG_ENOMEM, "out of memory") : 0;
    if (rc == 0 && node && !w.oom)
        rc = pg_rundoc_read_run_json(NULL, node, path, (size_t)cJSON_GetArraySize(runs));
    if (rc < 0) {
        cJSON_Delete(node);
        cJSON_Delete(doc);
        return pg_error_wrap(rc, "cannot store results: the run would make the file unreadable");
    }
    put(&w, runs, NULL, node);
    return print(text, doc, &w);
}
