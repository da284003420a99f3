/* harness/discover.c — from PATH arguments and command lines to benchmarks. */
#include "harness/bench.h"
#include "util/error.h"

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
    s->def_repeat = s->def_warmup = -1;
}

void pg_bench_free(pg_bench *b)
{
    free(b->name);
    free(b->gb_filter);
    for (char **a = b->argv; a && *a; a++)
        free(*a);
    free(b->argv);
    free(b->cwd);
    for (char **e = b->env; e && *e; e++)
        free(*e);
    free(b->env);
    pg_thresholds_free(&b->thresholds);
    free(b->source);
}

void pg_benchset_free(pg_benchset *s)
{
    for (size_t i = 0; i < s->n; i++)
        pg_bench_free(&s->v[i]);
    free(s->v);
    free(s->build);
    free(s->build_manifest);
    pg_thresholds_free(&s->def_thresholds);
    pg_benchset_init(s);
}

static int is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
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
        return 0;
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
    return 0;
}

int pg_bench_discover(pg_benchset *s, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return pg_error_errno(PG_ENOTFOUND, "%s", path);
    if (S_ISREG(st.st_mode)) {
        size_t l = strlen(path);
        if (l >= 5 && !strcmp(path + l - 5, ".json"))
            return pg_manifest_load(s, path);
        if (!is_exec_file(path))
            return pg_error_set(PG_EINVAL, "%s is not executable (chmod +x it, or give a directory or a perfgate.json)", path);
        const char *base = strrchr(path, '/');
        return add_exec(s, path, base ? base + 1 : path);
    }
    if (!S_ISDIR(st.st_mode))
        return pg_error_set(PG_EINVAL, "%s is neither a directory nor an executable file", path);

    char manifest[PATH_MAX];
    size_t plen = strlen(path);
    while (plen > 1 && path[plen - 1] == '/')
        plen--;   /* "bench/" names bench/perfgate.json, not bench//perfgate.json */
    snprintf(manifest, sizeof manifest, "%.*s/perfgate.json", (int)plen, path);
    if (access(manifest, F_OK) == 0)
        return pg_manifest_load(s, manifest);

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

int pg_benchset_filter(pg_benchset *s, const char *regex)
{
    regex_t re;
    int e = regcomp(&re, regex, REG_EXTENDED | REG_NOSUB);
    if (e) {
        char msg[256];
        regerror(e, &re, msg, sizeof msg);
        return pg_error_set(PG_EINVAL, "--filter '%s': %s", regex, msg);
    }
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (regexec(&re, s->v[i].name, 0, NULL, 0) == 0)
            s->v[k++] = s->v[i];
        else
            pg_bench_free(&s->v[i]);
    }
    s->n = k;
    regfree(&re);
    return 0;
}
