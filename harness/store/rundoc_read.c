/* harness/store/rundoc_read.c — the one validating reader of run and store
 * documents. See rundoc.h.
 *
 * Every value is checked for its type before it is used, and every error
 * names the file, the JSON path of the value and what was expected:
 *     a.json: runs[0].benchmarks[3].metrics.instructions.samples[2]: expected a number, got "x"
 */
#include "harness/store/rundoc.h"
#include "harness/store/rundoc_json.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/json_scratch.h"
#include "util/jsonfile.h"
#include "util/strindex.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The benchmarks of one run, read as the document streams in, before the
 * run's own fields (which may come after them): with the first error among
 * them, said only once the run's own fields are read, so that errors come
 * in the order a reader of the whole tree would find them. */
typedef struct shell {
    size_t record;          /* the run's index in its array (SIZE_MAX: the root) */
    pg_rundoc_bench *bench;
    size_t nbench, capbench;
    pg_strindex names;
    int rc;
    char *err;
} shell;

/* Shells exist only for runs that have benchmarks, in document order: a
 * document of a million empty runs costs no shell each. Past a run whose
 * benchmarks hold an error, later runs' are not read: the reading of the
 * runs stops at that run, or before. */
typedef struct streamed {
    const char *file;
    shell root;             /* the root object's own "benchmarks" */
    shell *rec;             /* "runs"[i] or the root array's [i] that have benchmarks, i ascending */
    size_t n, cap;
    int failed;             /* one of rec holds an error: the rest are not read */
} streamed;

typedef struct reader {
    const char *file;
    char path[512];
    size_t len;
    pg_strindex *names;     /* the current run's benchmark names (a suite may hold 10^4) */
    streamed *st;           /* the document was streamed: its runs' benchmarks are here */
    shell *sh;              /* ...and the current run's are these (NULL: it has none) */
} reader;

/* Appends ".key" (or "key" at the top) to the path; returns the length to pop back to. */
static size_t push_key(reader *r, const char *key)
{
    size_t old = r->len;
    if (r->len && r->len + 1 < sizeof r->path)
        r->path[r->len++] = '.';
    /* Names are data: control characters are not printed as they are. */
    for (const char *k = key; *k && r->len + 1 < sizeof r->path; k++)
        r->path[r->len++] = ((unsigned char)*k < 0x20 || *k == 0x7f) ? '?' : *k;
    r->path[r->len] = '\0';
    return old;
}

static size_t push_index(reader *r, size_t i)
{
    size_t old = r->len;
    pg_json_path_index(r->path, &r->len, sizeof r->path, i);
    return old;
}

static void pop(reader *r, size_t old)
{
    r->len = old;
    r->path[old] = '\0';
}

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pg_error_set(PG_EINVAL, "%s: %s: %s", r->file, r->len ? r->path : "top level", msg);
}

/* What a value is, for "expected X, got Y". */
static const char *describe(char *buf, size_t len, const cJSON *v)
{
    if (cJSON_IsString(v)) {
        size_t k = 0;
        buf[k++] = '"';
        for (const char *s = v->valuestring; *s && k + 5 < len; s++)
            buf[k++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s;
        if (strlen(v->valuestring) > k - 1)
            buf[k++] = '.', buf[k++] = '.', buf[k++] = '.';
        buf[k++] = '"';
        buf[k] = '\0';
    } else if (cJSON_IsNumber(v)) {
        snprintf(buf, len, "%.17g", v->valuedouble);
    } else {
        snprintf(buf, len, "%s", cJSON_IsNull(v) ? "null" : cJSON_IsTrue(v) ? "true" : cJSON_IsFalse(v) ? "false"
                                 : cJSON_IsArray(v) ? "an array" : cJSON_IsObject(v) ? "an object" : "nothing");
    }
    return buf;
}

static int expected(reader *r, const char *what, const cJSON *v)
{
    char got[64];
    return fail(r, "expected %s, got %s", what, describe(got, sizeof got, v));
}

static int oom(void) { return pg_error_set(PG_ENOMEM, "out of memory reading a result document"); }

/* A string or key that held a "\u0000" (util/json_scratch.h): C would see
 * a shorter name or text than the one written, and names are any bytes but
 * '/' and newline, never NUL (docs/manifest.md, "Names"). */
static int holds_nul(reader *r)
{
    return fail(r, "holds a NUL byte (\\u0000), which no name or text may");
}

/* A packed array (util/json_scratch.h: numbers only) where values of another
 * kind were expected: its first number is the one refused. 0 for any other. */
static int packed_refused(reader *r, const cJSON *a, const char *what)
{
    const double *v;
    size_t n;
    if (!pg_json_packed(a, &v, &n))
        return 0;
    cJSON first = {.type = cJSON_Number, .valuedouble = v[0]};
    size_t old = push_index(r, 0);
    int rc = expected(r, what, &first);
    pop(r, old);
    return rc;
}

/* --- typed getters: each checks the key `key` of object `o` -------------- */

/* A string into *dst (kept as it is when the key is missing and not `required`). */
static int get_str(char **dst, reader *r, const cJSON *o, const char *key, int required, int nullable)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    size_t old = push_key(r, key);
    int rc = 0;
    if (!v) {
        if (required)
            rc = fail(r, "missing");
    } else if (nullable && cJSON_IsNull(v)) {
        free(*dst);
        *dst = NULL;
    } else if (!cJSON_IsString(v)) {
        rc = expected(r, nullable ? "a string or null" : "a string", v);
    } else if (pg_json_cut(v)) {
        rc = holds_nul(r);
    } else if (pg_rundoc_set(dst, v->valuestring) < 0) {
        rc = oom();
    }
    pop(r, old);
    return rc;
}

/* A string into a fixed buffer (the machine fields). */
static int get_fixed(char *dst, size_t len, reader *r, const cJSON *o, const char *key, int required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    size_t old = push_key(r, key);
    int rc = 0;
    if (!v) {
        if (required)
            rc = fail(r, "missing");
    } else if (!cJSON_IsString(v)) {
        rc = expected(r, "a string", v);
    } else if (pg_json_cut(v)) {
        rc = holds_nul(r);
    } else if (strlen(v->valuestring) >= len) {
        rc = fail(r, "longer than %zu bytes", len - 1);
    } else {
        snprintf(dst, len, "%s", v->valuestring);
    }
    pop(r, old);
    return rc;
}

static int number_ok(const cJSON *v, double min, double max, int whole)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= min && v->valuedouble <= max &&
           (!whole || v->valuedouble == floor(v->valuedouble));
}

/* -0 is 0 (docs/result-schema.md: samples are >= 0, and -0 == 0), and is
 * read as 0: a count is never negative, and -0 was shown as "-0". Adding
 * +0 does it in one instruction (-0 + 0 is +0; any other x + 0 is x), on
 * the path of a document's 10^6 numbers. */
static double zero_signless(double d)
{
    return d + 0.0;
}

static int check_number(reader *r, const cJSON *v, double *out, double min, double max, int whole)
{
    if (number_ok(v, min, max, whole)) {
        *out = zero_signless(v->valuedouble);
        return 0;
    }
    /* Only a bad value pays for the words (a document holds 10^6 numbers). */
    char what[96];
    if (whole)
        snprintf(what, sizeof what, "a whole number from %.0f to %.0f", min, max);
    else if (isinf(min))
        snprintf(what, sizeof what, "a finite number");
    else if (isinf(max))
        snprintf(what, sizeof what, "a finite number >= %g", min);
    else
        snprintf(what, sizeof what, "a number from %g to %g", min, max);
    return expected(r, cJSON_IsNumber(v) || whole ? what : "a number", v);
}

/* Element i of array `key`, a number in [min, max]: the path is made only
 * for the message of a bad one (a document holds 10^6 of them). */
static int element(reader *r, const char *key, size_t i, const cJSON *v, double *out, double min, double max)
{
    if (number_ok(v, min, max, 0)) {
        *out = zero_signless(v->valuedouble);
        return 0;
    }
    size_t old = push_key(r, key);
    push_index(r, i);
    int rc = check_number(r, v, out, min, max, 0);
    pop(r, old);
    return rc;
}

/* An int in [min, INT_MAX]; *present (when given) says whether the key was there. */
static int get_int(int *dst, int *present, reader *r, const cJSON *o, const char *key, int min, int nullable)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (present)
        *present = v && !cJSON_IsNull(v);
    if (!v || (nullable && cJSON_IsNull(v)))
        return 0;
    size_t old = push_key(r, key);
    double d;
    int rc = check_number(r, v, &d, min, INT_MAX, 1);
    if (rc == 0)
        *dst = (int)d;
    pop(r, old);
    return rc;
}

static int get_double(double *dst, reader *r, const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return 0;
    size_t old = push_key(r, key);
    int rc = check_number(r, v, dst, 0, HUGE_VAL, 0);
    pop(r, old);
    return rc;
}

static int get_bool(int *dst, reader *r, const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return 0;
    if (!cJSON_IsBool(v)) {
        size_t old = push_key(r, key);
        int rc = expected(r, "true or false", v);
        pop(r, old);
        return rc;
    }
    *dst = cJSON_IsTrue(v);
    return 0;
}

/* The value of `key`, which must be an object (or an array when `array`);
 * NULL when missing (an error when `required`). */
static int get_container(const cJSON **out, reader *r, const cJSON *o, const char *key, int array, int required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NULL;
    if (!v && !required)
        return 0;
    size_t old = push_key(r, key);
    int rc = 0;
    if (!v)
        rc = fail(r, "missing");
    else if (array ? !cJSON_IsArray(v) : !cJSON_IsObject(v))
        rc = expected(r, array ? "an array" : "an object", v);
    else
        *out = v;
    pop(r, old);
    return rc;
}

static int get_strings(pg_rundoc_strings *dst, reader *r, const cJSON *o, const char *key)
{
    const cJSON *a;
    int rc = get_container(&a, r, o, key, 1, 0);
    size_t old = push_key(r, key), i = 0;
    const cJSON *v;
    if (rc == 0)
        rc = packed_refused(r, a, "a string");
    cJSON_ArrayForEach(v, a) {
        if (rc < 0)
            break;
        size_t o2 = push_index(r, i++);
        if (!cJSON_IsString(v))
            rc = expected(r, "a string", v);
        else if (pg_json_cut(v))
            rc = holds_nul(r);
        else if (pg_rundoc_strings_add(dst, v->valuestring) < 0)
            rc = oom();
        pop(r, o2);
    }
    pop(r, old);
    return rc;
}

/* --- the document -------------------------------------------------------- */

/* "perfgate-run/1", or a later minor version of it ("perfgate-run/1.3"). */
int pg_schema_ok(const char *s, const char *want)
{
    size_t n = strlen(want);
    if (strncmp(s, want, n))
        return 0;
    if (!s[n])
        return 1;
    if (s[n] != '.' || !s[n + 1])
        return 0;
    for (const char *p = s + n + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

static int check_schema(reader *r, const cJSON *o, const char *want, const char *what)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "schema");
    size_t old = push_key(r, "schema");
    int rc = 0;
    if (!v)
        rc = fail(r, "missing: not a %s (expected \"%s\")", what, want);
    else if (!cJSON_IsString(v))
        rc = expected(r, "a string", v);
    else if (!pg_schema_ok(v->valuestring, want)) {
        char got[64];
        rc = fail(r, "unsupported schema %s: this perfgate reads %s", describe(got, sizeof got, v), want);
    }
    pop(r, old);
    return rc;
}

static int read_metric(pg_rundoc_bench *b, reader *r, const cJSON *jm)
{
    if (!cJSON_IsObject(jm))
        return expected(r, "an object", jm);
    if (!*jm->string)
        return fail(r, "a metric needs a name");
    if (pg_json_cut(jm))
        return holds_nul(r);
    if (pg_rundoc_metric_find(b, jm->string))
        return fail(r, "metric named twice");
    char *unit = NULL, *source = NULL;
    int rc = get_str(&unit, r, jm, "unit", 1, 0);
    if (rc == 0)
        rc = get_str(&source, r, jm, "backend", 1, 0);
    pg_rundoc_metric *m = NULL;
    if (rc == 0)
        rc = pg_rundoc_metric_get(&m, b, jm->string, unit, source);
    free(unit);
    free(source);
    const cJSON *samples = NULL, *running = NULL;
    if (rc == 0)
        rc = get_container(&samples, r, jm, "samples", 1, 1);
    if (rc == 0)
        rc = get_container(&running, r, jm, "running", 1, 0);
    size_t n = pg_json_array_len(samples), nr = pg_json_array_len(running);
    if (rc == 0 && running && nr != n) {
        size_t old = push_key(r, "running");
        rc = fail(r, "%zu values for %zu samples", nr, n);
        pop(r, old);
    }
    /* Each array is packed (numbers only: the usual case) or nodes. */
    const double *ps = NULL, *pr = NULL;
    size_t k;
    pg_json_packed(samples, &ps, &k);
    pg_json_packed(running, &pr, &k);
    const cJSON *v = samples && !ps ? samples->child : NULL, *rv = running && !pr ? running->child : NULL;
    if (rc == 0 && n)
        rc = pg_rundoc_metric_reserve(m, n);
    for (size_t i = 0; i < n && rc == 0; i++) {
        cJSON ns = {.type = cJSON_Number}, nr1 = {.type = cJSON_Number};
        const cJSON *sv = v, *rvv = rv;
        if (ps)
            ns.valuedouble = ps[i], sv = &ns;
        if (pr)
            nr1.valuedouble = pr[i], rvv = &nr1;
        double s, run = 1.0;
        /* Every metric counts or measures something: a negative sample is
         * not one, and would turn a verdict around. */
        rc = element(r, "samples", i, sv, &s, 0, HUGE_VAL);
        if (rc == 0 && running)
            rc = element(r, "running", i, rvv, &run, 0, 1);
        if (rc == 0)
            rc = pg_rundoc_metric_push(m, s, run);
        v = v ? v->next : NULL;
        rv = rv ? rv->next : NULL;
    }
    return rc;
}

static int read_failure(pg_rundoc_failure *f, reader *r, const cJSON *jb)
{
    const cJSON *o;
    int rc = get_container(&o, r, jb, "failure", 0, 0);
    if (rc < 0 || !o)
        return rc;
    size_t old = push_key(r, "failure");
    if ((rc = get_str(&f->reason, r, o, "reason", 0, 0)) == 0 && (rc = get_str(&f->phase, r, o, "phase", 0, 0)) == 0 &&
        (rc = get_int(&f->run, NULL, r, o, "run", 0, 0)) == 0 &&
        (rc = get_int(&f->exit_code, &f->has_exit_code, r, o, "exit_code", INT_MIN, 0)) == 0 &&
        (rc = get_int(&f->signal, &f->has_signal, r, o, "signal", 0, 0)) == 0 &&
        (rc = get_double(&f->timeout, r, o, "timeout")) == 0)
        rc = get_str(&f->stderr_tail, r, o, "stderr_tail", 0, 0);
    pop(r, old);
    return rc;
}

static int read_thresholds(pg_rundoc_bench *b, reader *r, const cJSON *jb)
{
    const cJSON *o, *t;
    int rc = get_container(&o, r, jb, "thresholds", 0, 0);
    if (rc < 0 || !o)
        return rc;
    b->has_thresholds = 1;
    size_t old = push_key(r, "thresholds");
    cJSON_ArrayForEach(t, o) {
        size_t o2 = push_key(r, t->string);
        double pct = -1;
        if (cJSON_IsNumber(t) && isfinite(t->valuedouble) && t->valuedouble >= 0 && t->valuedouble <= 1e6)
            pct = t->valuedouble;
        else if (cJSON_IsString(t) && pg_threshold_parse_pct(&pct, t->valuestring) < 0)
            pct = -1;
        if (pct < 0 || !*t->string)
            rc = expected(r, "a percentage like \"1%\"", t);
        else if ((rc = pg_thresholds_set(&b->thresholds, t->string, pct)) < 0)
            rc = oom();
        pop(r, o2);
        if (rc < 0)
            break;
    }
    pop(r, old);
    return rc;
}

static int read_command(pg_rundoc_bench *b, reader *r, const cJSON *jb)
{
    const cJSON *a, *v;
    int rc = get_container(&a, r, jb, "command", 1, 0);
    if (rc < 0 || !a)
        return rc;
    int n = cJSON_GetArraySize(a), i = 0;
    if (!(b->command = calloc((size_t)n + 1, sizeof *b->command)))
        return oom();
    size_t old = push_key(r, "command");
    rc = packed_refused(r, a, "a string");
    cJSON_ArrayForEach(v, a) {
        if (rc < 0)
            break;
        size_t o2 = push_index(r, (size_t)i);
        if (!cJSON_IsString(v))
            rc = expected(r, "a string", v);
        else if (pg_json_cut(v))
            rc = holds_nul(r);
        else if (!(b->command[i++] = strdup(v->valuestring)))
            rc = oom();
        pop(r, o2);
        if (rc < 0)
            break;
    }
    pop(r, old);
    return rc;
}

static int read_reused(pg_rundoc_bench *b, reader *r, const cJSON *jb);

static int read_bench(pg_rundoc *run, reader *r, const cJSON *jb)
{
    if (!cJSON_IsObject(jb))
        return expected(r, "an object", jb);
    pg_rundoc_bench *b;
    if (pg_rundoc_add_bench(&b, run) < 0)
        return oom();
    int rc = get_str(&b->name, r, jb, "name", 1, 0);
    /* docs/manifest.md's one rule for names: they become file names and lines. */
    if (rc == 0 && (!*b->name || strchr(b->name, '/') || strchr(b->name, '\n'))) {
        size_t old = push_key(r, "name");
        rc = fail(r, *b->name ? "a benchmark name has no '/' or newline (docs/manifest.md, Names)"
                              : "a benchmark needs a name");
        pop(r, old);
    }
    size_t seen;
    if (rc == 0 && r->names && pg_strindex_get(r->names, b->name, &seen)) {
        size_t old = push_key(r, "name");
        rc = fail(r, "benchmark \"%s\" is listed twice", b->name);   /* path already escaped the name */
        pop(r, old);
    } else if (rc == 0 && r->names && pg_strindex_put(r->names, b->name, run->nbench - 1) < 0) {
        rc = oom();
    }
    char *status = NULL;
    if (rc == 0 && (rc = get_str(&status, r, jb, "status", 1, 0)) == 0) {
        b->failed = !strcmp(status, "failed");
        if (!b->failed && strcmp(status, "ok")) {
            size_t old = push_key(r, "status");
            rc = fail(r, "expected \"ok\" or \"failed\"");
            pop(r, old);
        }
    }
    free(status);
    if (rc == 0)
        rc = read_command(b, r, jb);
    if (rc == 0 && (rc = get_str(&b->cwd, r, jb, "cwd", 0, 0)) == 0 &&
        (rc = get_int(&b->repeat, NULL, r, jb, "repeat", 0, 0)) == 0 &&
        (rc = get_int(&b->warmup, NULL, r, jb, "warmup", 0, 0)) == 0 &&
        (rc = get_double(&b->timeout, r, jb, "timeout")) == 0 && (rc = read_thresholds(b, r, jb)) == 0 &&
        (rc = get_int(&b->runs, NULL, r, jb, "runs", 0, 0)) == 0 && (rc = read_failure(&b->failure, r, jb)) == 0 &&
        (rc = get_str(&b->stdout_log, r, jb, "stdout_log", 0, 0)) == 0 &&
        (rc = get_str(&b->stderr_log, r, jb, "stderr_log", 0, 0)) == 0 &&
        (rc = get_str(&b->stacks, r, jb, "stacks", 0, 0)) == 0 &&
        (rc = get_str(&b->stacks_weight, r, jb, "stacks_weight", 0, 0)) == 0 &&
        (rc = get_str(&b->stacks_note, r, jb, "stacks_note", 0, 0)) == 0 &&
        (rc = get_double(&b->stacks_iterations, r, jb, "stacks_iterations")) == 0 &&
        (rc = get_str(&b->stacks_error, r, jb, "stacks_error", 0, 0)) == 0 &&
        (rc = get_str(&b->reuse_key, r, jb, "reuse_key", 0, 0)) == 0 &&
        (rc = get_str(&b->exact_varies, r, jb, "exact_varies", 0, 0)) == 0 && (rc = read_reused(b, r, jb)) == 0)
        rc = get_strings(&b->selected_metrics, r, jb, "selected_metrics");
    const cJSON *metrics = NULL, *jm;
    if (rc == 0)
        rc = get_container(&metrics, r, jb, "metrics", 0, 1);
    /* Sized once: 10^4 benchmarks' doubling arrays were megabytes of slack. */
    size_t nm = metrics ? (size_t)cJSON_GetArraySize(metrics) : 0;
    if (rc == 0 && nm && !b->metrics) {
        if (!(b->metrics = malloc(nm * sizeof *b->metrics)))
            rc = oom();
        else
            b->capmetrics = nm;
    }
    size_t old = push_key(r, "metrics");
    cJSON_ArrayForEach(jm, metrics) {
        if (rc < 0)
            break;
        size_t o2 = push_key(r, jm->string ? jm->string : "?");
        rc = read_metric(b, r, jm);
        pop(r, o2);
    }
    pop(r, old);
    return rc;
}

/* A flat object's fields as a table (the machine, the settings): each key
 * read by its kind into the struct at `off`, in order, stopping at the
 * first error. */
typedef enum { F_FIXED, F_STR, F_INT, F_BOOL } field_kind;
typedef struct field {
    const char *key;
    field_kind kind;
    size_t off, len;        /* len: F_FIXED's buffer */
    int required;           /* F_FIXED, F_STR */
    int min, nullable;      /* F_INT (nullable: F_INT, F_STR) */
} field;

static int read_fields(void *base, reader *r, const cJSON *o, const field *f, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        void *dst = (char *)base + f[i].off;
        switch (f[i].kind) {
        case F_FIXED: rc = get_fixed(dst, f[i].len, r, o, f[i].key, f[i].required); break;
        case F_STR: rc = get_str(dst, r, o, f[i].key, f[i].required, f[i].nullable); break;
        case F_INT: rc = get_int(dst, NULL, r, o, f[i].key, f[i].min, f[i].nullable); break;
        case F_BOOL: rc = get_bool(dst, r, o, f[i].key); break;
        }
    }
    return rc;
}

#define FIXED(st, m, key, req) {key, F_FIXED, offsetof(st, m), sizeof ((st *)0)->m, req, 0, 0}
static const field machine_fields[] = {
    FIXED(pg_machine, id, "id", 1),
    FIXED(pg_machine, cpu_model, "cpu_model", 0),
    FIXED(pg_machine, kernel, "kernel", 0),
    {"cores", F_INT, offsetof(pg_machine, cores), 0, 0, 0, 0},
    FIXED(pg_machine, backend, "backend", 0),
    FIXED(pg_machine, backend_version, "backend_version", 0),
    FIXED(pg_machine, geometry, "cache_geometry", 0),
    FIXED(pg_machine, hostname, "hostname", 0),
};

static const field settings_fields[] = {
    {"cpu", F_INT, offsetof(pg_rundoc, cpu), 0, 0, 0, 1},
    {"aslr_disabled", F_BOOL, offsetof(pg_rundoc, aslr_disabled), 0, 0, 0, 0},
    {"stdin", F_STR, offsetof(pg_rundoc, stdin_path), 0, 0, 0, 0},
    {"events", F_STR, offsetof(pg_rundoc, events), 0, 0, 0, 0},
    {"user_only", F_BOOL, offsetof(pg_rundoc, user_only), 0, 0, 0, 0},
    {"native", F_BOOL, offsetof(pg_rundoc, native), 0, 0, 0, 0},
};

/* The object at `key` of `o`, its fields read by the table. */
static int read_object(void *base, reader *r, const cJSON *o, const char *key, int required, const field *f,
                       size_t n)
{
    const cJSON *obj;
    int rc = get_container(&obj, r, o, key, 0, required);
    if (rc < 0 || !obj)
        return rc;
    size_t old = push_key(r, key);
    rc = read_fields(base, r, obj, f, n);
    pop(r, old);
    return rc;
}

/* "backends": {"valgrind": {"exact": true, "simulated": true, "stacks_unit":
 * "instructions"}, ...}. A backend this perfgate knows must be described as
 * it is: a document cannot make perf's counts exact. */
static const field props_fields[] = {
    {"exact", F_BOOL, offsetof(pg_rundoc_props, exact), 0, 0, 0, 0},
    {"simulated", F_BOOL, offsetof(pg_rundoc_props, simulated), 0, 0, 0, 0},
    FIXED(pg_rundoc_props, stacks_unit, "stacks_unit", 1),
};

static int read_backends(pg_rundoc *run, reader *r, const cJSON *jr)
{
    const cJSON *o, *v;
    int rc = get_container(&o, r, jr, "backends", 0, 0);
    if (rc < 0 || !o)
        return rc;
    size_t old = push_key(r, "backends");
    cJSON_ArrayForEach(v, o) {
        size_t o2 = push_key(r, v->string);
        pg_rundoc_props p = {0}, known;
        if (run->nbackends == PG_RUNDOC_MAX_BACKENDS)
            rc = fail(r, "more than %d backends", PG_RUNDOC_MAX_BACKENDS);
        else if (strlen(v->string) >= sizeof p.name || !*v->string)
            rc = fail(r, "not a backend name");
        else if (!cJSON_IsObject(v))
            rc = expected(r, "an object", v);
        else
            rc = read_fields(&p, r, v, props_fields, sizeof props_fields / sizeof *props_fields);
        snprintf(p.name, sizeof p.name, "%s", v->string);
        if (rc == 0 && pg_rundoc_backend_props(&known, run, p.name) &&
            (known.exact != p.exact || known.simulated != p.simulated || strcmp(known.stacks_unit, p.stacks_unit)))
            rc = fail(r, "not what the %s backend's measurements are (exact %s, simulated %s, stacks in %s)",
                      known.name, known.exact ? "true" : "false", known.simulated ? "true" : "false",
                      known.stacks_unit);
        pop(r, o2);
        if (rc < 0)
            break;
        run->backends[run->nbackends++] = p;
    }
    pop(r, old);
    return rc;
}

static int read_machine(pg_machine *m, reader *r, const cJSON *run)
{
    return read_object(m, r, run, "machine", 1, machine_fields, sizeof machine_fields / sizeof *machine_fields);
}

static int read_settings(pg_rundoc *run, reader *r, const cJSON *jr)
{
    int rc = read_object(run, r, jr, "settings", 0, settings_fields, sizeof settings_fields / sizeof *settings_fields);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(jr, "settings");
    run->has_native = cJSON_IsObject(o) && cJSON_GetObjectItemCaseSensitive(o, "native") != NULL;
    return rc;
}

/* "reused": {"run": ID, "commit": C}: whose exact counts these are. */
static const field reused_fields[] = {
    {"run", F_STR, offsetof(pg_rundoc_bench, reused_run), 0, 1, 0, 0},
    {"commit", F_STR, offsetof(pg_rundoc_bench, reused_commit), 0, 0, 0, 0},
};

static int read_reused(pg_rundoc_bench *b, reader *r, const cJSON *jb)
{
    return read_object(b, r, jb, "reused", 0, reused_fields, sizeof reused_fields / sizeof *reused_fields);
}

/* "shard": {"index": I, "count": N}, 1 <= I <= N. */
static int read_shard(pg_rundoc *run, reader *r, const cJSON *jr)
{
    const cJSON *o;
    int rc = get_container(&o, r, jr, "shard", 0, 0);
    if (rc < 0 || !o)
        return rc;
    size_t old = push_key(r, "shard");
    if ((rc = get_int(&run->shard_count, NULL, r, o, "count", 1, 0)) == 0 &&
        (rc = get_int(&run->shard_index, NULL, r, o, "index", 1, 0)) == 0 &&
        (run->shard_count == 0 || run->shard_index == 0 || run->shard_index > run->shard_count)) {
        size_t o2 = push_key(r, run->shard_count ? "index" : "count");
        rc = run->shard_count ? fail(r, "%d is not between 1 and count (%d)", run->shard_index, run->shard_count)
                              : fail(r, "missing");
        pop(r, o2);
    }
    pop(r, old);
    return rc;
}

/* One run document into a new entry of `out`. */
static int read_run(pg_rundoc_list *out, reader *r, const cJSON *jr)
{
    if (!cJSON_IsObject(jr))
        return expected(r, "a run document (an object)", jr);
    int rc = check_schema(r, jr, PG_RUNDOC_SCHEMA, "perfgate run document");
    if (rc < 0)
        return rc;
    if (out->n == out->cap) {
        size_t cap = out->cap ? 2 * out->cap : 4;
        pg_rundoc *v = realloc(out->v, cap * sizeof *v);
        if (!v)
            return oom();
        out->v = v;
        out->cap = cap;
    }
    pg_rundoc *run = &out->v[out->n++];
    memset(run, 0, sizeof *run);
    run->cpu = -1;
    run->load = -1;
    const cJSON *benchmarks = NULL, *jb;
    if ((rc = get_str(&run->perfgate_version, r, jr, "perfgate_version", 0, 0)) == 0 &&
        (rc = get_str(&run->id, r, jr, "id", 0, 0)) == 0 && (rc = get_str(&run->commit, r, jr, "commit", 0, 1)) == 0 &&
        (rc = get_bool(&run->dirty, r, jr, "dirty")) == 0 &&
        (rc = get_str(&run->start_time, r, jr, "start_time", 0, 0)) == 0 &&
        (rc = get_str(&run->session, r, jr, "session", 0, 0)) == 0 && (rc = get_double(&run->load, r, jr, "load")) == 0 &&
        (rc = get_str(&run->end_time, r, jr, "end_time", 0, 0)) == 0 && (rc = read_machine(&run->machine, r, jr)) == 0 &&
        (rc = get_str(&run->backend, r, jr, "backend", 1, 0)) == 0 && (rc = read_backends(run, r, jr)) == 0 &&
        (rc = read_settings(run, r, jr)) == 0 &&
        (rc = read_shard(run, r, jr)) == 0 &&
        (rc = get_strings(&run->uncontrolled, r, jr, "uncontrolled")) == 0 &&
        (rc = get_strings(&run->notices, r, jr, "notices")) == 0)
        rc = get_container(&benchmarks, r, jr, "benchmarks", 1, 1);
    size_t old = push_key(r, "benchmarks"), i = 0;
    if (rc < 0)
        benchmarks = NULL;
    if (r->st) {            /* streamed: read already, with their error if any */
        benchmarks = NULL;
        shell *sh = r->sh;
        if (rc == 0 && sh && sh->rc < 0) {
            rc = pg_error_set(sh->rc, "%s", sh->err);
        } else if (rc == 0 && sh) {
            run->bench = sh->bench;
            run->nbench = sh->nbench;
            run->capbench = sh->capbench;
            sh->bench = NULL;
            sh->nbench = sh->capbench = 0;
        }
    }
    pg_strindex names = {0};
    pg_strindex *outer = r->names;
    r->names = &names;
    if (rc == 0 && (rc = packed_refused(r, benchmarks, "an object")) < 0)
        benchmarks = NULL;
    cJSON_ArrayForEach(jb, benchmarks) {
        size_t o2 = push_index(r, i++);
        rc = read_bench(run, r, jb);
        pop(r, o2);
        if (rc < 0)
            break;
    }
    r->names = outer;
    pg_strindex_free(&names);
    pop(r, old);
    return rc;
}

static int read_runs(pg_rundoc_list *out, reader *r, const cJSON *arr)
{
    const cJSON *jr;
    size_t i = 0;
    int rc = packed_refused(r, arr, "a run document (an object)");
    if (rc < 0)
        return rc;
    size_t k = 0;           /* the next shell, in document order as the runs */
    cJSON_ArrayForEach(jr, arr) {
        while (r->st && k < r->st->n && r->st->rec[k].record < i)
            k++;
        if (r->st)
            r->sh = k < r->st->n && r->st->rec[k].record == i ? &r->st->rec[k] : NULL;
        size_t old = push_index(r, i++);
        rc = read_run(out, r, jr);
        pop(r, old);
        if (rc < 0)
            break;
    }
    return rc;
}

/* A store document: {"schema": "perfgate-store/1", "commit", "machine_id", "runs": [...]},
 * or a note document: {"schema": "perfgate-notes/1", "commit", "runs": [...]}. */
static int read_store(pg_rundoc_list *out, reader *r, const cJSON *doc)
{
    char *commit = NULL, *machine = NULL;
    const cJSON *runs;
    const char *schema = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "schema"));
    int note = schema && !strncmp(schema, "perfgate-notes/", 15);
    int rc = check_schema(r, doc, note ? PG_NOTEDOC_SCHEMA : PG_STOREDOC_SCHEMA,
                          note ? "perfgate note document" : "perfgate store document");
    if (rc == 0 && (rc = get_str(&commit, r, doc, "commit", 0, 1)) == 0 &&
        (rc = get_str(&machine, r, doc, "machine_id", 0, 0)) == 0 &&
        (rc = get_container(&runs, r, doc, "runs", 1, 1)) == 0) {
        size_t old = push_key(r, "runs");
        rc = read_runs(out, r, runs);
        pop(r, old);
    }
    free(commit);
    free(machine);
    return rc;
}

static int read_doc(pg_rundoc_list *out, reader *r, const cJSON *doc)
{
    if (cJSON_IsArray(doc)) {      /* `perfgate show --format json`: the runs themselves */
        if (!pg_json_array_len(doc))
            return pg_error_set(PG_EINVAL, "%s: not a perfgate result document (an empty array: no runs)", r->file);
        return read_runs(out, r, doc);
    }
    if (!cJSON_IsObject(doc))
        return pg_error_set(PG_EINVAL, "%s: not a perfgate result document (expected a JSON object)", r->file);
    if (cJSON_GetObjectItemCaseSensitive(doc, "runs"))
        return read_store(out, r, doc);
    if (!cJSON_GetObjectItemCaseSensitive(doc, "benchmarks"))
        return pg_error_set(PG_EINVAL, "%s: not a perfgate result document (no \"runs\" or \"benchmarks\")", r->file);
    return read_run(out, r, doc);
}

/* The shell of run `record`, made on its first benchmark; NULL: not to be
 * read (an earlier run's benchmarks failed), or out of memory (*oom). */
static shell *shell_of(streamed *st, size_t record, int *oom)
{
    if (record == SIZE_MAX)
        return &st->root;
    if (st->n && st->rec[st->n - 1].record == record)
        return &st->rec[st->n - 1];
    if (st->failed)
        return NULL;
    if (pg_array_grow(&st->rec, &st->cap, st->n, sizeof *st->rec, 4) < 0)
        return *oom = 1, NULL;
    shell *sh = &st->rec[st->n++];
    memset(sh, 0, sizeof *sh);
    sh->record = record;
    return sh;
}

/* One streamed benchmark into its run's shell (pg_json_stream's `each`). */
static int take_bench(void *ctx, const cJSON *jb, size_t record, const char *outer, size_t index)
{
    streamed *st = ctx;
    int no_memory = 0;
    shell *sh = shell_of(st, record, &no_memory);
    if (no_memory)
        return oom();
    if (!sh || sh->rc < 0)
        return 0;           /* its first error is the one said */
    reader r = {.file = st->file, .names = &sh->names};
    if (record != SIZE_MAX && outer)
        push_key(&r, outer);
    if (record != SIZE_MAX)
        push_index(&r, record);
    push_key(&r, "benchmarks");
    push_index(&r, index);
    pg_rundoc run = {.bench = sh->bench, .nbench = sh->nbench, .capbench = sh->capbench};
    int rc = pg_json_check_strict_at(jb, st->file, r.path);
    if (rc == 0)
        rc = read_bench(&run, &r, jb);
    sh->bench = run.bench;
    sh->nbench = run.nbench;
    sh->capbench = run.capbench;
    if (rc == PG_ENOMEM)
        return rc;
    if (rc < 0 && !(sh->err = strdup(pg_error_last())))
        return oom();
    if (rc < 0) {
        sh->rc = rc;
        st->failed |= record != SIZE_MAX;
    }
    pg_error_clear();
    return 0;
}

static void shell_free(shell *sh)
{
    pg_rundoc run = {.bench = sh->bench, .nbench = sh->nbench, .capbench = sh->capbench};
    pg_rundoc_free(&run);
    pg_strindex_free(&sh->names);
    free(sh->err);
}

static void streamed_free(streamed *st)
{
    shell_free(&st->root);
    for (size_t i = 0; i < st->n; i++)
        shell_free(&st->rec[i]);
    free(st->rec);
}

/* Reads `doc` into `out` (its benchmarks from `st` when it was streamed); on
 * error `out` keeps only what it held before. */
static int read_into(pg_rundoc_list *out, const cJSON *doc, const char *file, streamed *st)
{
    reader r = {.file = file, .st = st, .sh = st ? &st->root : NULL};
    size_t before = out->n;
    int rc = pg_json_check_strict(doc, file);
    if (rc == 0)
        rc = read_doc(out, &r, doc);
    if (rc < 0)
        pg_rundoc_list_truncate(out, before);
    return rc;
}

/* A document streamed (from its text, or its file when text is NULL), its
 * benchmarks read one at a time: the tree is never whole in memory. */
static int read_streamed(pg_rundoc_list *out, const char *text, size_t len, const char *file)
{
    cJSON *doc;
    pg_json_scratch *mem;
    streamed st = {.file = file};
    pg_json_stream how = {.key = "benchmarks", .outer = "runs", .each = take_bench, .ctx = &st};
    int rc = text ? pg_json_parse_stream(&doc, &mem, text, len, file, &how)
                  : pg_json_read_stream(&doc, &mem, file, &how);
    if (rc == 0) {
        rc = read_into(out, doc, file, &st);
        pg_json_scratch_free(mem);
    }
    streamed_free(&st);
    return rc;
}

int pg_rundoc_parse(pg_rundoc_list *out, const char *text, size_t len, const char *file)
{
    return read_streamed(out, text, len, file);
}

int pg_rundoc_read_file(pg_rundoc_list *out, const char *path)
{
    return read_streamed(out, NULL, 0, path);
}

int pg_rundoc_read_run_json(pg_rundoc_list *out, const cJSON *run, const char *file, size_t index)
{
    pg_rundoc_list l = {0};
    reader r = {.file = file};
    push_key(&r, "runs");
    push_index(&r, index);
    size_t before = out ? out->n : 0;
    char where[400];
    snprintf(where, sizeof where, "%s: runs[%zu]", file, index);
    int rc = pg_json_check_strict(run, where);
    if (rc == 0)
        rc = read_run(out ? out : &l, &r, run);
    if (rc < 0 && out)
        pg_rundoc_list_truncate(out, before);
    pg_rundoc_list_free(&l);
    return rc;
}

int pg_rundoc_check_store_json(const cJSON *doc, const char *file)
{
    if (!cJSON_IsObject(doc) || !cJSON_GetObjectItemCaseSensitive(doc, "runs"))
        return pg_error_set(PG_EINVAL, "%s: not a store document (no \"runs\")", file);
    pg_rundoc_list l = {0};
    reader r = {.file = file};
    int rc = read_store(&l, &r, doc);
    pg_rundoc_list_free(&l);
    return rc;
}

int pg_storedoc_check(const char *text, size_t len, const char *path)
{
    cJSON *doc;
    int rc = pg_json_parse(&doc, text, len, path);
    if (rc == 0) {
        rc = pg_rundoc_check_store_json(doc, path);
        cJSON_Delete(doc);
    }
    if (rc == PG_EINVAL)
        pg_error_wrap(rc, "corrupt result file (move it away or delete it)");
    return rc;
}
