/* counters/valgrind.c — benchmarks under cachegrind: exact instructions,
 * simulated caches and branches with one fixed geometry everywhere. */
#include "counters/valgrind.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/metrics.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct pg_valgrind {
    char path[PATH_MAX];
    char version[64];
};

const char *const pg_valgrind_events[] = {"Ir",  "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw",
                                          "D1mw", "DLmw", "Bc",   "Bcm", "Bi",  "Bim", NULL};
#define events pg_valgrind_events

static int find_in_path(char *out, size_t len, const char *prog)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    const char *p = path;
    while (*p) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", prog);
        if (access(out, X_OK) == 0)
            return 0;
        p += n + (end != NULL);
    }
    return -1;
}

/* Runs `path --version` and keeps its first line. */
static int read_version(char *out, size_t len, const char *path)
{
    int fds[2];
    if (pipe(fds) < 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 0, 0);
    char *argv[] = {(char *)path, "--version", NULL};
    pid_t pid;
    int err = posix_spawn(&pid, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (err) {
        close(fds[0]);
        errno = err;
        return -1;
    }
    size_t got = 0;
    ssize_t k;
    while (got + 1 < len && (k = read(fds[0], out + got, len - 1 - got)) > 0)
        got += (size_t)k;
    out[got] = '\0';
    out[strcspn(out, "\n")] = '\0';
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 && !strncmp(out, "valgrind-", 9) ? 0 : -1;
}

/* The version of the launcher at `path`, asked once per process and file:
 * the probe, the meter and the stack recorder each open valgrind, and each
 * `valgrind --version` was a fork and two execs (~4 ms) before anything was
 * measured. Keyed by the file's id, so that another valgrind at the same
 * path (reinstalled, or a test's stand-in rewritten) is asked again. */
static struct {
    pthread_mutex_t lock;
    char path[PATH_MAX], version[64];
    pg_file_id id;
} known = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int version_of(char *out, size_t len, const char *path)
{
    pg_file_id id;
    int have = pg_file_id_of(&id, path) == 0;
    pthread_mutex_lock(&known.lock);
    int hit = have && known.version[0] && !strcmp(known.path, path) && pg_file_id_eq(&known.id, &id);
    if (hit)
        snprintf(out, len, "%s", known.version);
    pthread_mutex_unlock(&known.lock);
    if (hit)
        return 0;
    if (read_version(out, len, path) < 0)
        return -1;
    if (have) {
        pthread_mutex_lock(&known.lock);
        snprintf(known.path, sizeof known.path, "%s", path);
        snprintf(known.version, sizeof known.version, "%s", out);
        known.id = id;
        pthread_mutex_unlock(&known.lock);
    }
    return 0;
}

/* Debian and Ubuntu install valgrind as a shell script that exports a few
 * variables (debug libraries on LD_LIBRARY_PATH, GLIBCXX_FORCE_NEW) and
 * execs valgrind.bin, the launcher itself. The shell adds PWD to the
 * client's environment, so the count of one program would change with the
 * length of its checkout's path, and the variables make the program run
 * other code than it does natively. The launcher is run directly instead:
 * the program sees the environment perfgate gives it (harness/measure/canon.h). */
static void launcher_of(char *path, size_t len)
{
    char bin[PATH_MAX], head[2] = {0};
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(head, 1, 2, f) : 0;
    if (f)
        fclose(f);
    if (n == 2 && head[0] == '#' && head[1] == '!' && snprintf(bin, sizeof bin, "%s.bin", path) < (int)sizeof bin &&
        access(bin, X_OK) == 0)
        snprintf(path, len, "%s", bin);
}

int pg_valgrind_new(pg_valgrind **out)
{
    pg_valgrind *vg = calloc(1, sizeof *vg);
    if (!vg)
        return pg_error_set(PG_ENOMEM, "out of memory");
    const char *env = getenv("PERFGATE_VALGRIND");
    if (env && *env) {
        snprintf(vg->path, sizeof vg->path, "%s", env);
        if (access(vg->path, X_OK) < 0) {
            free(vg);
            return pg_error_errno(PG_ENOTSUP, "PERFGATE_VALGRIND=%s is not an executable", env);
        }
    } else if (find_in_path(vg->path, sizeof vg->path, "valgrind") < 0) {
        free(vg);
        return pg_error_set(PG_ENOTSUP, "valgrind is not installed (not on PATH); fix: sudo apt-get install valgrind");
    }
    launcher_of(vg->path, sizeof vg->path);
    if (version_of(vg->version, sizeof vg->version, vg->path) < 0) {
        free(vg);
        return pg_error_set(PG_ENOTSUP, "%s does not run ('valgrind --version' failed)", env && *env ? env : "valgrind");
    }
    *out = vg;
    return 0;
}

void pg_valgrind_free(pg_valgrind *vg) { free(vg); }
const char *pg_valgrind_version(const pg_valgrind *vg) { return vg->version; }
const char *pg_valgrind_geometry(const pg_valgrind *vg) { return PG_VALGRIND_GEOMETRY; }

int pg_valgrind_wrap_tool(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *const *opts)
{
    size_t n = 0, nopt = 0;
    while (argv[n])
        n++;
    while (opts[nopt])
        nopt++;
    /* No gdbserver: valgrind would make three FIFOs in /tmp for each process
     * (vgdb-pipe-*) and poll them, and one that is killed (a timeout, a
     * stopped run) leaves them behind. The counts are the same without. */
    static const char vgdb_off[] = "--vgdb=no";
    /* Only perfgate's options: valgrind would otherwise add those of
     * ~/.valgrindrc, $VALGRIND_OPTS and ./.valgrindrc in the benchmark's
     * working directory, which a commit under test can plant
     * ("--trace-children-skip=*" and its children are not counted). Passed on
     * to every traced child, which would read its own directory's. */
    static const char rc_off[] = "--command-line-only=yes";
    nopt += 2;
    char **v = calloc(1 + nopt + n + 1, sizeof *v);
    if (!v)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < 1 + nopt + n; i++) {
        v[i] = strdup(i == 0 ? vg->path : i == 1 ? vgdb_off : i == 2 ? rc_off : i <= nopt ? opts[i - 3]
                                                                                          : argv[i - 1 - nopt]);
        if (!v[i]) {
            pg_valgrind_argv_free(v);
            return pg_error_set(PG_ENOMEM, "out of memory");
        }
    }
    *out_argv = v;
    return 0;
}

int pg_valgrind_wrap(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir, unsigned sims)
{
    char outfile[PATH_MAX], logfile[PATH_MAX];
    snprintf(outfile, sizeof outfile, "--cachegrind-out-file=%s/cachegrind.out.%%p", outdir);
    snprintf(logfile, sizeof logfile, "--log-file=%s/valgrind.log.%%p", outdir);
    const char *const opts[] = {
        "--tool=cachegrind",
        sims & PG_VALGRIND_CACHE_SIM ? "--cache-sim=yes" : "--cache-sim=no",
        sims & PG_VALGRIND_BRANCH_SIM ? "--branch-sim=yes" : "--branch-sim=no",
        "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64",
        /* Count what the benchmark starts, too (a shell script, a driver). */
        "--trace-children=yes",
        /* Only the benchmark's own output in its logs: valgrind's warnings
         * (about the host's caches, which the fixed geometry overrides) go to a
         * file that collect reads only when the program could not start. */
        "-q", outfile, logfile, NULL,
    };
    return pg_valgrind_wrap_tool(vg, out_argv, argv, opts);
}

void pg_valgrind_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

int pg_valgrind_parse(unsigned long long totals[13], unsigned *present, const char *text, const char *path)
{
    return pg_valgrind_parse_key(totals, present, text, path, "summary:");
}

int pg_valgrind_parse_key(unsigned long long totals[13], unsigned *present, const char *text, const char *path,
                          const char *key)
{
    size_t klen = strlen(key);
    int idx[13];   /* column of each "events:" entry in our order, -1 when absent */
    int ncols = 0, have_events = 0;
    const char *line = text;
    while (line && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (!strncmp(line, "events:", 7)) {
            char buf[512];
            snprintf(buf, sizeof buf, "%.*s", (int)(len - 7), line + 7);
            for (int i = 0; i < 13; i++)
                idx[i] = -1;
            char *save = NULL;
            ncols = 0;
            for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save), ncols++)
                for (int i = 0; i < 13; i++)
                    if (!strcmp(tok, events[i]))
                        idx[i] = ncols;
            have_events = 1;
        } else if (!strncmp(line, key, klen)) {
            if (!have_events)
                return pg_error_set(PG_EINVAL, "%s: '%s' before 'events:'", path, key);
            unsigned long long col[32] = {0};
            const char *p = line + klen;
            int c = 0;
            while (c < ncols && c < 32 && p < line + len) {
                char *end;
                errno = 0;
                unsigned long long v = strtoull(p, &end, 10);
                if (end == p || errno)
                    return pg_error_set(PG_EINVAL, "%s: malformed %.*s line", path, (int)klen - 1, key);
                col[c++] = v;
                p = end;
            }
            /* callgrind leaves out the zeros at the end of a cost line (its format's rule). */
            if (c != ncols && (c > ncols || strcmp(key, "totals:")))
                return pg_error_set(PG_EINVAL, "%s: %.*s has %d values for %d events", path, (int)klen - 1, key, c,
                                    ncols);
            int found = 0;
            for (int i = 0; i < 13; i++)
                if (idx[i] >= 0) {
                    totals[i] += col[idx[i]];
                    *present |= 1u << i;
                    found++;
                }
            return found;
        }
        line = nl ? nl + 1 : NULL;
    }
    return pg_error_set(PG_EINVAL, "%s: no '%s' line (not a %s output file?)", path, key,
                        strcmp(key, "totals:") ? "cachegrind" : "callgrind");
}

void pg_valgrind_log_error(char *out, size_t len, const char *path)
{
    char *text = NULL;
    size_t n;
    if (pg_file_read(&text, &n, path) < 0)
        return;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, "warning:"))
            continue;
        /* "==123== message": keep the message. */
        char *msg = line[0] == '=' && strstr(line + 2, "== ") ? strstr(line + 2, "== ") + 3 : line;
        if (*msg)
            snprintf(out, len, "%s", msg);
    }
    free(text);
}

/* valgrind says nothing when its writes fail: its output just ends. An
 * output that cannot be read where the file system is full is said so
 * (pg_file_no_room), so that the benchmark is not blamed for the
 * machine's TMPDIR. */
int pg_valgrind_outputs(const char *outdir, const char *prefix, pg_valgrind_output_fn *fn, void *ctx)
{
    DIR *d = opendir(outdir);
    if (!d)
        return pg_error_errno(PG_EIO, "cannot read %s", outdir);
    int files = 0, rc = 0;
    char vglog[512] = "";
    size_t plen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", outdir, e->d_name);
        if (!strncmp(e->d_name, "valgrind.log.", 13)) {
            pg_valgrind_log_error(vglog, sizeof vglog, path);
            unlink(path);
            continue;
        }
        if (strncmp(e->d_name, prefix, plen))
            continue;
        char *text = NULL;
        size_t len;
        if (rc == 0 && (rc = pg_file_read(&text, &len, path)) == 0) {
            char what[PATH_MAX + 64];
            snprintf(what, sizeof what, "valgrind's output %s was cut short", path);
            if ((rc = fn(ctx, text, len, path)) < 0)
                rc = pg_file_no_room(rc, outdir, what);
            files++;
        }
        free(text);
        unlink(path);
    }
    closedir(d);
    if (rc < 0)
        return rc;
    if (files == 0)
        return pg_file_no_room(pg_error_set(PG_EIO, "valgrind wrote no results: %s",
                                            vglog[0] ? vglog : "the program could not start under valgrind"),
                               outdir, "valgrind wrote no results");
    return files;
}

/* The command line a tool's output file names: its "cmd:" line (cachegrind
 * writes one space after the colon, callgrind two), into *out (malloc'd);
 * NULL when it has none among its header lines. */
static int cmd_of(char **out, const char *path)
{
    *out = NULL;
    FILE *f = fopen(path, "re");
    if (!f)
        return pg_error_errno(PG_EIO, "cannot read %s", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    for (int i = 0; i < 64 && (n = getline(&line, &cap, f)) > 0; i++) {
        if (strncmp(line, "cmd:", 4))
            continue;
        line[strcspn(line, "\n")] = '\0';
        const char *c = line + 4;
        while (*c == ' ')
            c++;
        *out = strdup(c);
        break;
    }
    free(line);
    fclose(f);
    return 0;
}

int pg_valgrind_others(char *out, size_t len, const char *outdir, const char *prefix, char *const *wrapped)
{
    out[0] = '\0';
    /* The client's command: what follows valgrind's options (its own rule:
     * the first argument that does not start with '-'). */
    size_t i = 1, need = 1;
    while (wrapped[i] && wrapped[i][0] == '-')
        i++;
    for (size_t k = i; wrapped[k]; k++)
        need += strlen(wrapped[k]) + 1;
    char *cmd = malloc(need), *p = cmd;
    if (!cmd)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t k = i; wrapped[k]; k++)
        p += sprintf(p, "%s%s", k > i ? " " : "", wrapped[k]);
    *p = '\0';
    DIR *d = opendir(outdir);
    int rc = d ? 0 : pg_error_errno(PG_EIO, "cannot read %s", outdir);
    size_t plen = strlen(prefix);
    for (struct dirent *e; rc == 0 && !out[0] && (e = readdir(d));) {
        char path[PATH_MAX], *c = NULL;
        if (strncmp(e->d_name, prefix, plen))
            continue;
        snprintf(path, sizeof path, "%s/%s", outdir, e->d_name);
        if ((rc = cmd_of(&c, path)) == 0 && (!c || strcmp(c, cmd)))
            snprintf(out, len, "%s", c && *c ? c : "a process whose command valgrind did not write");
        free(c);
    }
    if (d)
        closedir(d);
    free(cmd);
    return rc < 0 ? rc : out[0] != '\0';
}

typedef struct cg_totals {
    unsigned long long t[13];
    unsigned present;   /* which of the 13 events the files had */
} cg_totals;

static int add_cachegrind(void *ctx, const char *text, size_t len, const char *path)
{
    (void)len;
    cg_totals *c = ctx;
    int k = pg_valgrind_parse(c->t, &c->present, text, path);
    return k < 0 ? k : 0;
}

int pg_valgrind_collect(const pg_valgrind *vg, pg_readings *out, const char *outdir)
{
    cg_totals c = {{0}, 0};
    int rc = pg_valgrind_outputs(outdir, "cachegrind.out.", add_cachegrind, &c);
    return rc < 0 ? rc : pg_valgrind_readings(out, c.t, c.present);
}

int pg_valgrind_readings(pg_readings *out, const unsigned long long t[13], unsigned present)
{
    int rc = 0;
    /* Shared names first (docs/metrics.md), then valgrind's own: only what
     * the simulations that ran produced (a missing event is not a zero). */
    enum { Ir, I1mr, ILmr, Dr, D1mr, DLmr, Dw, D1mw, DLmw, Bc, Bcm, Bi, Bim };
#define BIT(e) (1u << (e))
    struct { const char *name; double v; unsigned needs; } shared[] = {
        {"instructions", (double)t[Ir], BIT(Ir)},
        {"cache-misses", (double)(t[ILmr] + t[DLmr] + t[DLmw]), BIT(ILmr) | BIT(DLmr) | BIT(DLmw)},
        {"branch-misses", (double)(t[Bcm] + t[Bim]), BIT(Bcm) | BIT(Bim)},
    };
#undef BIT
    for (size_t i = 0; i < sizeof shared / sizeof *shared && rc == 0; i++)
        if ((present & shared[i].needs) == shared[i].needs)
            rc = pg_readings_add(out, shared[i].name, "count", "valgrind", shared[i].v, 1.0);
    for (int i = 0; i <= Bim && rc == 0; i++)
        if (present & (1u << i))
            rc = pg_readings_add(out, events[i], "count", "valgrind", (double)t[i], 1.0);
    return rc;
}
