/* harness/measure/cargo.c — see cargo.h. */
#include "harness/measure/cargo.h"
#include "counters/elfsym.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/jsonfile.h"
#include "util/suggest.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most of cargo's stdout read: a JSON message per compiled crate, a few
 * KiB each, so some thousands of crates. */
#define CARGO_OUT_CAP ((size_t)32 << 20)
/* The targets listed in an error, before "...". */
#define LIST_MAX 400

void pg_cargo_pkg_free(pg_cargo_pkg *p)
{
    free(p->name);
    free(p->id);
    free(p->workspace_root);
    free(p->target_directory);
    memset(p, 0, sizeof *p);
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Whether a metadata or artifact "target" object is of kind k and (name non-NULL) named so. */
static int target_is(const cJSON *target, pg_cargo_kind k, const char *name)
{
    const char *tn = str_of(target, "name");
    if (!tn || (name && strcmp(tn, name)))
        return 0;
    const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(target, "kind"), *it;
    cJSON_ArrayForEach(it, kinds) if (cJSON_IsString(it) && !strcmp(it->valuestring, pg_cargo_kind_name(k)))
        return 1;
    return 0;
}

static int has_target(const cJSON *pkg, const pg_cargo_target *t)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(pkg, "targets")) if (target_is(it, t->kind, t->target))
        return 1;
    return 0;
}

/* Appends ", name" to list[0..len) while it fits (then "..." once). */
static void list_add(char *list, size_t len, const char *name)
{
    size_t n = strlen(list);
    if (n + strlen(name) + 8 >= len) {
        if (n + 5 < len && (n < 3 || strcmp(list + n - 3, "...")))
            strcat(list, n ? ", ..." : "...");
        return;
    }
    snprintf(list + n, len - n, "%s%s", n ? ", " : "", name);
}

/* "no bench target "x" in package "p" (did you mean ...?; its bench targets: a, b)". */
static int no_target(const cJSON *pkgs, const pg_cargo_target *t, const char *who)
{
    const char *kind = pg_cargo_kind_name(t->kind);
    char list[LIST_MAX] = "", mean[160] = "";
    pg_suggest s;
    pg_suggest_init(&s, t->target);
    const cJSON *p, *it;
    const char *one = NULL;
    int npk = 0;
    cJSON_ArrayForEach(p, pkgs) {
        const char *pn = str_of(p, "name");
        if (!pn || (t->package && strcmp(pn, t->package)))
            continue;
        npk++;
        one = pn;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(p, "targets")) if (target_is(it, t->kind, NULL)) {
            pg_suggest_offer(&s, str_of(it, "name"));
            list_add(list, sizeof list, str_of(it, "name"));
        }
    }
    if (pg_suggest_best(&s))
        snprintf(mean, sizeof mean, "did you mean \"%s\"? ", pg_suggest_best(&s));
    char in[160];
    if (npk == 1)
        snprintf(in, sizeof in, "package \"%s\"", one);
    else
        snprintf(in, sizeof in, "the workspace's packages");
    if (!*list)
        return pg_error_set(PG_EINVAL, "%s: no %s target \"%s\": %s has no %s targets", who, kind, t->target, in, kind);
    return pg_error_set(PG_EINVAL, "%s: no %s target \"%s\" in %s (%sits %s targets: %s)", who, kind, t->target, in, mean,
                        kind, list);
}

int pg_cargo_find_package(pg_cargo_pkg *out, const char *json, size_t len, const pg_cargo_target *t, const char *who)
{
    memset(out, 0, sizeof *out);
    cJSON *doc = NULL;
    int rc = pg_json_parse(&doc, json, len, "cargo metadata's output");
    if (rc < 0)
        return rc;
    const cJSON *pkgs = cJSON_GetObjectItemCaseSensitive(doc, "packages"), *p, *found = NULL;
    const char *root = str_of(doc, "workspace_root"), *tdir = str_of(doc, "target_directory");
    if (!cJSON_IsArray(pkgs) || !root || !tdir) {
        rc = pg_error_set(PG_EINVAL, "%s: cargo metadata's output has no packages, workspace_root or target_directory",
                          who);
        goto out;
    }
    char names[LIST_MAX] = "", with[LIST_MAX] = "";
    int nwith = 0, npkg = 0;
    cJSON_ArrayForEach(p, pkgs) {
        const char *pn = str_of(p, "name");
        if (!pn || !str_of(p, "id"))
            continue;
        list_add(names, sizeof names, pn);
        if (t->package && strcmp(pn, t->package))
            continue;
        npkg++;
        if (has_target(p, t)) {
            list_add(with, sizeof with, pn);
            found = found ? found : p;
            nwith++;
        }
    }
    if (t->package && !npkg) {
        pg_suggest s;
        char mean[160] = "";
        pg_suggest_init(&s, t->package);
        cJSON_ArrayForEach(p, pkgs) if (str_of(p, "name")) pg_suggest_offer(&s, str_of(p, "name"));
        if (pg_suggest_best(&s))
            snprintf(mean, sizeof mean, "did you mean \"%s\"? ", pg_suggest_best(&s));
        rc = pg_error_set(PG_EINVAL, "%s: no package \"%s\" in the cargo workspace %s (%sits packages: %s)", who,
                          t->package, root, mean, names);
    } else if (!found) {
        rc = no_target(pkgs, t, who);
    } else if (nwith > 1) {
        rc = pg_error_set(PG_EINVAL, "%s: packages %s all have a %s target \"%s\": say which with \"package\"", who, with,
                          pg_cargo_kind_name(t->kind), t->target);
    } else {
        out->name = strdup(str_of(found, "name"));
        out->id = strdup(str_of(found, "id"));
        out->workspace_root = strdup(root);
        out->target_directory = strdup(tdir);
        if (!out->name || !out->id || !out->workspace_root || !out->target_directory) {
            pg_cargo_pkg_free(out);
            rc = pg_error_set(PG_ENOMEM, "out of memory");
        }
    }
out:
    cJSON_Delete(doc);
    return rc;
}

int pg_cargo_find_executable(char **exe, const char *text, size_t len, const char *id, const pg_cargo_target *t)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        /* Most lines are other crates' artifacts: parsed only when they may be ours. */
        cJSON *m = n > 2 && p[0] == '{' ? cJSON_ParseWithLength(p, n) : NULL;
        const char *reason = str_of(m, "reason"), *pid = str_of(m, "package_id"), *x = str_of(m, "executable");
        if (reason && !strcmp(reason, "compiler-artifact") && pid && !strcmp(pid, id) && x && x[0] == '/' &&
            target_is(cJSON_GetObjectItemCaseSensitive(m, "target"), t->kind, t->target)) {
            *exe = strdup(x);
            cJSON_Delete(m);
            return *exe ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
        }
        cJSON_Delete(m);
        p += n + 1;
    }
    return pg_error_set(PG_ENOTFOUND, "cargo built no executable for %s target \"%s\" of %s",
                        pg_cargo_kind_name(t->kind), t->target, id);
}

/* `path` is `dir` or inside it. */
static int is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* The log of one cargo run, beside the build's: `name` in its directory. */
static const char *log_of(char *buf, size_t len, const pg_build *b, const char *name)
{
    if (!b->log)
        return NULL;
    char dir[PATH_MAX];
    pg_path_dirname(dir, sizeof dir, b->log);
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

/* A command line as the "building:" line shows it (names are cargo words). */
static void shown_of(char *buf, size_t len, char *const *argv)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; argv[i] && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? " " : "", argv[i]);
}

/* One cargo run's place: where it runs and which Cargo.toml. */
static int same_workspace(const pg_cargo_target *a, const pg_cargo_target *b)
{
    return !strcmp(a->dir, b->dir) && !a->manifest_path == !b->manifest_path &&
           (!a->manifest_path || !strcmp(a->manifest_path, b->manifest_path));
}

/* Entries built by one cargo run: one package, profile and set of features. */
static int same_build(const pg_cargo_target *a, const pg_cargo_pkg *pa, const pg_cargo_target *b, const pg_cargo_pkg *pb)
{
    return same_workspace(a, b) && !strcmp(pa->id, pb->id) && !strcmp(a->profile, b->profile) &&
           a->no_default_features == b->no_default_features && !a->features == !b->features &&
           (!a->features || !strcmp(a->features, b->features));
}

/* `cargo metadata` of entry e's workspace, into *json. */
static int metadata(char **json, size_t *len, const pg_bench *e, const pg_build *b, int nth)
{
    const pg_cargo_target *t = e->cargo;
    char *argv[] = {"cargo", "metadata", "--offline", "--no-deps", "--format-version", "1", "--color", "never",
                    t->manifest_path ? "--manifest-path" : NULL, t->manifest_path, NULL};
    char shown[PATH_MAX + 128], log[PATH_MAX + 80], name[64];
    shown_of(shown, sizeof shown, argv);
    snprintf(name, sizeof name, "cargo-metadata-%d.log", nth);
    pg_build at = *b;
    at.dir = t->dir;
    return pg_build_exec(json, len, CARGO_OUT_CAP, &at, argv, "cargo metadata", shown, log_of(log, sizeof log, b, name));
}

/* Builds the entries marked in `group` (one package, profile, features) and
 * finds each one's executable. */
static int build_group(pg_benchset *set, const unsigned char *group, const pg_cargo_pkg *pkg, const pg_build *b, int nth)
{
    const pg_cargo_target *t = NULL;
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++)
        if (group[i]) {
            t = t ? t : set->v[i].cargo;
            n++;
        }
    char **argv = calloc(2 * n + 24, sizeof *argv), tdir[PATH_MAX + 16];
    if (!argv)
        return pg_error_set(PG_ENOMEM, "out of memory");
    size_t k = 0;
    argv[k++] = "cargo";
    argv[k++] = "build";
    argv[k++] = "--offline";
    argv[k++] = "--message-format=json-render-diagnostics";
    if (t->manifest_path) {
        argv[k++] = "--manifest-path";
        argv[k++] = t->manifest_path;
    }
    argv[k++] = "--package";
    argv[k++] = pkg->name;
    argv[k++] = "--profile";
    argv[k++] = t->profile;
    if (t->features) {
        argv[k++] = "--features";
        argv[k++] = t->features;
    }
    if (t->no_default_features)
        argv[k++] = "--no-default-features";
    /* A revision's build stays in its checkout: two revisions never share a target directory. */
    if (b->checkout && b->dir && !is_under(pkg->target_directory, b->dir) && is_under(pkg->workspace_root, b->dir)) {
        snprintf(tdir, sizeof tdir, "%s/target", pkg->workspace_root);
        argv[k++] = "--target-dir";
        argv[k++] = tdir;
    }
    for (size_t i = 0; i < set->n; i++) {
        const pg_cargo_target *c = set->v[i].cargo;
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = group[j] && set->v[j].cargo->kind == c->kind && !strcmp(set->v[j].cargo->target, c->target);
        if (group[i] && !dup) {
            argv[k++] = c->kind == PG_CARGO_BENCH ? "--bench" : c->kind == PG_CARGO_BIN ? "--bin" : "--example";
            argv[k++] = c->target;
        }
    }
    char shown[8192], log[PATH_MAX + 80], name[64];
    shown_of(shown, sizeof shown, argv);
    snprintf(name, sizeof name, "cargo-%d.log", nth);
    pg_build at = *b;
    at.dir = t->dir;
    char *out = NULL;
    size_t len = 0;
    int rc = pg_build_exec(&out, &len, CARGO_OUT_CAP, &at, argv, "cargo", shown, log_of(log, sizeof log, b, name));
    free(argv);
    for (size_t i = 0; i < set->n && rc == 0; i++) {
        pg_bench *e = &set->v[i];
        char *exe = NULL;
        struct stat st;
        if (!group[i])
            continue;
        if ((rc = pg_cargo_find_executable(&exe, out, len, pkg->id, e->cargo)) < 0) {
            rc = pg_error_wrap(rc, "%s: benchmark \"%s\"", e->source, e->name);
            break;
        }
        if (stat(exe, &st) < 0 || !S_ISREG(st.st_mode) || access(exe, X_OK) < 0) {
            rc = pg_error_set(PG_EINVAL, "%s: benchmark \"%s\": cargo named %s, which is not an executable file",
                              e->source, e->name, exe);
            free(exe);
            break;
        }
        free(e->argv[0]);
        e->argv[0] = exe;
        /* Inside the tree it is run by its path from the working directory (canon.h). */
        e->argv0_in_tree = b->dir && is_under(exe, b->dir);
    }
    free(out);
    return rc;
}

int pg_cargo_build(pg_benchset *set, const pg_build *b)
{
    char cargo[PATH_MAX];
    if (pg_elfsym_which(cargo, "cargo", NULL) < 0)
        return pg_error_set(PG_ENOTFOUND, "%s names cargo targets, and there is no cargo on PATH (rustup puts it in "
                            "~/.cargo/bin)", set->n ? set->v[0].source : "the manifest");
    size_t n = set->n;
    pg_cargo_pkg *pkgs = calloc(n ? n : 1, sizeof *pkgs);
    char **meta = calloc(n ? n : 1, sizeof *meta);
    size_t *mlen = calloc(n ? n : 1, sizeof *mlen);
    unsigned char *done = calloc(n ? n : 1, 1), *group = calloc(n ? n : 1, 1);
    int rc = pkgs && meta && mlen && done && group ? 0 : pg_error_set(PG_ENOMEM, "out of memory"), nth = 0;
    /* Every entry's package first, one `cargo metadata` per workspace: a
     * wrong name is said before anything is compiled. */
    for (size_t i = 0; i < n && rc == 0; i++) {
        const pg_bench *e = &set->v[i];
        if (!e->cargo)
            continue;
        size_t j = 0;
        while (j < i && !(set->v[j].cargo && same_workspace(set->v[j].cargo, e->cargo)))
            j++;
        if (j == i)
            rc = metadata(&meta[i], &mlen[i], e, b, ++nth);
        char who[512];
        snprintf(who, sizeof who, "%s: benchmark \"%s\"", e->source, e->name);
        if (rc == 0)
            rc = pg_cargo_find_package(&pkgs[i], meta[j], mlen[j], e->cargo, who);
    }
    nth = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!set->v[i].cargo || done[i])
            continue;
        for (size_t j = i; j < n; j++)
            group[j] = set->v[j].cargo && !done[j] && same_build(set->v[i].cargo, &pkgs[i], set->v[j].cargo, &pkgs[j]);
        rc = build_group(set, group, &pkgs[i], b, ++nth);
        for (size_t j = i; j < n; j++)
            done[j] |= group[j];
        memset(group, 0, n);
    }
    for (size_t i = 0; pkgs && meta && i < n; i++) {
        pg_cargo_pkg_free(&pkgs[i]);
        free(meta[i]);
    }
    free(pkgs);
    free(meta);
    free(mlen);
    free(done);
    free(group);
    return rc;
}
