/* harness/bench/discover.c — from PATH arguments and command lines to benchmarks. */
#include "harness/bench/bench.h"
#include "util/error.h"
#include "util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void pg_benchset_init(pg_benchset *s)
{
    memset(s, 0, sizeof *s);
    s->def_repeat = s->def_warmup = s->def_markers = -1;
}

void pg_bench_free(pg_bench *b)
{
    free(b->name);
    free(b->gb_filter);
    for (char **a = b->argv; a && *a; a++)
        free(*a);
    free(b->argv);
    free(b->cwd);
    free(b->count_calls);
    for (char **e = b->env; e && *e; e++)
        free(*e);
    free(b->env);
    pg_thresholds_free(&b->thresholds);
    free(b->source);
    pg_cargo_target_free(b->cargo);
}

void pg_benchset_free(pg_benchset *s)
{
    for (size_t i = 0; i < s->n; i++)
        pg_bench_free(&s->v[i]);
    free(s->v);
    free(s->build);
    free(s->build_manifest);
    free(s->def_count_calls);
    pg_thresholds_free(&s->def_thresholds);
    pg_benchset_init(s);
}

static int is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A found executable runs in its own directory as "./name" (harness/measure/canon.h):
 * the same wherever the checkout holding it lives. */
static int in_own_dir(pg_bench *b)
{
    char dir[PATH_MAX];
    if (!b->argv || !b->argv[0])
        return pg_error_set(PG_ENOMEM, "out of memory");
    if (b->argv[0][0] != '/')
        return 0;
    pg_path_dirname(dir, sizeof dir, b->argv[0]);
    b->argv0_in_tree = 1;
    return (b->cwd = strdup(dir)) ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

static int add_exec(pg_benchset *s, const char *path, const char *name)
{
    if (pg_gbench_is_executable(path)) {
        /* Its benchmarks are named after themselves, not after the file. */
        pg_bench *b;
        int rc = pg_bench_new_entry(s, &b);
        if (rc < 0)
            return rc;
        char abs[PATH_MAX];
        b->kind = PG_BENCH_GB_SUITE;
        b->source = strdup(path);
        b->argv = calloc(2, sizeof *b->argv);
        b->argv[0] = strdup(realpath(path, abs) ? abs : path);
        return in_own_dir(b);
    }
    /* The manifest's rule for names holds for file names too. */
    const char *problem = pg_bench_name_problem(name);
    if (problem)
        return pg_error_set(PG_EINVAL, "%s: the benchmark name \"%s\" (the file's name) %s; rename the file, or "
                            "list it in a perfgate.json with a \"name\"", path, name, problem);
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].kind != PG_BENCH_GB_SUITE && !strcmp(s->v[i].name, name))
            return pg_error_set(PG_EINVAL, "two benchmarks are named \"%s\" (%s and %s)", name, s->v[i].source, path);
    pg_bench *b;
    int rc = pg_bench_new_entry(s, &b);
    if (rc < 0)
        return rc;
    char abs[PATH_MAX];
    if (!realpath(path, abs))
        snprintf(abs, sizeof abs, "%s", path);
    b->name = strdup(name);
    b->source = strdup(path);
    b->argv = calloc(2, sizeof *b->argv);
    b->argv[0] = strdup(abs);
    return in_own_dir(b);
}

/* The manifest `path` names, into `out`: a .json file, or a directory's perfgate.json. */
static int manifest_of(char *out, size_t len, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return 0;
    size_t l = strlen(path);
    if (S_ISREG(st.st_mode))
        return l >= 5 && !strcmp(path + l - 5, ".json") && snprintf(out, len, "%s", path) < (int)len;
    if (!S_ISDIR(st.st_mode))
        return 0;
    while (l > 1 && path[l - 1] == '/')
        l--;   /* "bench/" names bench/perfgate.json, not bench//perfgate.json */
    return snprintf(out, len, "%.*s/perfgate.json", (int)l, path) < (int)len && access(out, F_OK) == 0;
}

/* `path` made absolute: its real path when it exists, else joined to the
 * current directory (a PATH that only old revisions have). */
static void absolute(char *out, size_t len, const char *path)
{
    char cwd[PATH_MAX];
    if (realpath(path, out))
        return;
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(out, len, "%s", path);
    else
        snprintf(out, len, "%s/%s", cwd, path);
}

/* What follows `tree` in `abs` ("" for the tree itself), or NULL when `abs` is not inside it. */
static const char *inside(const char *abs, const char *tree)
{
    size_t n = strlen(tree);
    while (n > 1 && tree[n - 1] == '/')
        n--;
    if (strncmp(abs, tree, n) || (abs[n] && abs[n] != '/'))
        return NULL;
    return abs[n] ? abs + n + 1 : abs + n;
}

/* `abs` moved from under at->worktree to under at->root; 0 when it is not inside the work tree. */
static int counterpart(char *out, size_t len, const char *abs, const pg_bench_place *at)
{
    char tree[PATH_MAX];
    if (!at || !at->worktree || !realpath(at->worktree, tree))
        return 0;
    const char *rel = inside(abs, tree);
    size_t n = strlen(at->root);
    while (n > 1 && at->root[n - 1] == '/')
        n--;
    return rel && snprintf(out, len, "%.*s%s%s", (int)n, at->root, *rel ? "/" : "", rel) < (int)len;
}

static int discover_here(pg_benchset *s, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return pg_error_errno(PG_ENOTFOUND, "%s", path);
    char manifest[PATH_MAX];
    if (manifest_of(manifest, sizeof manifest, path))
        return pg_manifest_load(s, manifest, NULL);
    if (S_ISREG(st.st_mode)) {
        if (!is_exec_file(path))
            return pg_error_set(PG_EINVAL, "%s is not executable (chmod +x it, or give a directory or a perfgate.json)", path);
        const char *base = strrchr(path, '/');
        return add_exec(s, path, base ? base + 1 : path);
    }
    if (!S_ISDIR(st.st_mode))
        return pg_error_set(PG_EINVAL, "%s is neither a directory nor an executable file", path);

    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    if (n < 0)
        return pg_error_errno(PG_EIO, "cannot list %s", path);
    size_t before = s->n;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", path, names[i]->d_name);
        if (rc == 0 && names[i]->d_name[0] != '.' && is_exec_file(full))
            rc = add_exec(s, full, names[i]->d_name);
        free(names[i]);
    }
    free(names);
    if (rc == 0 && s->n == before)
        rc = pg_error_set(PG_ENOTFOUND, "%s has no perfgate.json and no executable files: nothing to run", path);
    return rc;
}

int pg_bench_discover(pg_benchset *s, const char *path, const pg_bench_place *at)
{
    char manifest[PATH_MAX], abs[PATH_MAX], moved[PATH_MAX * 2];
    int checkout = at && at->worktree && strcmp(at->worktree, at->root);
    if (at && at->worktree && manifest_of(manifest, sizeof manifest, path)) {
        /* Today's manifest, naming the files of the tree measured. */
        char dir[PATH_MAX];
        absolute(abs, sizeof abs, manifest);
        pg_path_dirname(dir, sizeof dir, abs);
        if (!counterpart(moved, sizeof moved, dir, at)) {
            absolute(moved, sizeof moved, at->root);    /* outside the tree: its root */
        } else if (!checkout) {
            return pg_manifest_load(s, manifest, NULL); /* `run`, in the tree: where it is */
        }
        int rc = checkout ? pg_mkdirs(moved) : 0;
        return rc < 0 ? rc : pg_manifest_load(s, manifest, moved);
    }
    absolute(abs, sizeof abs, path);
    if (checkout && counterpart(moved, sizeof moved, abs, at))
        return discover_here(s, moved);
    return discover_here(s, path);
}

int pg_bench_add_command(pg_benchset *s, char *const *argv, int argc)
{
    pg_bench *b;
    int rc = pg_bench_new_entry(s, &b);
    if (rc < 0)
        return rc;
    /* Named like hyperfine names a command: the command line itself, with the
     * program's directory dropped so the name survives a move of the build tree. */
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    b->name = calloc(1, len);
    const char *base = strrchr(argv[0], '/');
    strcat(b->name, base ? base + 1 : argv[0]);
    for (int i = 1; i < argc; i++) {
        strcat(b->name, " ");
        strcat(b->name, argv[i]);
    }
    for (char *p = b->name; *p; p++)
        if (*p == '/' || *p == '\n')
            *p = '_';
    b->source = strdup("command line");
    b->argv = calloc((size_t)argc + 1, sizeof *b->argv);
    for (int i = 0; i < argc; i++)
        b->argv[i] = strdup(argv[i]);
    return 0;
}

/* Keeps the benchmarks `keep` says yes to. */
static void retain(pg_benchset *s, int (*keep)(const char *name, const void *arg), const void *arg)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (keep(s->v[i].name, arg))
            s->v[k++] = s->v[i];
        else
            pg_bench_free(&s->v[i]);
    }
    s->n = k;
}

static int matches(const char *name, const void *re) { return regexec(re, name, 0, NULL, 0) == 0; }

int pg_benchset_filter(pg_benchset *s, const char *regex)
{
    regex_t re;
    int e = regcomp(&re, regex, REG_EXTENDED | REG_NOSUB);
    if (e) {
        char msg[256];
        regerror(e, &re, msg, sizeof msg);
        return pg_error_set(PG_EINVAL, "--filter '%s': %s", regex, msg);
    }
    retain(s, matches, &re);
    regfree(&re);
    return 0;
}

/* Which of the benchmarks `keep` (a mask, one per benchmark) keeps. */
static int masked(const char *name, const void *arg)
{
    (void)name;
    const unsigned char **at = (const unsigned char **)arg;
    return *(*at)++;
}

void pg_benchset_keep(pg_benchset *s, const unsigned char *keep)
{
    retain(s, masked, &keep);
}

typedef struct names { const char *const *v; size_t n; } names;

static int named(const char *name, const void *arg)
{
    const names *l = arg;
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], name))
            return 1;
    return 0;
}

void pg_benchset_keep_named(pg_benchset *s, const char *const *v, size_t n)
{
    names l = {v, n};
    retain(s, named, &l);
}

int pg_bench_select(pg_benchset *s, char *const *paths, int n, int fallback, const char *worktree)
{
    pg_bench_place at = {.worktree = worktree, .root = worktree};
    const pg_bench_place *place = worktree ? &at : NULL;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++)
        rc = pg_bench_discover(s, paths[i], place);
    if (rc == 0 && n == 0 && fallback)
        rc = pg_bench_discover(s, "bench", place);
    return rc;
}
