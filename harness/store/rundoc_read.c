/* harness/store/rundoc_read.c — the one validating reader of run and store
 * documents. See rundoc.h.
 *
 * Every value is checked for its type before it is used, and every error
 * names the file, the JSON path of the value and what was expected:
 *     a.json: runs[0].benchmarks[3].metrics.instructions.samples[2]: expected a number, got "x"
 * Each object of a document is a section: a table of its fields (the key,
 * what its value must be, where it goes, whether it is required, a check),
 * read in the table's order up to the first error, so the tables below are
 * the document's shape as this reader accepts it (docs/result-schema.md).
 */
#include "harness/store/rundoc.h"
#include "harness/store/rundoc_json.h"
#include "report/series.h"
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
    size_t item;            /* the index of the benchmark being read in its run */
    streamed *st;           /* the document was streamed: its runs' benchmarks are here */
    shell *sh;              /* ...and the current run's are these (NULL: it has none) */
    size_t next_shell;      /* ...and the next of st->rec that a run may own */
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

/* push_key for a key of a field table (its length known): no control
 * characters to replace, so copied whole (a benchmark pushes ~30 of them). */
static size_t push_field(reader *r, const char *key, size_t n)
{
    size_t old = r->len;
    if (r->len + 2 + n > sizeof r->path)
        return push_key(r, key);
    if (r->len)
        r->path[r->len++] = '.';
    memcpy(r->path + r->len, key, n + 1);
    r->len += n;
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

/* --- numbers: a document holds 10^6 of them --------------------------------- */

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

/* --- fields: a key, what its value must be, where it goes ---------------- */

/* What a field's value must be, and what it becomes in the section's struct
 * (at `off`). Every kind says what it expected when the value is not that. */
typedef enum field_kind {
    F_STR,          /* a string, into a char * (nullable: null frees it, NULL) */
    F_FIXED,        /* a string shorter than `len`, into a char[len] */
    F_CHOICE,       /* one of `words` (`what` says them), its index into an int */
    F_INT,          /* a whole number from `min` to INT_MAX, into an int (nullable: null leaves it) */
    F_DOUBLE,       /* a finite number >= 0, into a double */
    F_BOOL,         /* true or false, into an int */
    F_SCHEMA,       /* words[0], or a later minor version of it (pg_schema_ok), of a `what` */
    F_ARRAY,        /* an array, kept as it is (a const cJSON *) for the section's reader */
    F_VIEW,         /* a string, kept as it is (a const char * into the tree) for the section's reader */
    F_OBJECT,       /* an object: the fields of `sub`, into the struct at `off` */
    F_MAP,          /* an object: `begin`, then each member by `entry` */
    F_LIST,         /* an array of `what`: `begin`, then each element by `entry` */
} field_kind;

typedef struct section section;

typedef struct field {
    const char *key;
    size_t klen;            /* strlen(key), known when compiling */
    field_kind kind;
    size_t off;
    int required;           /* missing is an error ("missing") */
    int nullable;           /* F_STR, F_INT: null is allowed */
    int min;                /* F_INT */
    size_t len;             /* F_FIXED: the buffer's size */
    size_t present;         /* non-zero: 1 + the offset of an int set to whether the key is there (not null) */
    const char *const *words;   /* F_CHOICE, F_SCHEMA */
    const section *sub;     /* F_OBJECT */
    const char *what;       /* F_LIST: what each element is (said of a packed array of numbers);
                               F_CHOICE: the words, as said; F_SCHEMA: the document */
    /* F_MAP, F_LIST: called before the members (with the container); 1 skips them. NULL: nothing */
    int (*begin)(void *dst, reader *r, const cJSON *v);
    /* F_MAP, F_LIST: member i, its key or index on the path */
    int (*entry)(void *dst, reader *r, const cJSON *v, size_t i);
    /* after the value is read into dst, its key on the path; NULL: nothing more to check */
    int (*check)(void *dst, reader *r);
} field;

/* An object's fields, read in order up to the first error, then `check`
 * (the object on the path) for what holds between them. */
struct section {
    const field *f;
    size_t n;
    int (*check)(void *base, reader *r);
};

/* A table's rows: the key (a string literal: its length is its size less
 * one), where its value goes (a member of the section's struct, or AT: an
 * offset), then options (.required, .min, ...). */
#define AT(st, m) offsetof(st, m)
#define ROW(k, kd, o, ...) {.key = (k), .klen = sizeof(k) - 1, .kind = (kd), .off = (o), __VA_ARGS__}
#define STR(k, st, m, ...) ROW(k, F_STR, AT(st, m), __VA_ARGS__)
#define FIXED(k, st, m, ...) ROW(k, F_FIXED, AT(st, m), .len = sizeof ((st *)0)->m, __VA_ARGS__)
#define CHOICE(k, st, m, w, said, ...) ROW(k, F_CHOICE, AT(st, m), .words = (w), .what = (said), __VA_ARGS__)
#define INT(k, st, m, ...) ROW(k, F_INT, AT(st, m), __VA_ARGS__)
#define DOUBLE(k, st, m, ...) ROW(k, F_DOUBLE, AT(st, m), __VA_ARGS__)
#define BOOL(k, st, m, ...) ROW(k, F_BOOL, AT(st, m), __VA_ARGS__)
#define ARRAY(k, st, m, ...) ROW(k, F_ARRAY, AT(st, m), __VA_ARGS__)
#define VIEW(k, st, m, ...) ROW(k, F_VIEW, AT(st, m), __VA_ARGS__)
#define SCHEMA(want, doc) ROW("schema", F_SCHEMA, 0, .required = 1, .words = (const char *const[]){want, NULL}, .what = (doc))
#define OBJECT(k, o, s, ...) ROW(k, F_OBJECT, o, .sub = (s), __VA_ARGS__)
#define MAP(k, fn, ...) ROW(k, F_MAP, 0, .entry = (fn), __VA_ARGS__)
#define LIST(k, o, w, fn, ...) ROW(k, F_LIST, o, .what = (w), .entry = (fn), __VA_ARGS__)
#define PRESENT(st, m) .present = offsetof(st, m) + 1
#define SECTION(fields, ...) {.f = (fields), .n = sizeof (fields) / sizeof *(fields), __VA_ARGS__}

static int read_fields(void *base, reader *r, const cJSON *o, const section *s);

static int want_string(reader *r, const cJSON *v, const char *what)
{
    if (!cJSON_IsString(v))
        return expected(r, what, v);
    return pg_json_cut(v) ? holds_nul(r) : 0;
}

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

static int read_choice(int *dst, reader *r, const cJSON *v, const field *f)
{
    int rc = want_string(r, v, "a string");
    for (int i = 0; rc == 0 && f->words[i]; i++)
        if (!strcmp(v->valuestring, f->words[i]))
            return *dst = i, 0;
    return rc < 0 ? rc : fail(r, "expected %s", f->what);
}

/* The members of an object (`f` an F_MAP) or the elements of an array (F_LIST). */
static int read_members(void *dst, reader *r, const cJSON *v, const field *f)
{
    int rc = f->begin ? f->begin(dst, r, v) : 0;
    if (rc != 0)
        return rc < 0 ? rc : 0;
    if (f->kind == F_LIST && (rc = packed_refused(r, v, f->what)) < 0)
        return rc;
    size_t i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, v) {
        size_t old = f->kind == F_MAP ? push_key(r, m->string ? m->string : "?") : push_index(r, i);
        rc = f->entry(dst, r, m, i++);
        pop(r, old);
        if (rc < 0)
            break;
    }
    return rc;
}

/* Value `v` of field `f` into `dst`, the key on the path. */
static int read_value(void *dst, reader *r, const cJSON *v, const field *f)
{
    double d;
    int rc;
    switch (f->kind) {
    case F_STR:
        if (f->nullable && cJSON_IsNull(v)) {
            free(*(char **)dst);
            *(char **)dst = NULL;
            return 0;
        }
        if ((rc = want_string(r, v, f->nullable ? "a string or null" : "a string")) < 0)
            return rc;
        return pg_rundoc_set(dst, v->valuestring) < 0 ? oom() : 0;
    case F_VIEW:
        if ((rc = want_string(r, v, "a string")) < 0)
            return rc;
        *(const char **)dst = v->valuestring;
        return 0;
    case F_FIXED:
        if ((rc = want_string(r, v, "a string")) < 0)
            return rc;
        if (strlen(v->valuestring) >= f->len)
            return fail(r, "longer than %zu bytes", f->len - 1);
        snprintf(dst, f->len, "%s", v->valuestring);
        return 0;
    case F_CHOICE:
        return read_choice(dst, r, v, f);
    case F_INT:
        if ((rc = check_number(r, v, &d, f->min, INT_MAX, 1)) == 0)
            *(int *)dst = (int)d;
        return rc;
    case F_DOUBLE:
        return check_number(r, v, dst, 0, HUGE_VAL, 0);
    case F_BOOL:
        if (!cJSON_IsBool(v))
            return expected(r, "true or false", v);
        *(int *)dst = cJSON_IsTrue(v);
        return 0;
    case F_SCHEMA:
        if (!cJSON_IsString(v))
            return expected(r, "a string", v);
        if (!pg_schema_ok(v->valuestring, f->words[0])) {
            char got[64];
            return fail(r, "unsupported schema %s: this perfgate reads %s", describe(got, sizeof got, v), f->words[0]);
        }
        return 0;
    case F_ARRAY:
    case F_LIST:
        if (!cJSON_IsArray(v))
            return expected(r, "an array", v);
        if (f->kind == F_LIST)
            return read_members(dst, r, v, f);
        *(const cJSON **)dst = v;
        return 0;
    case F_OBJECT:
    case F_MAP:
        if (!cJSON_IsObject(v))
            return expected(r, "an object", v);
        return f->kind == F_MAP ? read_members(dst, r, v, f) : read_fields(dst, r, v, f->sub);
    }
    return pg_error_set(PG_ERROR, "bad field table");
}

/* Field f, whose value in the object is v (NULL: the key is not there). */
static int read_field(void *base, reader *r, const cJSON *v, const field *f)
{
    if (f->present)
        *(int *)((char *)base + f->present - 1) = v && !cJSON_IsNull(v);
    if ((!v && !f->required) || (f->kind == F_INT && f->nullable && cJSON_IsNull(v)))
        return 0;
    /* A value with nothing under it: its key goes on the path only for a
     * message, so a bad one is read again with it (a document reads 10^5
     * metrics' four fields; a value that fails changes nothing). */
    void *dst = (char *)base + f->off;
    int leaf = f->kind != F_OBJECT && f->kind != F_MAP && f->kind != F_LIST;
    if (v && leaf && !f->check && read_value(dst, r, v, f) == 0)
        return 0;
    size_t old = push_field(r, f->key, f->klen);
    int rc = v ? read_value(dst, r, v, f)
           : f->kind == F_SCHEMA ? fail(r, "missing: not a %s (expected \"%s\")", f->what, f->words[0])
                                 : fail(r, "missing");
    if (rc == 0 && f->check)
        rc = f->check(dst, r);
    pop(r, old);
    return rc;
}

#define MAX_FIELDS 32

/* The value of each of the fields of `s` in object `o`, in one pass over its
 * members rather than a walk of them per field (a benchmark's table has 22
 * rows, a document 10^4 benchmarks): as cJSON_GetObjectItemCaseSensitive
 * finds them, the first of a key twice, and none past a member without a key. */
static void find_fields(const cJSON **vals, const cJSON *o, const section *s)
{
    memset(vals, 0, s->n * sizeof *vals);
    for (const cJSON *c = o->child; c && c->string; c = c->next)
        for (size_t i = 0; i < s->n; i++)
            if (s->f[i].key[0] == c->string[0] && !strcmp(s->f[i].key, c->string)) {
                if (!vals[i])
                    vals[i] = c;
                break;
            }
}

/* The fields of `s` whose values are vals[0..s->n), NULL where missing. */
static int read_values(void *base, reader *r, const cJSON *const *vals, const section *s)
{
    int rc = 0;
    for (size_t i = 0; i < s->n && rc == 0; i++)
        rc = read_field(base, r, vals[i], &s->f[i]);
    return rc == 0 && s->check ? s->check(base, r) : rc;
}

static int read_fields(void *base, reader *r, const cJSON *o, const section *s)
{
    const cJSON *vals[MAX_FIELDS];
    if (s->n > MAX_FIELDS)
        return pg_error_set(PG_ERROR, "bad field table");
    find_fields(vals, o, s);
    return read_values(base, r, vals, s);
}

/* A list's strings: into a pg_rundoc_strings, or into a NULL-terminated argv
 * (allocated by alloc_argv). */
static int add_string(void *dst, reader *r, const cJSON *v, size_t i)
{
    (void)i;
    int rc = want_string(r, v, "a string");
    return rc < 0 ? rc : pg_rundoc_strings_add(dst, v->valuestring) < 0 ? oom() : 0;
}

static int alloc_argv(void *dst, reader *r, const cJSON *v)
{
    (void)r;
    char ***argv = dst;
    *argv = calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof **argv);
    return *argv ? 0 : oom();
}

static int add_arg(void *dst, reader *r, const cJSON *v, size_t i)
{
    int rc = want_string(r, v, "a string");
    return rc < 0 ? rc : !((*(char ***)dst)[i] = strdup(v->valuestring)) ? oom() : 0;
}

#define STRINGS(key, st, m) LIST(key, AT(st, m), "a string", add_string)

/* --- a benchmark's metric -------------------------------------------------- */

/* Seen in the tree, not copied: pg_rundoc_metric_get keeps what it keeps
 * (two copies and frees a metric were 3% of a 10^4-benchmark compare). */
typedef struct metric_in {
    const char *unit, *backend;
    const cJSON *samples, *running;
} metric_in;

static const field metric_fields[] = {
    VIEW("unit", metric_in, unit, .required = 1),
    VIEW("backend", metric_in, backend, .required = 1),
    ARRAY("samples", metric_in, samples, .required = 1),
    ARRAY("running", metric_in, running),
};
static const section metric_section = SECTION(metric_fields);

/* Whether every one of v[0..n) is a number element() takes, in [0, max]. */
static int all_in(const double *v, size_t n, double max)
{
    for (size_t i = 0; i < n; i++)
        if (!(v[i] >= 0 && v[i] <= max && isfinite(v[i])))
            return 0;
    return 1;
}

/* Packed samples (and running fractions, or NULL: all 1) already checked,
 * appended as element() and pg_rundoc_metric_push would one by one: in one
 * copy when no fraction is below 1, the case of nearly every metric. */
static int append_checked(pg_rundoc_metric *m, const double *ps, const double *pr, size_t n)
{
    int scaled = m->running != NULL;
    for (size_t i = 0; pr && i < n; i++)
        scaled |= zero_signless(pr[i]) != 1.0;
    for (size_t i = 0; scaled && i < n; i++)
        if (pg_rundoc_metric_push(m, zero_signless(ps[i]), pr ? zero_signless(pr[i]) : 1.0) < 0)
            return PG_ENOMEM;
    if (scaled)
        return 0;
    for (size_t i = 0; i < n; i++)
        m->samples[m->n + i] = zero_signless(ps[i]);
    m->n += n;
    return 0;
}

/* Its samples, and the fraction of each the counter ran (all 1 when not stored). */
static int read_samples(pg_rundoc_metric *m, reader *r, const cJSON *samples, const cJSON *running)
{
    size_t n = pg_json_array_len(samples), nr = pg_json_array_len(running);
    if (running && nr != n) {
        size_t old = push_key(r, "running");
        int rc = fail(r, "%zu values for %zu samples", nr, n);
        pop(r, old);
        return rc;
    }
    /* Each array is packed (numbers only: the usual case) or nodes. */
    const double *ps = NULL, *pr = NULL;
    size_t k;
    pg_json_packed(samples, &ps, &k);
    pg_json_packed(running, &pr, &k);
    const cJSON *v = samples && !ps ? samples->child : NULL, *rv = running && !pr ? running->child : NULL;
    int rc = n ? pg_rundoc_metric_reserve(m, n) : 0;
    /* Packed and all good (a document's 10^6 numbers): checked in a loop of
     * their own; else one by one below, which says the first bad one. */
    if (rc == 0 && ps && (!running || pr) && all_in(ps, n, HUGE_VAL) && (!pr || all_in(pr, n, 1)))
        return append_checked(m, ps, pr, n);
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

/* "metrics": {NAME: {...}, ...}, sized once: 10^4 benchmarks' doubling
 * arrays were megabytes of slack. The block is as large as the series a
 * side gathers of them (report/series.h), which are larger: gathering a
 * side benchmark by benchmark (pg_results_take) frees each of these blocks
 * just before the next benchmark's series are made, which then fit in it
 * exactly. Blocks a size too small were a hole each between the samples a
 * side keeps, 5.5 MiB of a 10^4-benchmark compare's 40 MiB peak. */
static int reserve_metrics(void *dst, reader *r, const cJSON *metrics)
{
    (void)r;
    pg_rundoc_bench *b = dst;
    size_t nm = (size_t)cJSON_GetArraySize(metrics);
    size_t each = sizeof *b->metrics > sizeof(pg_series) ? sizeof *b->metrics : sizeof(pg_series);
    if (!nm || b->metrics)
        return 0;
    if (!(b->metrics = malloc(nm * each)))
        return oom();
    b->capmetrics = nm;
    return 0;
}

static int read_metric(void *dst, reader *r, const cJSON *jm, size_t i)
{
    (void)i;
    pg_rundoc_bench *b = dst;
    if (!cJSON_IsObject(jm))
        return expected(r, "an object", jm);
    if (!*jm->string)
        return fail(r, "a metric needs a name");
    if (pg_json_cut(jm))
        return holds_nul(r);
    if (pg_rundoc_metric_find(b, jm->string))
        return fail(r, "metric named twice");
    metric_in in = {0};
    pg_rundoc_metric *m = NULL;
    /* Kept flat as it was parsed, by the keys of metric_fields (read_streamed). */
    const cJSON *const *flat;
    int rc = pg_json_flat(jm, &flat) ? read_values(&in, r, flat, &metric_section)
                                     : read_fields(&in, r, jm, &metric_section);
    if (rc == 0)
        rc = pg_rundoc_metric_get(&m, b, jm->string, in.unit, in.backend);
    return rc < 0 ? rc : read_samples(m, r, in.samples, in.running);
}

/* --- a benchmark ------------------------------------------------------------ */

/* "thresholds": {METRIC: "1%" or 1, ...} */
static int read_threshold(void *dst, reader *r, const cJSON *t, size_t i)
{
    (void)i;
    pg_rundoc_bench *b = dst;
    double pct = -1;
    if (cJSON_IsNumber(t) && isfinite(t->valuedouble) && t->valuedouble >= 0 && t->valuedouble <= 1e6)
        pct = t->valuedouble;
    else if (cJSON_IsString(t) && pg_threshold_parse_pct(&pct, t->valuestring) < 0)
        pct = -1;
    if (pct < 0 || !*t->string)
        return expected(r, "a percentage like \"1%\"", t);
    return pg_thresholds_set(&b->thresholds, t->string, pct) < 0 ? oom() : 0;
}

/* docs/manifest.md's one rule for names (they become file names and
 * lines), and a name once per run. */
static int check_bench_name(void *dst, reader *r)
{
    const char *name = *(char **)dst;
    if (!*name || strchr(name, '/') || strchr(name, '\n'))
        return fail(r, *name ? "a benchmark name has no '/' or newline (docs/manifest.md, Names)"
                             : "a benchmark needs a name");
    if (!r->names)
        return 0;
    /* Put, and a count that did not grow says it was there: one lookup, not
     * two, for each of a suite's 10^4 names (the run fails on a name twice,
     * so the value it replaced is never read). */
    size_t before = r->names->n;
    if (pg_strindex_put(r->names, name, r->item) < 0)
        return oom();
    return r->names->n == before ? fail(r, "benchmark \"%s\" is listed twice", name) : 0;   /* path already escaped the name */
}

static const field failure_fields[] = {
    STR("reason", pg_rundoc_failure, reason),
    STR("phase", pg_rundoc_failure, phase),
    INT("run", pg_rundoc_failure, run),
    INT("exit_code", pg_rundoc_failure, exit_code, .min = INT_MIN, PRESENT(pg_rundoc_failure, has_exit_code)),
    INT("signal", pg_rundoc_failure, signal, PRESENT(pg_rundoc_failure, has_signal)),
    DOUBLE("timeout", pg_rundoc_failure, timeout),
    STR("stderr_tail", pg_rundoc_failure, stderr_tail),
};
static const section failure_section = SECTION(failure_fields);

/* "reused": {"run": ID, "commit": C}: whose exact counts these are. */
static const field reused_fields[] = {
    STR("run", pg_rundoc_bench, reused_run, .required = 1),
    STR("commit", pg_rundoc_bench, reused_commit),
};
static const section reused_section = SECTION(reused_fields);

static const char *const status_words[] = {"ok", "failed", NULL};
static const field bench_fields[] = {
    STR("name", pg_rundoc_bench, name, .required = 1, .check = check_bench_name),
    CHOICE("status", pg_rundoc_bench, failed, status_words, "\"ok\" or \"failed\"", .required = 1),
    LIST("command", AT(pg_rundoc_bench, command), "a string", add_arg, .begin = alloc_argv),
    STR("cwd", pg_rundoc_bench, cwd),
    INT("repeat", pg_rundoc_bench, repeat),
    INT("warmup", pg_rundoc_bench, warmup),
    DOUBLE("timeout", pg_rundoc_bench, timeout),
    MAP("thresholds", read_threshold, PRESENT(pg_rundoc_bench, has_thresholds)),
    INT("runs", pg_rundoc_bench, runs),
    OBJECT("failure", AT(pg_rundoc_bench, failure), &failure_section),
    STR("stdout_log", pg_rundoc_bench, stdout_log),
    STR("stderr_log", pg_rundoc_bench, stderr_log),
    STR("stacks", pg_rundoc_bench, stacks),
    STR("stacks_weight", pg_rundoc_bench, stacks_weight),
    STR("stacks_note", pg_rundoc_bench, stacks_note),
    DOUBLE("stacks_iterations", pg_rundoc_bench, stacks_iterations),
    STR("stacks_error", pg_rundoc_bench, stacks_error),
    STR("reuse_key", pg_rundoc_bench, reuse_key),
    STR("exact_varies", pg_rundoc_bench, exact_varies),
    OBJECT("reused", 0, &reused_section),
    STRINGS("selected_metrics", pg_rundoc_bench, selected_metrics),
    MAP("metrics", read_metric, .required = 1, .begin = reserve_metrics),
};
static const section bench_section = SECTION(bench_fields);

/* Benchmark i of a run (`dst`). */
static int read_bench(void *dst, reader *r, const cJSON *jb, size_t i)
{
    r->item = i;
    if (!cJSON_IsObject(jb))
        return expected(r, "an object", jb);
    pg_rundoc_bench *b;
    if (pg_rundoc_add_bench(&b, dst) < 0)
        return oom();
    return read_fields(b, r, jb, &bench_section);
}

/* --- a run ------------------------------------------------------------------- */

static const field machine_fields[] = {
    FIXED("id", pg_machine, id, .required = 1),
    FIXED("cpu_model", pg_machine, cpu_model),
    FIXED("kernel", pg_machine, kernel),
    INT("cores", pg_machine, cores),
    FIXED("backend", pg_machine, backend),
    FIXED("backend_version", pg_machine, backend_version),
    FIXED("cache_geometry", pg_machine, geometry),
    FIXED("hostname", pg_machine, hostname),
};
static const section machine_section = SECTION(machine_fields);

/* "backends": {"valgrind": {"exact": true, "simulated": true, "stacks_unit":
 * "instructions"}, ...}. A backend this perfgate knows must be described as
 * it is: a document cannot make perf's counts exact. */
static const field props_fields[] = {
    BOOL("exact", pg_rundoc_props, exact),
    BOOL("simulated", pg_rundoc_props, simulated),
    FIXED("stacks_unit", pg_rundoc_props, stacks_unit, .required = 1),
};
static const section props_section = SECTION(props_fields);

static int read_backend(void *dst, reader *r, const cJSON *v, size_t i)
{
    (void)i;
    pg_rundoc *run = dst;
    pg_rundoc_props p = {0}, known;
    if (run->nbackends == PG_RUNDOC_MAX_BACKENDS)
        return fail(r, "more than %d backends", PG_RUNDOC_MAX_BACKENDS);
    if (strlen(v->string) >= sizeof p.name || !*v->string)
        return fail(r, "not a backend name");
    if (!cJSON_IsObject(v))
        return expected(r, "an object", v);
    int rc = read_fields(&p, r, v, &props_section);
    snprintf(p.name, sizeof p.name, "%s", v->string);
    if (rc == 0 && pg_rundoc_backend_props(&known, run, p.name) &&
        (known.exact != p.exact || known.simulated != p.simulated || strcmp(known.stacks_unit, p.stacks_unit)))
        rc = fail(r, "not what the %s backend's measurements are (exact %s, simulated %s, stacks in %s)", known.name,
                  known.exact ? "true" : "false", known.simulated ? "true" : "false", known.stacks_unit);
    if (rc == 0)
        run->backends[run->nbackends++] = p;
    return rc;
}

static const field settings_fields[] = {
    INT("cpu", pg_rundoc, cpu, .nullable = 1),
    BOOL("aslr_disabled", pg_rundoc, aslr_disabled),
    STR("stdin", pg_rundoc, stdin_path),
    STR("events", pg_rundoc, events),
    BOOL("user_only", pg_rundoc, user_only),
    BOOL("native", pg_rundoc, native, PRESENT(pg_rundoc, has_native)),
};
static const section settings_section = SECTION(settings_fields);

/* "shard": {"index": I, "count": N}, 1 <= I <= N. */
static int check_shard(void *base, reader *r)
{
    const pg_rundoc *run = base;
    if (run->shard_count && run->shard_index && run->shard_index <= run->shard_count)
        return 0;
    size_t old = push_key(r, run->shard_count ? "index" : "count");
    int rc = run->shard_count ? fail(r, "%d is not between 1 and count (%d)", run->shard_index, run->shard_count)
                              : fail(r, "missing");
    pop(r, old);
    return rc;
}

static const field shard_fields[] = {
    INT("count", pg_rundoc, shard_count, .min = 1),
    INT("index", pg_rundoc, shard_index, .min = 1),
};
static const section shard_section = SECTION(shard_fields, check_shard);

/* Streamed, the run's benchmarks were read as they came, with their first
 * error: taken from its shell (the tree's array is empty). */
static int streamed_benchmarks(void *dst, reader *r, const cJSON *v)
{
    (void)v;
    pg_rundoc *run = dst;
    shell *sh = r->sh;
    if (!r->st)
        return 0;
    if (sh && sh->rc < 0)
        return pg_error_set(sh->rc, "%s", sh->err);
    if (sh) {
        run->bench = sh->bench;
        run->nbench = sh->nbench;
        run->capbench = sh->capbench;
        sh->bench = NULL;
        sh->nbench = sh->capbench = 0;
    }
    return 1;
}

static const field run_fields[] = {
    SCHEMA(PG_RUNDOC_SCHEMA, "perfgate run document"),
    STR("perfgate_version", pg_rundoc, perfgate_version),
    STR("id", pg_rundoc, id),
    STR("commit", pg_rundoc, commit, .nullable = 1),
    BOOL("dirty", pg_rundoc, dirty),
    STR("start_time", pg_rundoc, start_time),
    STR("session", pg_rundoc, session),
    DOUBLE("load", pg_rundoc, load),
    STR("end_time", pg_rundoc, end_time),
    OBJECT("machine", AT(pg_rundoc, machine), &machine_section, .required = 1),
    STR("backend", pg_rundoc, backend, .required = 1),
    MAP("backends", read_backend),
    OBJECT("settings", 0, &settings_section),
    OBJECT("shard", 0, &shard_section),
    STRINGS("uncontrolled", pg_rundoc, uncontrolled),
    STRINGS("notices", pg_rundoc, notices),
    LIST("benchmarks", 0, "an object", read_bench, .required = 1, .begin = streamed_benchmarks),
};
static const section run_section = SECTION(run_fields);

/* One run document into a new entry of `out`. */
static int read_run(pg_rundoc_list *out, reader *r, const cJSON *jr)
{
    if (!cJSON_IsObject(jr))
        return expected(r, "a run document (an object)", jr);
    if (pg_array_grow(&out->v, &out->cap, out->n, sizeof *out->v, 4) < 0)
        return oom();
    pg_rundoc *run = &out->v[out->n++];
    memset(run, 0, sizeof *run);
    run->cpu = -1;
    run->load = -1;
    pg_strindex names = {0}, *outer = r->names;
    r->names = &names;
    int rc = read_fields(run, r, jr, &run_section);
    r->names = outer;
    pg_strindex_free(&names);
    return rc;
}

/* --- the document: a run, an array of runs, a store or note document ----- */

typedef struct storedoc {
    pg_rundoc_list *out;
    char *commit, *machine;
} storedoc;

/* Run i of "runs" (or of the root array), its benchmarks streamed into the
 * shell of the same index when there is one. */
static int read_run_at(void *dst, reader *r, const cJSON *jr, size_t i)
{
    streamed *st = r->st;
    while (st && r->next_shell < st->n && st->rec[r->next_shell].record < i)
        r->next_shell++;
    if (st)
        r->sh = r->next_shell < st->n && st->rec[r->next_shell].record == i ? &st->rec[r->next_shell] : NULL;
    return read_run(((storedoc *)dst)->out, r, jr);
}

#define RUNS LIST("runs", 0, "a run document (an object)", read_run_at, .required = 1)
#define STORE_FIELDS STR("commit", storedoc, commit, .nullable = 1), STR("machine_id", storedoc, machine), RUNS

static const field store_fields[] = {SCHEMA(PG_STOREDOC_SCHEMA, "perfgate store document"), STORE_FIELDS};
static const field note_fields[] = {SCHEMA(PG_NOTEDOC_SCHEMA, "perfgate note document"), STORE_FIELDS};
static const section store_section = SECTION(store_fields), note_section = SECTION(note_fields);
static const field runs_field = RUNS;

/* A store document: {"schema": "perfgate-store/1", "commit", "machine_id", "runs": [...]},
 * or a note document: {"schema": "perfgate-notes/1", "commit", "runs": [...]}. */
static int read_store(pg_rundoc_list *out, reader *r, const cJSON *doc)
{
    storedoc sd = {.out = out};
    const char *schema = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "schema"));
    int note = schema && !strncmp(schema, "perfgate-notes/", 15);
    int rc = read_fields(&sd, r, doc, note ? &note_section : &store_section);
    free(sd.commit);
    free(sd.machine);
    return rc;
}

static int read_doc(pg_rundoc_list *out, reader *r, const cJSON *doc)
{
    if (cJSON_IsArray(doc)) {      /* `perfgate show --format json`: the runs themselves */
        if (!pg_json_array_len(doc))
            return pg_error_set(PG_EINVAL, "%s: not a perfgate result document (an empty array: no runs)", r->file);
        storedoc sd = {.out = out};
        return read_members(&sd, r, doc, &runs_field);
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
        rc = read_bench(&run, &r, jb, index);
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
    /* A metric's members are read as they are parsed (10^5 of a large
     * document's objects), not made a tree to walk (util/json_scratch.h). */
    const char *metric_keys[sizeof metric_fields / sizeof *metric_fields];
    for (size_t i = 0; i < metric_section.n; i++)
        metric_keys[i] = metric_fields[i].key;
    pg_json_stream how = {.key = "benchmarks", .outer = "runs", .each = take_bench, .ctx = &st,
                          .flat = "metrics", .flat_keys = metric_keys, .nflat = metric_section.n};
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
