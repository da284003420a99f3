/* harness/measure/reuse.c — see reuse.h. */
#include "harness/measure/reuse.h"
#include "counters/elfsym.h"
#include "harness/store/git2.h"
#include "harness/store/store.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/text.h"

#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What is hashed, as text: every part NUL-terminated, files as "path oid". */
typedef struct text {
    char *s;
    size_t len, cap;
    int oom;
} text;

static void add(text *t, const char *s, size_t n)
{
    if (t->oom)
        return;
    if (t->cap - t->len < n + 1) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap - t->len < n + 1)
            cap *= 2;
        char *p = realloc(t->s, cap);
        if (!p) {
            t->oom = 1;
            return;
        }
        t->s = p, t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len++] = '\0';
}

static void add_str(text *t, const char *s) { add(t, s ? s : "", s ? strlen(s) : 0); }

/* The blob ids of files already read by this process: every benchmark of
 * a suite maps the same libc and loader (2 MiB: ~5 ms of SHA-1 each time).
 * An id is taken again only while the file's pg_file_id is the one it had
 * before and after it was read (util/fileio.h: a benchmark that rewrote a
 * library between two keys changed its ctime). */
#define KNOWN_FILES 64

static struct known_file {
    char *path;
    pg_file_id id;
    git_oid oid;
} known[KNOWN_FILES];
static size_t nknown;
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;

static int hash_file(git_oid *oid, const char *path)
{
    pg_file_id before, after;
    if (pg_file_id_of(&before, path) < 0)
        return git_odb_hashfile(oid, path, GIT_OBJECT_BLOB);
    int hit = 0;
    pthread_mutex_lock(&known_lock);
    for (size_t i = 0; i < nknown && !hit; i++)
        if ((hit = !strcmp(known[i].path, path) && pg_file_id_eq(&known[i].id, &before)))
            *oid = known[i].oid;
    pthread_mutex_unlock(&known_lock);
    if (hit)
        return 0;
    if (git_odb_hashfile(oid, path, GIT_OBJECT_BLOB) < 0)
        return -1;
    /* Not kept when it changed while it was read, nor when it had changed
     * just before (racy, as git says: a change within the file system's
     * timestamp granularity of that one could leave its id as it is). */
    struct timespec now;
    char *copy;
    if (pg_file_id_of(&after, path) < 0 || !pg_file_id_eq(&before, &after) ||
        clock_gettime(CLOCK_REALTIME, &now) < 0 || now.tv_sec - before.ctime_sec < 2 || !(copy = strdup(path)))
        return 0;
    pthread_mutex_lock(&known_lock);
    struct known_file *k = &known[nknown < KNOWN_FILES ? nknown++ : (size_t)before.ino % KNOWN_FILES];
    free(k->path);
    *k = (struct known_file){.path = copy, .id = before, .oid = *oid};
    pthread_mutex_unlock(&known_lock);
    return 0;
}

/* A file's bytes, by their git blob id, after its path. */
static int add_file(text *t, const char *label, const char *path)
{
    git_oid oid;
    if (hash_file(&oid, path) < 0)
        return pg_error_set(PG_EIO, "%s: cannot be read to key it", path);
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &oid);
    add_str(t, label);
    add_str(t, hex);
    return 0;
}

/* The ELF interpreter of `exe` (PT_INTERP), "" for a static executable. */
static int interp_of(char out[PATH_MAX], const char *exe)
{
    out[0] = '\0';
    elf_version(EV_CURRENT);
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pg_error_errno(PG_EIO, "%s", exe);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    size_t n = 0;
    int rc = e && elf_getphdrnum(e, &n) == 0 ? 0 : pg_error_set(PG_EINVAL, "%s: not an ELF executable", exe);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_INTERP)
            continue;
        size_t len;
        const char *raw = elf_rawfile(e, &len);
        if (!raw || ph.p_offset >= len || ph.p_filesz == 0 || ph.p_filesz > PATH_MAX || ph.p_offset + ph.p_filesz > len)
            rc = pg_error_set(PG_EINVAL, "%s: a bad PT_INTERP", exe);
        else
            snprintf(out, PATH_MAX, "%.*s", (int)strnlen(raw + ph.p_offset, ph.p_filesz), raw + ph.p_offset);
    }
    if (e)
        elf_end(e);
    close(fd);
    return rc;
}

/* The shared objects the loader maps for `exe` with `env`: `LOADER --list
 * EXE` (the program itself does not run), each path it prints keyed. */
static int add_libraries(text *t, const char *exe, char *const *env)
{
    char interp[PATH_MAX];
    int rc = interp_of(interp, exe);
    if (rc < 0 || !interp[0])
        return rc;
    int p[2];
    if (pipe(p) < 0)
        return pg_error_errno(PG_EIO, "pipe");
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 2);
        char *argv[] = {interp, "--list", (char *)exe, NULL};
        execve(interp, argv, env);
        _exit(127);
    }
    close(p[1]);
    char buf[65536];
    size_t len = 0;
    ssize_t r;
    while (pid > 0 && len < sizeof buf - 1 && (r = read(p[0], buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)r;
    close(p[0]);
    buf[len] = '\0';
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return pg_error_set(PG_EIO, "%s: its loader could not list its shared objects", exe);
    /* "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)", "\t/lib64/ld-linux-x86-64.so.2 (0x...)" */
    for (char *line = strtok(buf, "\n"); line && rc == 0; line = strtok(NULL, "\n")) {
        char *path = strchr(line, '/'), *end = path ? strstr(path, " (0x") : NULL;
        if (!path || !end)
            continue;
        *end = '\0';
        rc = add_file(t, "lib", path);
    }
    return rc;
}

/* Where `bench` runs its executable from: argv[0] absolute, relative to cwd, or on PATH. */
static int exe_of(char out[PATH_MAX], const pg_bench *bench, char *const *env)
{
    const char *a0 = bench->argv[0], *path = NULL;
    for (char *const *e = env; e && *e; e++)
        if (!strncmp(*e, "PATH=", 5))
            path = *e + 5;
    if (a0[0] == '/')
        return snprintf(out, PATH_MAX, "%s", a0) < PATH_MAX ? 0 : pg_error_set(PG_EINVAL, "path too long");
    if (strchr(a0, '/'))
        return snprintf(out, PATH_MAX, "%s/%s", bench->cwd ? bench->cwd : ".", a0) < PATH_MAX
                   ? 0 : pg_error_set(PG_EINVAL, "path too long");
    return pg_elfsym_which(out, a0, path) == 0 ? 0 : pg_error_set(PG_ENOTFOUND, "%s: not found on PATH", a0);
}

/* Executables that run what they are handed, a script or a -c string, and
 * with it other programs and files of the tree that the key does not
 * cover (a shell's ./prog, a Python script's imports). Matched on the
 * resolved file's name, with any version after it (python3.11, perl5.36.0):
 * /bin/sh is dash, busybox's applets are busybox. */
static const char *const interpreters[] = {
    "sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "yash", "csh", "tcsh", "fish", "busybox", "env",
    "python", "pypy", "perl", "ruby", "node", "nodejs", "deno", "bun", "lua", "luajit", "php", "tclsh", "wish",
    "Rscript", "R", "java", "guile", "racket", "julia", "gawk", "mawk", "awk", "make", "xargs", NULL,
};

static int interpreter(const char *path)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (size_t i = 0; interpreters[i]; i++) {
        size_t n = strlen(interpreters[i]);
        if (!strncmp(base, interpreters[i], n) && strspn(base + n, "0123456789.") == strlen(base + n))
            return 1;
    }
    return 0;
}

/* A command whose executable runs other programs or files: a shell or an
 * interpreter, or a script (#!), whose interpreter runs it. Refused before
 * keying: their counts depend on what the key does not hold. (Any other
 * program that exec()s one is found by its measured run: pg_reuse_forget.) */
static int runs_others(const char *exe)
{
    char real[PATH_MAX], head[2] = {0};
    if (realpath(exe, real) && interpreter(real))
        return pg_error_set(PG_ENOTSUP, "its executable %s is a shell or an interpreter: the scripts and programs "
                            "it runs are not in the key", real);
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, head, sizeof head) : -1;
    if (fd >= 0)
        close(fd);
    if (n == 2 && head[0] == '#' && head[1] == '!')
        return pg_error_set(PG_ENOTSUP, "its executable %s is a script (#!): its interpreter and what it runs "
                            "are not in the key", exe);
    return 0;
}

/* The option files valgrind would read: ~/.valgrindrc (HOME as the measured
 * process gets it) and ./.valgrindrc in the working directory. perfgate's
 * valgrind ignores them (--command-line-only=yes, counters/valgrind.c), but a
 * count is only reused where everything that could have made it is the
 * same: a committed .valgrindrc measures again. ($VALGRIND_OPTS, VALGRIND_LIB
 * and any other variable reach valgrind only through `env`, keyed whole.) */
static int add_rcfiles(text *t, const pg_bench *bench, char *const *env)
{
    const char *home = NULL;
    for (char *const *e = env; e && *e; e++)
        if (!strncmp(*e, "HOME=", 5))
            home = *e + 5;
    const char *dirs[] = {home, bench->cwd ? bench->cwd : "."};
    int rc = 0;
    for (size_t i = 0; i < 2 && rc == 0; i++) {
        char p[PATH_MAX];
        struct stat st;
        if (dirs[i] && snprintf(p, sizeof p, "%s/.valgrindrc", dirs[i]) < (int)sizeof p && lstat(p, &st) == 0)
            rc = S_ISREG(st.st_mode) ? add_file(t, i ? "./.valgrindrc" : "~/.valgrindrc", p)
                                     : pg_error_set(PG_EINVAL, "%s: not a regular file", p);
    }
    return rc;
}

/* cwd below `tree`, so that the same benchmark keys alike in every checkout. */
static const char *relative(const char *dir, const char *tree)
{
    size_t n = tree ? strlen(tree) : 0;
    while (n > 1 && tree[n - 1] == '/')     /* a work tree's root is given with its '/' */
        n--;
    if (dir && n && !strncmp(dir, tree, n) && (dir[n] == '/' || !dir[n]))
        return dir[n] ? dir + n + 1 : ".";
    return dir;
}

int pg_reuse_key(char key[PG_REUSE_KEY_SIZE], const pg_bench *bench, char *const *argv, char *const *env,
                 const char *tree, const char *choices)
{
    key[0] = '\0';
    char exe[PATH_MAX];
    int rc = exe_of(exe, bench, env);
    if (rc == 0)
        rc = runs_others(exe);
    if (rc < 0)
        return rc;
    if ((rc = pg_git2_load()) < 0)
        return rc;
    git_libgit2_init();
    text t = {0};
    /* 2: the rc files; and the keys of /1 were also stored for runs that
     * exec()ed other programs (pg_reuse_forget). */
    add_str(&t, "perfgate-reuse/2");
    add_str(&t, choices);
    for (char *const *a = argv; *a; a++)
        add_str(&t, *a);
    add_str(&t, "env");
    for (char *const *e = env; e && *e; e++)
        add_str(&t, *e);
    add_str(&t, relative(bench->cwd, tree));
    rc = add_file(&t, "exe", exe);
    if (rc == 0)
        rc = add_libraries(&t, exe, env);
    if (rc == 0)
        rc = add_rcfiles(&t, bench, env);
    /* Arguments that name files: the inputs the manifest hands the program. */
    for (char *const *a = argv + 1; rc == 0 && *a; a++) {
        char p[PATH_MAX];
        struct stat st;
        int n = **a == '/' || !bench->cwd ? snprintf(p, sizeof p, "%s", *a) : snprintf(p, sizeof p, "%s/%s", bench->cwd, *a);
        if (n < (int)sizeof p && stat(p, &st) == 0 && S_ISREG(st.st_mode))
            rc = add_file(&t, *a, p);
    }
    if (getenv("PERFGATE_REUSE_DEBUG"))
        for (size_t i = 0; i < t.len; i += strlen(t.s + i) + 1)
            fprintf(stderr, "perfgate: reuse key of %s: %s\n", bench->name, t.s + i);
    git_oid oid;
    if (rc == 0 && t.oom)
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    if (rc == 0 && git_odb_hash(&oid, t.s, t.len, GIT_OBJECT_BLOB) < 0)
        rc = pg_error_set(PG_EIO, "cannot hash the key of %s", bench->name);
    if (rc == 0)
        git_oid_tostr(key, PG_REUSE_KEY_SIZE, &oid);
    free(t.s);
    git_libgit2_shutdown();
    return rc;
}

const pg_rundoc_bench *pg_reuse_find(const pg_rundoc **run, const pg_rundoc_list *runs, const char *name,
                                     const char *key, const char *machine_id, const char *backend)
{
    for (size_t r = runs ? runs->n : 0; r-- > 0;) {     /* the newest first */
        const pg_rundoc *d = &runs->v[r];
        if (strcmp(d->machine.id, machine_id) || !d->backend || strcmp(d->backend, backend))
            continue;
        const pg_rundoc_bench *b = pg_rundoc_bench_find(d, name);
        if (b && !b->failed && b->reuse_key && !strcmp(b->reuse_key, key)) {
            *run = d;
            return b;
        }
    }
    return NULL;
}

void pg_reuse_forget(pg_rundoc_bench *b, const pg_meter *meter, int say)
{
    const char *other = pg_meter_others(meter);
    if (!b->reuse_key || !other)
        return;
    free(b->reuse_key);
    b->reuse_key = NULL;
    if (say)
        pg_text_warn("%s: its counts are not reusable: its run exec()ed another program (%s), which the key does "
                     "not cover", b->name, other);
}

int pg_reuse_candidates(pg_rundoc_list *runs, pg_repo *repo, const char *store, const char *commit)
{
    /* The local store only: a fetched note passes the notes gate, but no
     * gate can tell whether its reuse_key is honest (docs/notes.md, Trust). */
    char c[PG_OID_HEXSZ + 1];
    snprintf(c, sizeof c, "%s", commit);
    size_t before = runs->n;
    int rc = 0;
    for (int depth = 0; store && rc == 0 && depth < 50; depth++) {
        rc = pg_store_load(runs, store, c);
        if (rc == PG_ENOTFOUND) {
            pg_error_clear();
            rc = 0;
        }
        if (rc < 0 || (depth > 0 && runs->n > before) || !repo || pg_repo_first_parent(c, repo, c) < 0)
            break;
    }
    pg_error_clear();
    return rc;
}
