/* harness/measure/canon.c — see canon.h. */
#include "harness/measure/canon.h"
#include "counters/backend.h"
#include "counters/control.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* What a program legitimately depends on and is the same for every run of
 * one machine and user: where to find programs and libraries, the locale,
 * the time zone, the home directory. Not TMPDIR: a CI job or a test harness
 * sets its own for every job, and a program's temporary files do as well in
 * /tmp. */
static const char *const kept[] = {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TZ",
                                   "LD_LIBRARY_PATH", "VALGRIND_LIB", NULL};

static char *passed;        /* --pass-env: a comma list, "" when none */
static char names[2048];

static int name_ok(const char *s, size_t n)
{
    if (!n || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int star = c == '*' && i == n - 1 && n > 1;
        if (!star && !(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
            return 0;
    }
    return 1;
}

int pg_canon_pass_env(const char *list)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (!name_ok(p, n))
            return pg_error_set(PG_EINVAL, "--pass-env: '%.*s' is not a variable name (or a prefix ending in '*')",
                                (int)(n > 64 ? 64 : n), p);
        p += n + (p[n] == ',');
    }
    size_t old = passed ? strlen(passed) : 0, add = strlen(list);
    char *s = realloc(passed, old + add + 2);
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory");
    snprintf(s + old, add + 2, "%s%s", old ? "," : "", list);
    passed = s;
    return 0;
}

const char *pg_canon_env_names(void)
{
    size_t k = 0;
    names[0] = '\0';
    for (size_t i = 0; kept[i] && k + 1 < sizeof names; i++) {
        int n = snprintf(names + k, sizeof names - k, "%s%s", i ? "," : "", kept[i]);
        k += n > 0 ? (size_t)n : 0;
    }
    if (passed && *passed && k + 1 < sizeof names)
        snprintf(names + k, sizeof names - k, ",%s", passed);
    return names;
}

/* Whether "KEY=..." is named by the comma list `list` (a name, or a prefix with '*'). */
static int listed(const char *entry, const char *list)
{
    size_t kl = strcspn(entry, "=");
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        if (n && p[n - 1] == '*' ? kl >= n - 1 && !strncmp(entry, p, n - 1) : n == kl && !strncmp(entry, p, n))
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

static int kept_entry(const char *entry)
{
    if (!strncmp(entry, PG_CONTROL_ENV "=", sizeof PG_CONTROL_ENV) || !strncmp(entry, "PERFGATE_MARKERS=", 17))
        return 0;
    for (size_t i = 0; kept[i]; i++)
        if (listed(entry, kept[i]))
            return 1;
    return listed(entry, passed);
}

static int by_name(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t xl = strcspn(x, "="), yl = strcspn(y, "=");
    int c = strncmp(x, y, xl < yl ? xl : yl);
    return c ? c : (xl > yl) - (xl < yl);
}

char **pg_canon_env(char **extra, size_t *nused)
{
    size_t n = 0, m = 0;
    while (environ[n])
        n++;
    while (extra && extra[m])
        m++;
    char **env = calloc(n + m + 2, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int overridden = !kept_entry(environ[i]);
        for (size_t j = 0; j < m && !overridden; j++) {
            size_t kl = strcspn(extra[j], "=");
            overridden = !strncmp(environ[i], extra[j], kl) && environ[i][kl] == '=';
        }
        if (!overridden)
            env[k++] = environ[i];
    }
    /* perfgate's own environment in a fixed order: the same variables,
     * however the shell that started perfgate ordered them. */
    qsort(env, k, sizeof *env, by_name);
    for (size_t j = 0; j < m; j++)
        env[k++] = extra[j];
    if (nused)
        *nused = k;
    return env;
}

/* The components of the absolute path `s` into `c` (pointers into `s`, with
 * their lengths in `n`), "." dropped and ".." taken back; how many. */
static size_t split(const char **c, size_t *n, size_t max, const char *s)
{
    size_t k = 0;
    while (*s) {
        while (*s == '/')
            s++;
        size_t l = strcspn(s, "/");
        if (!l || (l == 1 && s[0] == '.')) {
        } else if (l == 2 && s[0] == '.' && s[1] == '.') {
            k -= k > 0;
        } else if (k < max) {
            c[k] = s;
            n[k++] = l;
        }
        s += l;
    }
    return k;
}

void pg_canon_relpath(char *out, size_t len, const char *path, const char *dir)
{
    const char *pc[256], *dc[256];
    size_t pn[256], dn[256];
    size_t np = split(pc, pn, 256, path), nd = split(dc, dn, 256, dir), common = 0, k = 0;
    while (common < np && common < nd && pn[common] == dn[common] && !strncmp(pc[common], dc[common], pn[common]))
        common++;
    *out = '\0';
    if (common == nd)
        k = (size_t)snprintf(out, len, ".");
    for (size_t i = common; i < nd && k < len; i++)
        k += (size_t)snprintf(out + k, len - k, "%s..", i > common ? "/" : "");
    for (size_t i = common; i < np && k < len; i++)
        k += (size_t)snprintf(out + k, len - k, "/%.*s", (int)pn[i], pc[i]);
}

int pg_canon_argv(char ***out, const pg_bench *b)
{
    size_t n = 0;
    while (b->argv[n])
        n++;
    char **v = calloc(n + 1, sizeof *v), rel[4096];
    if (!v)
        return pg_error_set(PG_ENOMEM, "out of memory");
    memcpy(v, b->argv, n * sizeof *v);
    if (b->argv0_in_tree && b->cwd && b->argv[0][0] == '/') {
        pg_canon_relpath(rel, sizeof rel, b->argv[0], b->cwd);
        v[0] = strdup(rel);
    } else {
        v[0] = strdup(b->argv[0]);
    }
    if (!v[0]) {
        free(v);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    *out = v;
    return 0;
}

void pg_canon_argv_free(char **argv)
{
    if (argv)
        free(argv[0]);
    free(argv);
}

/* A directory owned by root that is no link: what a mount may be put on. */
static int root_dir(const char *path)
{
    struct stat st;
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return 0;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0;
}

int pg_canon_tree_ready(void)
{
    static int ready = -1;
    if (ready < 0)
        ready = geteuid() == 0 && !getenv("PERFGATE_NO_CANON_TREE") && root_dir("/run") &&
                root_dir("/run/perfgate") && root_dir(PG_CANON_TREE);
    return ready;
}

int pg_canon_cwd(char *out, size_t len, const char *cwd, const char *tree)
{
    size_t n = tree ? strlen(tree) : 0;
    while (n > 1 && tree[n - 1] == '/')
        n--;
    if (!cwd || !n || strncmp(cwd, tree, n) || (cwd[n] && cwd[n] != '/') || !pg_canon_tree_ready())
        return 0;
    return snprintf(out, len, "%s%s", PG_CANON_TREE, cwd + n) < (int)len;
}
