/* harness/measure/canon.c — see canon.h. */
#include "harness/measure/canon.h"
#include "counters/backend.h"
#include "counters/control.h"
#include "counters/outdir.h"
#include "harness/measure/contain.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* What a program legitimately depends on and is the same for every run of
 * one machine and user: where to find programs and libraries, the locale,
 * the time zone, the home directory. Not TMPDIR: a CI job or a test harness
 * sets its own for every job, and a program's temporary files do as well in
 * /tmp. */
static const char *const kept[] = {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TZ",
                                   "LD_LIBRARY_PATH", NULL};
/* ...and what a backend's tools need to find themselves, the registry's
 * (counters/backend.h: pg_backend_env_keep). */
static const char *kept_name(size_t i)
{
    size_t n = sizeof kept / sizeof *kept - 1;
    return i < n ? kept[i] : pg_backend_env_keep(i - n);
}

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

int pg_canon_pass_env_check(const char *list)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (!name_ok(p, n))
            return pg_error_set(PG_EINVAL, "--pass-env: '%.*s' is not a variable name (or a prefix ending in '*')",
                                (int)(n > 64 ? 64 : n), p);
        p += n + (p[n] == ',');
    }
    return 0;
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

static int kept_entry(const char *entry, const char *pass)
{
    if (!strncmp(entry, PG_CONTROL_ENV "=", sizeof PG_CONTROL_ENV) || !strncmp(entry, "PERFGATE_MARKERS=", 17))
        return 0;
    for (size_t i = 0; kept_name(i); i++)
        if (listed(entry, kept_name(i)))
            return 1;
    return listed(entry, pass);
}

static int by_name(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t xl = strcspn(x, "="), yl = strcspn(y, "=");
    int c = strncmp(x, y, xl < yl ? xl : yl);
    return c ? c : (xl > yl) - (xl < yl);
}

char **pg_canon_env(char **extra, const char *pass, size_t *nused)
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
        int overridden = !kept_entry(environ[i], pass);
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

/* ---- the tree at one path ---- */

/* A directory owned by root that is no link: what a mount may be put on.
 * Made when perfgate is root. */
static int root_dir(const char *path, int make)
{
    struct stat st;
    if (make && mkdir(path, 0755) < 0 && errno != EEXIST)
        return 0;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0;
}

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = (ssize_t)strlen(text), w = write(fd, text, (size_t)n);
    int e = errno;
    close(fd);
    errno = e;
    return w == n ? 0 : -1;
}

/* Where a directory of the command's own output waits while its parent is
 * covered (in the PG_CANON_ROOT tmpfs, still writable; gone before the program runs). */
static const char *const out_stage[PG_CANON_MAX_OUTS] = {PG_CANON_ROOT "/.out0", PG_CANON_ROOT "/.out1",
                                                         PG_CANON_ROOT "/.out2", PG_CANON_ROOT "/.out3"};

/* The tools' output parent covered by an empty tmpfs, and the command's own
 * directories brought back at their paths through a stage: once covered,
 * the parent no longer leads to them. Before the tree is bound, so that a
 * parent inside the tree is covered in the tree's view too. Read-only, so
 * nothing can be made in it. */
static int cover_outputs(const pg_canon_layout *l)
{
    if (!l->outs_parent[0])
        return 0;
    for (size_t i = 0; i < l->nouts; i++)
        if (mkdir(out_stage[i], 0700) < 0 || mount(l->outs[i], out_stage[i], NULL, MS_BIND, NULL) < 0)
            return -1;
    /* With nothing to bring back (a native run), read-only at once: one mount. */
    unsigned long ro = l->nouts ? 0 : MS_RDONLY;
    if (mount("perfgate-out", l->outs_parent, "tmpfs", MS_NOSUID | MS_NODEV | ro, "mode=700,size=16k") < 0)
        return -1;
    if (ro)
        return 0;
    for (size_t i = 0; i < l->nouts; i++)
        if (mkdir(l->outs[i], 0700) < 0 || mount(out_stage[i], l->outs[i], NULL, MS_BIND, NULL) < 0 ||
            umount2(out_stage[i], MNT_DETACH) < 0 || rmdir(out_stage[i]) < 0)
            return -1;
    return mount(NULL, l->outs_parent, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
}

int pg_canon_enter(const pg_canon_layout *l)
{
    if (l->userns) {
        /* Unprivileged: the user mapped to itself, so that the program's
         * uid and gid are its own; setgroups must be refused first. */
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0 || write_text("/proc/self/setgroups", "deny") < 0 ||
            write_text("/proc/self/uid_map", l->uid_map) < 0 || write_text("/proc/self/gid_map", l->gid_map) < 0)
            return -1;
    } else if (unshare(CLONE_NEWNS) < 0) {
        return -1;
    }
    /* The store read-only first, so that the tree's view of it is too. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 || pg_contain_protect_apply() < 0 ||
        mount("perfgate", PG_CANON_ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=64k") < 0 ||
        cover_outputs(l) < 0)
        return -1;
    for (size_t i = 0; i < l->n; i++)
        if (mkdir(l->at[i], 0755) < 0 || mount(l->from[i], l->at[i], NULL, MS_BIND | MS_REC, NULL) < 0)
            return -1;
    /* Read-only: what the program writes goes to its tree, as outside. */
    if (mount(NULL, PG_CANON_ROOT, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
        return -1;
    return chdir(l->cwd);
}

static char how[256];

/* Not root: the namespace's user namespace maps the user to itself. */
static void as_user(pg_canon_layout *l)
{
    l->userns = geteuid() != 0;
    snprintf(l->uid_map, sizeof l->uid_map, "%u %u 1", (unsigned)geteuid(), (unsigned)geteuid());
    snprintf(l->gid_map, sizeof l->gid_map, "%u %u 1", (unsigned)getegid(), (unsigned)getegid());
}

/* Not root: one child makes the namespace (the tree "/"), as a measured one would. */
static int probe_userns(void)
{
    pg_canon_layout l = {.n = 1};
    snprintf(l.from[0], sizeof l.from[0], "/");
    snprintf(l.at[0], sizeof l.at[0], "%s", PG_CANON_TREE);
    snprintf(l.cwd, sizeof l.cwd, "%s", PG_CANON_TREE);
    as_user(&l);
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return snprintf(how, sizeof how, "cannot make a pipe (%s)", strerror(errno)), 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int e = pg_canon_enter(&l) < 0 ? errno : 0;
        ssize_t w = write(p[1], &e, sizeof e);
        _exit(w == (ssize_t)sizeof e ? 0 : 1);
    }
    close(p[1]);
    int e = EAGAIN;
    ssize_t r = pid < 0 ? -1 : read(p[0], &e, sizeof e);
    close(p[0]);
    while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (r == (ssize_t)sizeof e && e == 0)
        return snprintf(how, sizeof how, "(not root: a user namespace, the user mapped to itself)"), 1;
    snprintf(how, sizeof how, "not root, and no user namespace with a mount here (%s): checkouts get "
             "padded paths", strerror(r == (ssize_t)sizeof e ? e : EAGAIN));
    return 0;
}

int pg_canon_tree_ready(void)
{
    static int ready = -1;
    if (ready >= 0)
        return ready;
    ready = 0;
    if (getenv("PERFGATE_NO_CANON_TREE"))
        snprintf(how, sizeof how, "PERFGATE_NO_CANON_TREE is set: checkouts get padded paths");
    else if (!root_dir("/run", 0) || !root_dir(PG_CANON_ROOT, geteuid() == 0))
        snprintf(how, sizeof how, "%s is not a directory of root's (perfgate makes it when run as root; "
                 "or: sudo mkdir %s): checkouts get padded paths", PG_CANON_ROOT, PG_CANON_ROOT);
    else if (geteuid() == 0)
        ready = snprintf(how, sizeof how, "(as root: a mount namespace)") > 0;
    else
        ready = probe_userns();
    return ready;
}

const char *pg_canon_tree_how(void)
{
    pg_canon_tree_ready();
    return how;
}

/* `path` (absolute) made lexical: "." and ".." resolved, no double '/'. */
static int normal(char *out, size_t len, const char *path)
{
    const char *c[256];
    size_t n[256], k = split(c, n, 256, path), o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        int w = snprintf(out + o, len - o, "/%.*s", (int)n[i], c[i]);
        if (w < 0 || (size_t)w >= len - o)
            return -1;
        o += (size_t)w;
    }
    if (!k)
        snprintf(out, len, "/");
    return 0;
}

/* What follows `dir` in `path` ("" for dir itself), or NULL when not inside it. */
static const char *below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1)
        return path + 1;
    return !strncmp(path, dir, n) && (!path[n] || path[n] == '/') ? path + n + (path[n] == '/') : NULL;
}

/* The relative path `a` (of argv, run in `cwd` of tree `t`) placed: nothing
 * when it stays in t (or, `file`, names no file); its sibling of t added to
 * `l` when it reaches one; -1 when it leaves t further. Where it really is
 * counts: a link in the tree to a sibling, "../../side/prog", leads there in
 * the namespace too. */
static int place(pg_canon_layout *l, const char *t, const char *cwd, const char *a, int file)
{
    char joined[8192], p[4096], parent[4096];
    if (snprintf(joined, sizeof joined, "%s/%s", cwd, a) >= (int)sizeof joined)
        return file ? 0 : -1;
    if (!realpath(joined, p) && (file || normal(p, sizeof p, joined) < 0))
        return file ? 0 : -1;
    if (below(p, t))
        return 0;
    snprintf(parent, sizeof parent, "%s", t);
    *strrchr(parent, '/') = '\0';
    const char *rest = below(p, parent[0] ? parent : "/");
    size_t nl = rest ? strcspn(rest, "/") : 0;
    if (!nl || (nl == 4 && !strncmp(rest, "tree", 4)))
        return -1;
    if (l->n == PG_CANON_MAX_MOUNTS)
        return -1;
    char *from = l->from[l->n], *at = l->at[l->n];
    if (snprintf(from, sizeof l->from[0], "%s/", parent) >= (int)sizeof l->from[0] - (int)nl ||
        snprintf(at, sizeof l->at[0], "%s/", PG_CANON_ROOT) >= (int)sizeof l->at[0] - (int)nl)
        return -1;
    strncat(from, rest, nl);
    strncat(at, rest, nl);
    for (size_t i = 1; i < l->n; i++)
        if (!strcmp(l->at[i], at))
            return 0;
    l->n++;
    return 0;
}

/* The tools' output parent into l (when it can be had: else nothing is
 * covered, and a tool's run, which needs it too, fails on its own), and the
 * directories in it that argv names: "<parent>/NAME" anywhere in an
 * argument ("--log-file=<parent>/NAME/..."), NAME a directory there. */
static void outputs(pg_canon_layout *l, char *const *argv)
{
    char *p = l->outs_parent;
    struct stat st;
    if (pg_outdir_parent(p, sizeof l->outs_parent, 1) < 0 || below(p, PG_CANON_ROOT)) {
        pg_error_clear();
        p[0] = '\0';
        return;
    }
    size_t pl = strlen(p);
    for (size_t i = 0; argv && argv[i]; i++) {
        for (const char *a = strstr(argv[i], p); a && l->nouts < PG_CANON_MAX_OUTS; a = strstr(a + 1, p)) {
            const char *name = a + pl + 1;
            size_t nl = a[pl] == '/' ? strcspn(name, "/") : 0;
            char *at = l->outs[l->nouts];
            if (!nl || (name[0] == '.' && (nl == 1 || (nl == 2 && name[1] == '.'))) ||
                snprintf(at, sizeof l->outs[0], "%s/%.*s", p, (int)nl, name) >= (int)sizeof l->outs[0] ||
                lstat(at, &st) < 0 || !S_ISDIR(st.st_mode))
                continue;
            size_t k = 0;
            while (k < l->nouts && strcmp(l->outs[k], at))
                k++;
            l->nouts += k == l->nouts;      /* a new one kept */
        }
    }
}

int pg_canon_layout_make(pg_canon_layout *out, const char *tree, const char *cwd, char *const *argv)
{
    char here[4096], t[4096], rt[4096];
    memset(out, 0, sizeof *out);
    if (!pg_canon_tree_ready() || !realpath(cwd ? cwd : ".", here))
        return 0;
    const char *rel = tree && *tree && realpath(tree, rt) ? below(here, rt) : NULL;
    snprintf(t, sizeof t, "%s", rel ? rt : here);
    /* Nothing to hide: "/" is "/" everywhere, and a tree already under
     * PG_CANON_ROOT (a perfgate measured by perfgate) is at its one path,
     * which the tmpfs would cover. */
    if (!strcmp(t, "/") || below(t, PG_CANON_ROOT))
        return 0;
    rel = below(here, t);
    snprintf(out->from[0], sizeof out->from[0], "%s", t);
    snprintf(out->at[0], sizeof out->at[0], "%s", PG_CANON_TREE);
    out->n = 1;
    if (snprintf(out->cwd, sizeof out->cwd, "%s%s%s", PG_CANON_TREE, *rel ? "/" : "", rel) >= (int)sizeof out->cwd)
        return 0;
    for (size_t i = 0; argv && argv[i]; i++) {
        const char *a = argv[i];
        if (a[0] != '/' && strchr(a, '/') && place(out, t, here, a, i > 0) < 0)
            return 0;
    }
    outputs(out, argv);
    as_user(out);
    return 1;
}
