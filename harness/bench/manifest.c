/* harness/bench/manifest.c — perfgate.json, strictly checked. A typo in a key must
 * not silently turn into "use the default", so unknown keys are errors. */
#include "harness/bench/bench.h"
#include "util/array.h"
#include "util/jsonfile.h"
#include "counters/backend.h"
#include "util/error.h"
#include "util/metrics.h"
#include "util/fileio.h"
#include "util/suggest.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dupstr(const char *s) { return s ? strdup(s) : NULL; }

static int check_keys(const cJSON *obj, const char *const *allowed, const char *file, const char *where)
{
    for (const cJSON *it = obj->child; it; it = it->next) {
        int ok = 0;
        pg_suggest s;
        pg_suggest_init(&s, it->string);
        for (const char *const *k = allowed; *k && !ok; k++) {
            ok = !strcmp(it->string, *k);
            pg_suggest_offer(&s, *k);
        }
        const char *best = pg_suggest_best(&s);
        if (!ok) {
            if (best)
                return pg_error_set(PG_EINVAL, "%s: %s: unknown key \"%s\" (did you mean \"%s\"?)", file, where, it->string, best);
            return pg_error_set(PG_EINVAL, "%s: %s: unknown key \"%s\"", file, where, it->string);
        }
    }
    return 0;
}

static int get_int(int *out, const cJSON *obj, const char *key, int min, const char *file, const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return 0;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < min || v->valuedouble > INT_MAX)
        return pg_error_set(PG_EINVAL, "%s: %s.%s: expected a whole number >= %d", file, where, key, min);
    *out = (int)v->valuedouble;
    return 0;
}

static int get_timeout(double *out, const cJSON *obj, const char *file, const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "timeout");
    if (!v)
        return 0;
    if (!cJSON_IsNumber(v) || !(v->valuedouble > 0))
        return pg_error_set(PG_EINVAL, "%s: %s.timeout: expected a number of seconds > 0", file, where);
    *out = v->valuedouble;
    return 0;
}

/* "metrics": ["instructions", ...], names of the registry (util/metrics.h). */
static int get_metrics(pg_metric_set *out, const cJSON *obj, const char *file, const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "metrics"), *it;
    if (!v)
        return 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
        return pg_error_set(PG_EINVAL, "%s: %s.metrics: expected a non-empty array of metric names like [\"instructions\"]",
                            file, where);
    pg_metric_set set = 0;
    int i = 0;
    cJSON_ArrayForEach(it, v) {
        if (!cJSON_IsString(it))
            return pg_error_set(PG_EINVAL, "%s: %s.metrics[%d]: expected a metric name", file, where, i);
        if (pg_metric_set_add(&set, it->valuestring) < 0)
            return pg_error_wrap(PG_EINVAL, "%s: %s.metrics[%d]", file, where, i);
        i++;
    }
    *out = set;
    return 0;
}

/* "markers": true or false (absent: detected from the program's note). */
static int get_markers(int *out, const cJSON *obj, const char *file, const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "markers");
    if (!v)
        return 0;
    if (!cJSON_IsBool(v))
        return pg_error_set(PG_EINVAL, "%s: %s.markers: expected true or false", file, where);
    *out = cJSON_IsTrue(v);
    return 0;
}

int pg_count_calls_check(const char *list, const char **bad, int *badlen)
{
    /* A C identifier (or a C++ mangled name): what a symbol table holds. */
    const char *p = list;
    size_t n = 0;
    for (;;) {
        size_t len = strcspn(p, ", ");
        if (len) {
            int ok = len < 128 && !(p[0] >= '0' && p[0] <= '9');
            for (size_t i = 0; i < len && ok; i++)
                ok = p[i] == '_' || p[i] == '.' || p[i] == '$' || (p[i] >= '0' && p[i] <= '9') ||
                     ((p[i] | 0x20) >= 'a' && (p[i] | 0x20) <= 'z');
            if (!ok) {
                *bad = p;
                *badlen = len < 120 ? (int)len : 120;   /* enough to recognise it by */
                return PG_EINVAL;
            }
            n++;
        }
        if (!p[len])
            break;
        p += len + 1;
    }
    *bad = list;
    *badlen = 0;
    return n ? 0 : PG_EINVAL;
}

/* "count_calls": ["malloc", "free"] or "malloc,free", kept as a comma list. */
static int get_calls(char **out, const cJSON *obj, const char *file, const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "count_calls");
    if (!v)
        return 0;
    size_t n = 1;
    const cJSON *it;
    if (cJSON_IsString(v)) {
        n += strlen(v->valuestring);
    } else if (cJSON_IsArray(v)) {
        cJSON_ArrayForEach(it, v) {
            if (!cJSON_IsString(it))
                return pg_error_set(PG_EINVAL, "%s: %s.count_calls: expected function names (strings)", file, where);
            n += strlen(it->valuestring) + 1;
        }
    } else {
        return pg_error_set(PG_EINVAL, "%s: %s.count_calls: expected an array of function names", file, where);
    }
    char *s = calloc(1, n);
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if (cJSON_IsString(v))
        strcpy(s, v->valuestring);
    else
        cJSON_ArrayForEach(it, v) {
            if (*s)
                strcat(s, ",");
            strcat(s, it->valuestring);
        }
    const char *bad;
    int badlen;
    if (pg_count_calls_check(s, &bad, &badlen) < 0) {
        int rc = pg_error_set(PG_EINVAL, "%s: %s.count_calls: %s%.*s%s", file, where, badlen ? "\"" : "no function names",
                              badlen, bad, badlen ? "\" is not a function name" : "");
        free(s);    /* after the message: bad points into it */
        return rc;
    }
    free(*out);
    *out = s;
    return 0;
}

/* "1%", "0.5%", or a bare number of percent. */
static int check_thresholds(pg_thresholds *out, int *has, const cJSON *obj, const char *file, const char *where)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(obj, "thresholds");
    if (!t)
        return 0;
    if (!cJSON_IsObject(t))
        return pg_error_set(PG_EINVAL, "%s: %s.thresholds: expected an object like {\"instructions\": \"1%%\"}", file, where);
    for (const cJSON *it = t->child; it; it = it->next) {
        double pct = -1;
        if (cJSON_IsNumber(it)) {
            pct = it->valuedouble;
        } else if (cJSON_IsString(it)) {
            char *end;
            pct = strtod(it->valuestring, &end);
            if (end == it->valuestring || (*end && strcmp(end, "%")))
                pct = -1;
        }
        if (!(pct >= 0) || pct > 1e6 || !*it->string)
            return pg_error_set(PG_EINVAL, "%s: %s.thresholds.%s: expected a percentage like \"1%%\"", file, where, it->string);
        /* A misspelt name would never match a metric: the threshold would be
         * silently ignored. A raw perf event is written as libpfm4 names it,
         * with its PMU ("perf::L1-dcache-load-misses"). */
        if (!pg_metric_known(it->string, pg_backend_events()) && !strchr(it->string, ':')) {
            char mean[128];
            return pg_error_set(PG_EINVAL, "%s: %s.thresholds: unknown metric '%s'%s (docs/metrics.md lists them)", file, where,
                                it->string, pg_metric_suggest(mean, sizeof mean, it->string, pg_backend_events(), NULL, 0));
        }
    }
    pg_thresholds th = {0};
    for (const cJSON *it = t->child; it; it = it->next) {
        double pct = cJSON_IsNumber(it) ? it->valuedouble : strtod(it->valuestring, NULL);
        if (pg_thresholds_set(&th, it->string, pct) < 0) {
            pg_thresholds_free(&th);
            return PG_ENOMEM;
        }
    }
    pg_thresholds_free(out);
    *out = th;
    *has = 1;
    return 0;
}

/* A path relative to the manifest's directory, made absolute. */
static char *resolve(const char *dir, const char *p)
{
    if (p[0] == '/')
        return strdup(p);
    if (!strcmp(p, "."))
        return strdup(dir);
    size_t n = strlen(dir) + strlen(p) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", dir, p);
    return s;
}

const char *pg_bench_name_problem(const char *name)
{
    if (!*name)
        return "is empty";
    /* A name is a one-line label (a table row, a progress line), and a '/'
     * would read as a directory. */
    if (strchr(name, '\n'))
        return "may not contain a newline";
    if (strchr(name, '/'))
        return "may not contain '/'";
    return NULL;
}

int pg_bench_new_entry(pg_benchset *s, pg_bench **out)
{
    int rc = pg_array_grow(&s->v, &s->cap, s->n, sizeof *s->v, 8);
    if (rc < 0)
        return rc;
    pg_bench *b = &s->v[s->n++];
    memset(b, 0, sizeof *b);
    b->repeat = b->warmup = b->markers = -1;
    *out = b;
    return 0;
}

/* "kind": "command" (the default) or "google-benchmark" (a suite: "name"
 * optional, a prefix; "filter" its --benchmark_filter). */
static int parse_kind(pg_bench_kind *kind, const cJSON *e, const char *file, const char *where)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(e, "kind");
    *kind = PG_BENCH_COMMAND;
    if (!k || (cJSON_IsString(k) && !strcmp(k->valuestring, "command")))
        return 0;
    if (cJSON_IsString(k) && !strcmp(k->valuestring, "google-benchmark")) {
        *kind = PG_BENCH_GB_SUITE;
        return 0;
    }
    return pg_error_set(PG_EINVAL, "%s: %s.kind: expected \"command\" or \"google-benchmark\"", file, where);
}

const char *pg_cargo_kind_name(pg_cargo_kind k)
{
    return k == PG_CARGO_BENCH ? "bench" : k == PG_CARGO_BIN ? "bin" : "example";
}

void pg_cargo_target_free(pg_cargo_target *t)
{
    if (!t)
        return;
    free(t->target);
    free(t->package);
    free(t->features);
    free(t->profile);
    free(t->dir);
    free(t->manifest_path);
    free(t);
}

/* A cargo name (package, target, feature, profile): what Cargo.toml can
 * hold, and nothing an option parser could take for an option. */
static int cargo_word(const cJSON *v, int slash_ok)
{
    if (!cJSON_IsString(v) || !v->valuestring[0] || v->valuestring[0] == '-')
        return 0;
    for (const char *p = v->valuestring; *p; p++)
        if (!((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') && !(*p >= '0' && *p <= '9') && *p != '_' && *p != '-' &&
            !(slash_ok && *p == '/'))
            return 0;
    return 1;
}

/* "cargo": {"bench" | "bin" | "example": NAME, "package", "features",
 * "default_features", "profile", "manifest_path"} (docs/manifest.md). */
static int parse_cargo(pg_cargo_target **out, const cJSON *c, const char *file, const char *bwhere, const char *dir)
{
    static const char *const keys[] = {"bench", "bin", "example", "package", "features", "default_features",
                                       "profile", "manifest_path", NULL};
    char where[96];
    snprintf(where, sizeof where, "%s.cargo", bwhere);
    if (!cJSON_IsObject(c))
        return pg_error_set(PG_EINVAL, "%s: %s: expected an object like {\"bench\": \"NAME\"}", file, where);
    int rc = check_keys(c, keys, file, where);
    if (rc < 0)
        return rc;
    const cJSON *name = NULL;
    pg_cargo_kind kind = PG_CARGO_BENCH;
    for (int k = PG_CARGO_BENCH; k <= PG_CARGO_EXAMPLE; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, pg_cargo_kind_name((pg_cargo_kind)k));
        if (!v)
            continue;
        if (name)
            return pg_error_set(PG_EINVAL, "%s: %s: one target: \"bench\", \"bin\" or \"example\", not two", file, where);
        if (!cargo_word(v, 0))
            return pg_error_set(PG_EINVAL, "%s: %s.%s: expected a target's name", file, where,
                                pg_cargo_kind_name((pg_cargo_kind)k));
        name = v;
        kind = (pg_cargo_kind)k;
    }
    if (!name)
        return pg_error_set(PG_EINVAL, "%s: %s: which target: \"bench\", \"bin\" or \"example\" and its name", file, where);
    const cJSON *pkg = cJSON_GetObjectItemCaseSensitive(c, "package");
    const cJSON *feat = cJSON_GetObjectItemCaseSensitive(c, "features");
    const cJSON *deff = cJSON_GetObjectItemCaseSensitive(c, "default_features");
    const cJSON *prof = cJSON_GetObjectItemCaseSensitive(c, "profile");
    const cJSON *mp = cJSON_GetObjectItemCaseSensitive(c, "manifest_path");
    if (pkg && !cargo_word(pkg, 0))
        return pg_error_set(PG_EINVAL, "%s: %s.package: expected a package's name", file, where);
    if (prof && !cargo_word(prof, 0))
        return pg_error_set(PG_EINVAL, "%s: %s.profile: expected a profile's name", file, where);
    if (deff && !cJSON_IsBool(deff))
        return pg_error_set(PG_EINVAL, "%s: %s.default_features: expected true or false", file, where);
    if (mp && (!cJSON_IsString(mp) || !*mp->valuestring))
        return pg_error_set(PG_EINVAL, "%s: %s.manifest_path: expected the path of a Cargo.toml", file, where);
    size_t flen = 1;
    const cJSON *it;
    if (feat && !cJSON_IsArray(feat))
        return pg_error_set(PG_EINVAL, "%s: %s.features: expected an array of feature names", file, where);
    int i = 0;
    cJSON_ArrayForEach(it, feat) {
        /* "dep/feature" is a dependency's feature, as cargo writes it. */
        if (!cargo_word(it, 1))
            return pg_error_set(PG_EINVAL, "%s: %s.features[%d]: expected a feature's name", file, where, i);
        flen += strlen(it->valuestring) + 1;
        i++;
    }
    pg_cargo_target *t = calloc(1, sizeof *t);
    if (!t)
        return pg_error_set(PG_ENOMEM, "out of memory");
    t->kind = kind;
    t->target = strdup(name->valuestring);
    t->package = pkg ? strdup(pkg->valuestring) : NULL;
    t->no_default_features = deff && cJSON_IsFalse(deff);
    t->profile = strdup(prof ? prof->valuestring : kind == PG_CARGO_BENCH ? "bench" : "release");
    t->dir = strdup(dir);
    t->manifest_path = mp ? resolve(dir, mp->valuestring) : NULL;
    if (i && (t->features = calloc(1, flen)))
        cJSON_ArrayForEach(it, feat) {
            if (*t->features)
                strcat(t->features, ",");
            strcat(t->features, it->valuestring);
        }
    if (!t->target || (pkg && !t->package) || !t->profile || !t->dir || (mp && !t->manifest_path) ||
        (i && !t->features)) {
        pg_cargo_target_free(t);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    *out = t;
    return 0;
}

static int parse_bench(pg_benchset *s, const cJSON *e, const char *file, const char *dir, int idx)
{
    static const char *const keys[] = {"name", "kind", "filter", "command", "cargo", "args", "cwd", "env", "repeat",
                                       "warmup", "timeout", "thresholds", "metrics", "markers", "count_calls", NULL};
    char where[64];
    snprintf(where, sizeof where, "benchmarks[%d]", idx);
    if (!cJSON_IsObject(e))
        return pg_error_set(PG_EINVAL, "%s: %s: expected an object with \"name\" and \"command\"", file, where);
    int rc = check_keys(e, keys, file, where);
    pg_bench_kind kind;
    if (rc < 0 || (rc = parse_kind(&kind, e, file, where)) < 0)
        return rc;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
    const cJSON *filter = cJSON_GetObjectItemCaseSensitive(e, "filter");
    if (filter && (kind != PG_BENCH_GB_SUITE || !cJSON_IsString(filter) || !*filter->valuestring))
        return pg_error_set(PG_EINVAL, "%s: %s.filter: %s", file, where, kind != PG_BENCH_GB_SUITE ?
                            "only for \"kind\": \"google-benchmark\"" : "expected a non-empty regex string");
    if (kind == PG_BENCH_GB_SUITE && !name) {
        /* A suite's benchmarks are named after themselves. */
    } else if (!cJSON_IsString(name) || !*name->valuestring) {
        return pg_error_set(PG_EINVAL, "%s: %s.name: required, a non-empty string", file, where);
    } else if (pg_bench_name_problem(name->valuestring)) {
        return pg_error_set(PG_EINVAL, "%s: %s.name: \"%s\" %s", file, where, name->valuestring,
                            pg_bench_name_problem(name->valuestring));
    }
    for (size_t i = 0; name && kind == PG_BENCH_COMMAND && i < s->n; i++)
        if (s->v[i].kind != PG_BENCH_GB_SUITE && !strcmp(s->v[i].name, name->valuestring))
            return pg_error_set(PG_EINVAL, "%s: %s.name: \"%s\" is used twice", file, where, name->valuestring);
    const cJSON *cargo = cJSON_GetObjectItemCaseSensitive(e, "cargo");
    /* A cargo target's argv is its executable, found after the build, then "args". */
    const char *argk = cargo ? "args" : "command";
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(e, argk);
    if (cargo && cJSON_GetObjectItemCaseSensitive(e, "command"))
        return pg_error_set(PG_EINVAL, "%s: %s: \"command\" and \"cargo\" both given: a cargo target's executable is "
                            "found by the build (its arguments go in \"args\")", file, where);
    if (cargo && kind != PG_BENCH_COMMAND)
        return pg_error_set(PG_EINVAL, "%s: %s.cargo: only for \"kind\": \"command\"", file, where);
    if (!cargo && cJSON_GetObjectItemCaseSensitive(e, "args"))
        return pg_error_set(PG_EINVAL, "%s: %s.args: only with \"cargo\" (a command's arguments are in \"command\")",
                            file, where);
    int argc = cJSON_GetArraySize(cmd);
    if (cargo ? cmd && !cJSON_IsArray(cmd) : !cJSON_IsArray(cmd) || argc == 0)
        return pg_error_set(PG_EINVAL, "%s: %s.%s: %s array of strings%s", file, where, argk,
                            cargo ? "expected an" : "required, a non-empty", cargo ? "" : " (or a \"cargo\" target)");
    const cJSON *it;
    cJSON_ArrayForEach(it, cmd) if (!cJSON_IsString(it))
        return pg_error_set(PG_EINVAL, "%s: %s.%s: every element must be a string", file, where, argk);
    const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(e, "cwd");
    if (cwd && !cJSON_IsString(cwd))
        return pg_error_set(PG_EINVAL, "%s: %s.cwd: expected a string", file, where);
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(e, "env");
    if (env) {
        if (!cJSON_IsObject(env))
            return pg_error_set(PG_EINVAL, "%s: %s.env: expected an object of strings", file, where);
        cJSON_ArrayForEach(it, env) if (!cJSON_IsString(it))
            return pg_error_set(PG_EINVAL, "%s: %s.env.%s: expected a string", file, where, it->string);
    }

    pg_cargo_target *ct = NULL;
    if (cargo && (rc = parse_cargo(&ct, cargo, file, where, dir)) < 0)
        return rc;
    pg_bench *b = NULL;
    if ((rc = pg_bench_new_entry(s, &b)) < 0) {
        pg_cargo_target_free(ct);
        return rc;
    }
    b->kind = kind;
    b->cargo = ct;
    s->has_cargo |= ct != NULL;
    b->name = name ? dupstr(name->valuestring) : NULL;
    b->gb_filter = filter ? dupstr(filter->valuestring) : NULL;
    b->source = dupstr(file);
    if ((rc = get_int(&b->repeat, e, "repeat", 1, file, where)) < 0 ||
        (rc = get_int(&b->warmup, e, "warmup", 0, file, where)) < 0 ||
        (rc = get_timeout(&b->timeout, e, file, where)) < 0 ||
        (rc = get_metrics(&b->metrics, e, file, where)) < 0 ||
        (rc = check_thresholds(&b->thresholds, &b->has_thresholds, e, file, where)) < 0 ||
        (rc = get_markers(&b->markers, e, file, where)) < 0 || (rc = get_calls(&b->count_calls, e, file, where)) < 0)
        return rc;
    if (ct) {
        /* Until the build finds the executable: what a message may show. */
        b->argv = calloc((size_t)argc + 2, sizeof *b->argv);
        size_t l = strlen(ct->target) + 64;
        if (!b->argv || !(b->argv[0] = malloc(l)))
            return pg_error_set(PG_ENOMEM, "out of memory");
        snprintf(b->argv[0], l, "(cargo %s %s, not built yet)", pg_cargo_kind_name(ct->kind), ct->target);
        int i = 1;
        cJSON_ArrayForEach(it, cmd) b->argv[i++] = strdup(it->valuestring);
    } else {
        b->argv = calloc((size_t)argc + 1, sizeof *b->argv);
    }
    int i = 0;
    const cJSON *words = ct ? NULL : cmd;   /* a cargo target's are in argv already */
    cJSON_ArrayForEach(it, words) {
        const char *a = it->valuestring;
        b->argv[i] = i == 0 && strchr(a, '/') ? resolve(dir, a) : strdup(a);
        if (i == 0)
            b->argv0_in_tree = strchr(a, '/') && a[0] != '/';
        i++;
    }
    b->cwd = resolve(dir, cwd ? cwd->valuestring : ".");
    if (env) {
        int n = cJSON_GetArraySize(env), k = 0;
        b->env = calloc((size_t)n + 1, sizeof *b->env);
        cJSON_ArrayForEach(it, env) {
            size_t l = strlen(it->string) + strlen(it->valuestring) + 2;
            b->env[k] = malloc(l);
            snprintf(b->env[k++], l, "%s=%s", it->string, it->valuestring);
        }
    }
    return 0;
}

int pg_manifest_load(pg_benchset *s, const char *path, const char *base)
{
    char *text;
    size_t len;
    int rc = pg_file_read(&text, &len, path);
    if (rc < 0)
        return rc;
    rc = pg_manifest_parse(s, text, len, path, base);
    free(text);
    return rc;
}

int pg_manifest_parse(pg_benchset *s, const char *text, size_t len, const char *path, const char *base)
{
    static const char *const top[] = {"build", "build_timeout", "defaults", "benchmarks", "$schema", NULL};
    static const char *const defk[] = {"repeat", "warmup", "timeout", "thresholds", "metrics", "markers", "count_calls", NULL};
    cJSON *doc = NULL;
    int rc = pg_json_parse(&doc, text, len, path);
    if (rc < 0)
        return rc;

    char dir[4096];
    pg_path_dirname(dir, sizeof dir, path);
    char absdir[4096];
    if (base)
        snprintf(absdir, sizeof absdir, "%s", base);
    else if (!realpath(dir, absdir))
        snprintf(absdir, sizeof absdir, "%s", dir);

    if (!cJSON_IsObject(doc)) {
        rc = pg_error_set(PG_EINVAL, "%s: expected a JSON object with \"benchmarks\"", path);
        goto out;
    }
    if ((rc = check_keys(doc, top, path, "top level")) < 0)
        goto out;
    const cJSON *build = cJSON_GetObjectItemCaseSensitive(doc, "build");
    if (build && !cJSON_IsString(build)) {
        rc = pg_error_set(PG_EINVAL, "%s: build: expected a shell command string", path);
        goto out;
    }
    const cJSON *bt = cJSON_GetObjectItemCaseSensitive(doc, "build_timeout");
    if (bt && (!cJSON_IsNumber(bt) || !(bt->valuedouble > 0) || !isfinite(bt->valuedouble))) {
        rc = pg_error_set(PG_EINVAL, "%s: build_timeout: expected a number of seconds > 0", path);
        goto out;
    }
    if (build && !s->build) {
        s->build = strdup(build->valuestring);
        s->build_manifest = strdup(path);
        s->build_timeout = bt ? bt->valuedouble : 0;
    }
    const cJSON *def = cJSON_GetObjectItemCaseSensitive(doc, "defaults");
    if (def) {
        if (!cJSON_IsObject(def)) {
            rc = pg_error_set(PG_EINVAL, "%s: defaults: expected an object", path);
            goto out;
        }
        if ((rc = check_keys(def, defk, path, "defaults")) < 0 ||
            (rc = get_int(&s->def_repeat, def, "repeat", 1, path, "defaults")) < 0 ||
            (rc = get_int(&s->def_warmup, def, "warmup", 0, path, "defaults")) < 0 ||
            (rc = get_timeout(&s->def_timeout, def, path, "defaults")) < 0 ||
            (rc = get_metrics(&s->def_metrics, def, path, "defaults")) < 0 ||
            (rc = check_thresholds(&s->def_thresholds, &s->has_def_thresholds, def, path, "defaults")) < 0 ||
            (rc = get_markers(&s->def_markers, def, path, "defaults")) < 0 ||
            (rc = get_calls(&s->def_count_calls, def, path, "defaults")) < 0)
            goto out;
    }
    const cJSON *benches = cJSON_GetObjectItemCaseSensitive(doc, "benchmarks");
    if (!cJSON_IsArray(benches) || cJSON_GetArraySize(benches) == 0) {
        rc = pg_error_set(PG_EINVAL, "%s: benchmarks: required, a non-empty array", path);
        goto out;
    }
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, benches) {
        if ((rc = parse_bench(s, e, path, absdir, i++)) < 0)
            goto out;
    }
out:
    cJSON_Delete(doc);
    return rc;
}
