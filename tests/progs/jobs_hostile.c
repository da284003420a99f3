/* A hostile benchmark, for tests/e2e/run_jobs_hostile.sh and run_jobs_outputs.sh.
 *
 *   jobs_hostile forge TMPDIR STORE   rewrites what perfgate keeps where a
 *       benchmark can reach it: in TMPDIR's perfgate-jobs-* directory (where
 *       a --jobs worker used to leave each result for the parent), item 1's
 *       instructions become 1 and item 0 is renamed to "b"; in STORE ("-":
 *       none), every stored result document gets garbage appended, and a
 *       file is made beside them. What it managed is said on stderr; it
 *       exits 0 either way.
 *   jobs_hostile wait FIFO            opens FIFO for reading (blocked in the
 *       kernel until a writer comes: no instruction counted while it waits)
 *       and reads it to its end: a count that does not depend on how long.
 *   jobs_hostile outputs TMPDIR FIFO [REPORT]  the sibling of `wait` under --jobs:
 *       once `wait` is there (FIFO has a reader; at most a minute), looks for
 *       valgrind's output of any other measured process, by every path a
 *       benchmark has: the perfgate-{vg,cg,dhat}-* directories up to two
 *       levels below TMPDIR, and the directories in TMPDIR that other
 *       processes' command lines name (/proc/PID/cmdline: "...-file=DIR/...";
 *       only TMPDIR's: a test's own, never another's). Its own (the one
 *       holding valgrind.log.<its pid>) is said as "own DIR"; another's named
 *       one as "named DIR"; one it can reach as "saw DIR", and into which it
 *       puts a cachegrind output of a million instructions ("forged PATH").
 *       What it found goes to stderr, or is appended to REPORT (a run
 *       whose logs are not kept). Then it closes FIFO, and `wait` ends.
 *       Not tried: /proc/PID/root,
 *       which a process of the same user can read (docs/processes.md).
 *   jobs_hostile fill DIR             writes DIR/fill until the file system
 *       is full (at most 256 MiB) and leaves it there.
 *   jobs_hostile waitfull DIR         returns once DIR/fill is there and
 *       DIR's file system has less than 64 KiB left (at most a minute): a
 *       sibling of `fill` under --jobs whose output is then written on the
 *       full file system, whatever order the two end in.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static void put(const char *path, const char *text)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.forged", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    if (rename(tmp, path) == 0)
        fprintf(stderr, "forged %s\n", path);
}

/* `text` with its first `from` replaced by `to` (into out). */
static void replace(char *out, size_t len, const char *text, const char *from, size_t from_len, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) {
        snprintf(out, len, "%s", text);
        return;
    }
    snprintf(out, len, "%.*s%s%s", (int)(at - text), text, to, at + from_len);
}

static void forge_jobs(const char *tmpdir)
{
    DIR *d = opendir(tmpdir);
    char dir[4096] = "";
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "perfgate-jobs-", 14))
            snprintf(dir, sizeof dir, "%s/%s", tmpdir, e->d_name);
    if (d)
        closedir(d);
    if (!dir[0]) {
        fprintf(stderr, "no perfgate-jobs-* directory in %s\n", tmpdir);
        return;
    }
    char p0[4200], p1[4200];
    snprintf(p0, sizeof p0, "%s/0.json", dir);
    snprintf(p1, sizeof p1, "%s/1.json", dir);
    /* The siblings' results appear when they end (at most a minute). */
    for (int i = 0; i < 1200 && (access(p0, F_OK) || access(p1, F_OK)); i++)
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    char *t0 = slurp(p0), *t1 = slurp(p1);
    static char out[1 << 21];
    if (t1) {
        const char *m = strstr(t1, "\"instructions\"");
        const char *s = m ? strstr(m, "\"samples\":") : NULL;
        const char *open = s ? strchr(s, '[') : NULL, *close = open ? strchr(open, ']') : NULL;
        if (close) {
            snprintf(out, sizeof out, "%.*s1%s", (int)(open + 1 - t1), t1, close);
            put(p1, out);
        }
    }
    if (t0) {
        replace(out, sizeof out, t0, "\"name\":\t\"a\"", 11, "\"name\":\t\"b\"");
        put(p0, out);
    }
    free(t0);
    free(t1);
}

static void forge_store(const char *store)
{
    char results[4096];
    snprintf(results, sizeof results, "%s/results", store);
    DIR *d = opendir(results);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", results, e->d_name);
        DIR *s = opendir(sub);
        struct dirent *f;
        while (s && (f = readdir(s))) {
            size_t l = strlen(f->d_name);
            if (l < 5 || strcmp(f->d_name + l - 5, ".json"))
                continue;
            char doc[4700];
            snprintf(doc, sizeof doc, "%s/%s", sub, f->d_name);
            int fd = open(doc, O_WRONLY | O_APPEND);
            if (fd >= 0 && write(fd, "garbage", 7) == 7)
                fprintf(stderr, "appended to %s\n", doc);
            else
                fprintf(stderr, "cannot write %s: %s\n", doc, strerror(errno));
            if (fd >= 0)
                close(fd);
        }
        if (s)
            closedir(s);
    }
    if (d)
        closedir(d);
    char made[4200];
    snprintf(made, sizeof made, "%s/forged", results);
    int fd = open(made, O_WRONLY | O_CREAT, 0644);
    fprintf(stderr, fd >= 0 ? "made %s\n" : "cannot make %s\n", made);
    if (fd >= 0)
        close(fd);
}

/* ---- outputs: a sibling's valgrind output, reached or not ---- */

static char own[4096];
static FILE *report;    /* what it found: stderr, or the file it was given */

static int output_name(const char *name)
{
    return !strncmp(name, "perfgate-vg-", 12) || !strncmp(name, "perfgate-cg-", 12) ||
           !strncmp(name, "perfgate-dhat-", 14);
}

/* A directory of valgrind's output that is not this process's: said, and
 * forged when it can be reached. */
static void try_dir(const char *dir)
{
    char log[4200], cg[4200];
    snprintf(log, sizeof log, "%s/valgrind.log.%d", dir, (int)getpid());
    if (!access(log, F_OK)) {
        if (strcmp(own, dir))
            fprintf(report, "own %s\n", dir);
        snprintf(own, sizeof own, "%s", dir);
        return;
    }
    if (access(dir, F_OK)) {
        fprintf(report, "cannot reach %s: %s\n", dir, strerror(errno));
        return;
    }
    fprintf(report, "saw %s\n", dir);
    snprintf(cg, sizeof cg, "%s/cachegrind.out.1", dir);
    FILE *f = fopen(cg, "w");
    if (f && fputs("events: Ir\nsummary: 1000000\n", f) >= 0 && fclose(f) == 0)
        fprintf(report, "forged %s\n", cg);
    else if (f)
        fclose(f);
}

/* Every output directory up to `depth` levels below `dir`. */
static void scan(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4200];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (output_name(e->d_name))
            try_dir(sub);
        else if (depth > 1)
            scan(sub, depth - 1);
    }
    if (d)
        closedir(d);
}

/* The directories other processes' command lines name for their output,
 * those in `tmpdir` (a test's: never another test's, run at the same time). */
static void named(const char *tmpdir)
{
    size_t tl = strlen(tmpdir);
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || atoi(e->d_name) == (int)getpid())
            continue;
        char path[300], buf[65536];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        int fd = open(path, O_RDONLY);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n > 0)
            buf[n] = '\0';
        for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
            const char *a = buf + i, *eq = strstr(a, "-file=");
            const char *slash = eq ? strrchr(eq, '/') : NULL;
            if (!slash || strncmp(a, "--", 2))
                continue;
            char dir[4200];
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - eq - 6), eq + 6);
            const char *base = strrchr(dir, '/');
            if (base && output_name(base + 1) && strcmp(dir, own) && !strncmp(dir, tmpdir, tl) && dir[tl] == '/') {
                fprintf(report, "named %s\n", dir);
                try_dir(dir);
            }
        }
    }
    if (d)
        closedir(d);
}

static void outputs(const char *tmpdir, const char *fifo)
{
    int fd = -1;
    for (int i = 0; i < 1200 && (fd = open(fifo, O_WRONLY | O_NONBLOCK)) < 0; i++)
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    if (fd < 0)
        fprintf(report, "no reader of %s: %s\n", fifo, strerror(errno));
    scan(tmpdir, 2);
    named(tmpdir);
    if (fd >= 0)
        close(fd);
}

static void wait_fifo(const char *fifo)
{
    char buf[64];
    int fd = open(fifo, O_RDONLY);
    while (fd >= 0 && read(fd, buf, sizeof buf) > 0)
        ;
    if (fd >= 0)
        close(fd);
}

static void fill(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/fill", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    static char block[65536];
    for (int i = 0; fd >= 0 && i < 4096 && write(fd, block, sizeof block) == (ssize_t)sizeof block; i++)
        ;
    if (fd >= 0)
        close(fd);
}

static void wait_full(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/fill", dir);
    for (int i = 0; i < 1200; i++) {
        struct statvfs st;
        if (access(path, F_OK) == 0 && statvfs(dir, &st) == 0 && (unsigned long long)st.f_bavail * st.f_frsize < 65536)
            return;
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "forge")) {
        if (strcmp(argv[3], "-"))
            forge_store(argv[3]);
        forge_jobs(argv[2]);
    } else if (argc == 3 && !strcmp(argv[1], "wait")) {
        wait_fifo(argv[2]);
    } else if ((argc == 4 || argc == 5) && !strcmp(argv[1], "outputs")) {
        report = argc == 5 ? fopen(argv[4], "a") : stderr;
        if (!report)
            return 1;
        outputs(argv[2], argv[3]);
        fclose(report);
    } else if (argc == 3 && !strcmp(argv[1], "fill")) {
        fill(argv[2]);
    } else if (argc == 3 && !strcmp(argv[1], "waitfull")) {
        wait_full(argv[2]);
    } else {
        fprintf(stderr, "usage: jobs_hostile forge TMPDIR STORE | wait FIFO | outputs TMPDIR FIFO [REPORT] | fill DIR | waitfull DIR\n");
        return 2;
    }
    return 0;
}
