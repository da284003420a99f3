/* harness/measure/spawn.c — fork, prepare, hold, release, watch, reap. See spawn.h. */
#include "harness/measure/spawn.h"
#include "harness/measure/canon.h"
#include "harness/measure/contain.h"
#include "harness/measure/launch.h"
#include "harness/measure/launcher.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- SIGINT: remembered, acted on by the poll loop ---- */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

void pg_spawn_install_sigint(void)
{
    static int installed;
    if (installed)
        return;
    installed = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int pg_spawn_interrupted(void) { return interrupted; }

/* ---- bounded log capture: the first half and the last half of the cap ---- */

typedef struct logbuf {
    char *head;         /* NULL until the first byte: most runs print nothing */
    size_t head_len, half;
    char *ring;         /* the most recent `half` bytes past the head */
    size_t ring_pos, ring_len;
    size_t total;
} logbuf;

static void log_init(logbuf *b, size_t cap)
{
    memset(b, 0, sizeof *b);
    b->half = cap / 2 ? cap / 2 : 1;
}

/* The buffers are had at the first output, not for every run: 128 KiB
 * allocated and freed around each run of a silent program grew and shrank
 * perfgate's heap three times a run (brk), each time faulting its pages in
 * anew. Bytes that find no memory are counted as omitted. */
static void log_add(logbuf *b, const char *p, size_t n)
{
    if (!b->head && n) {
        b->head = malloc(b->half);
        b->ring = malloc(b->half);
        if (!b->head || !b->ring) {
            free(b->head);
            free(b->ring);
            b->head = b->ring = NULL;
            b->total += n;
            return;
        }
    }
    b->total += n;
    size_t take = b->half - b->head_len;
    if (take > n)
        take = n;
    memcpy(b->head + b->head_len, p, take);
    b->head_len += take;
    p += take;
    n -= take;
    if (n >= b->half) {     /* only the last `half` bytes can survive */
        p += n - b->half;
        n = b->half;
    }
    while (n) {
        size_t room = b->half - b->ring_pos;
        size_t k = n < room ? n : room;
        memcpy(b->ring + b->ring_pos, p, k);
        b->ring_pos = (b->ring_pos + k) % b->half;
        if (b->ring_len < b->half)
            b->ring_len = b->ring_len + k > b->half ? b->half : b->ring_len + k;
        p += k;
        n -= k;
    }
}

/* Returns a malloc'd NUL-terminated text: the whole output when it fit, else
 * head, a marker with the omitted byte count, and tail. */
static char *log_finish(logbuf *b, size_t *len)
{
    size_t omitted = b->total - b->head_len - b->ring_len;
    char marker[96] = "";
    if (omitted)
        snprintf(marker, sizeof marker, "\n[... %zu bytes omitted ...]\n", omitted);
    size_t ml = strlen(marker);
    char *s = malloc(b->head_len + ml + b->ring_len + 1);
    if (s) {
        size_t o = 0;
        if (b->head_len)
            memcpy(s, b->head, b->head_len);
        o += b->head_len;
        memcpy(s + o, marker, ml);
        o += ml;
        size_t start = b->ring_len < b->half ? 0 : b->ring_pos;
        for (size_t i = 0; i < b->ring_len; i++)
            s[o++] = b->ring[(start + i) % b->half];
        s[o] = '\0';
        *len = o;
    }
    free(b->head);
    free(b->ring);
    return s;
}

static int drain_fd(int *fd, logbuf *b)
{
    char buf[16384];
    for (;;) {
        ssize_t r = read(*fd, buf, sizeof buf);
        if (r > 0) {
            log_add(b, buf, (size_t)r);
            continue;
        }
        if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
            close(*fd);
            *fd = -1;
        }
        return 0;
    }
}

const char *pg_spawn_tail(const char *log, size_t len, size_t max)
{
    if (!log)
        return "";
    if (len <= max)
        return log;
    const char *p = log + len - max;
    const char *nl = memchr(p, '\n', (size_t)(log + len - p));
    if (nl && nl + 1 < log + len)
        return nl + 1;
    return p;
}

/* ---- the child side: everything between fork and exec ---- */

static void child_fail(int errpipe, int stage)
{
    int msg[2] = {stage, errno};
    ssize_t w = write(errpipe, msg, sizeof msg);
    (void)w;
    _exit(127);
}

enum { STAGE_SETUP = 1, STAGE_CWD, STAGE_PIN, STAGE_EXEC, STAGE_LAUNCHER };
_Static_assert((int)STAGE_EXEC == (int)PG_LAUNCH_EXEC, "the launcher reports exec failures as the spawner does");

/* Execs the launcher, which forks the program (harness/measure/launch.h); returns
 * only when it could not. */
static void exec_launcher(const pg_spawn_opts *o, const char *path, int gopipe, int errpipe)
{
    size_t n = 0;
    while (o->argv[n])
        n++;
    char *argv[n + 5], go[16], err[16];
    snprintf(go, sizeof go, "%d", gopipe);
    snprintf(err, sizeof err, "%d", errpipe);
    argv[0] = (char *)path, argv[1] = go, argv[2] = err, argv[3] = "--";
    memcpy(argv + 4, o->argv, (n + 1) * sizeof *argv);
    if (fcntl(gopipe, F_SETFD, 0) < 0 || fcntl(errpipe, F_SETFD, 0) < 0)
        return;
    execve(path, argv, o->envp ? o->envp : environ);
    fcntl(gopipe, F_SETFD, FD_CLOEXEC);
    fcntl(errpipe, F_SETFD, FD_CLOEXEC);
}

static void child_main(const pg_spawn_opts *o, const pg_canon_layout *canon, const char *via, pid_t parent, int gopipe,
                       int errpipe, int outfd, int errfd, int shared, int hold)
{
    /* Signals back to defaults and unblocked: perfgate's own handling must not leak. */
    sigset_t none;
    sigemptyset(&none);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    pg_contain_child(parent);

    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);   /* its dup2 copies stay; it does not */
    if (devnull < 0 || dup2(devnull, 0) < 0)
        child_fail(errpipe, STAGE_SETUP);
    if (dup2(outfd >= 0 ? outfd : o->stdout_to_stderr ? errfd : devnull, 1) < 0 || dup2(errfd, 2) < 0)
        child_fail(errpipe, STAGE_SETUP);
    /* In its tree at one path (harness/measure/canon.h), else where it is. */
    if ((!canon || pg_canon_enter(canon) < 0) && o->cwd && chdir(o->cwd) < 0)
        child_fail(errpipe, STAGE_CWD);
    if (o->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o->cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) < 0)
            child_fail(errpipe, STAGE_PIN);
    }
    if (o->aslr_off) {
        int cur = personality(0xffffffff);
        if (cur != -1)
            personality((unsigned long)cur | ADDR_NO_RANDOMIZE);
    }
    for (size_t i = 0; i < o->nkeep; i++)
        if (fcntl(o->keep_fds[i], F_SETFD, 0) < 0)
            child_fail(errpipe, STAGE_SETUP);
    if (via) {
        /* Not before the parent has put this process in the run's cgroup:
         * the launcher's fork must land there too. (A child sharing perfgate's
         * memory was born there, and its parent waits for its exec.) */
        char adopted;
        ssize_t r = 1;
        while (!shared && (r = read(gopipe, &adopted, 1)) < 0 && errno == EINTR)
            ;
        if (r != 1)
            _exit(127);
        exec_launcher(o, via, gopipe, errpipe);     /* it says ready, with the program's pid */
        /* Not held here instead: the max-rss would silently be perfgate's too
         * (and a child sharing perfgate's memory must not wait on its parent). */
        child_fail(errpipe, STAGE_LAUNCHER);
    }
    /* Ready: the parent attaches only to a child that will exec (a counter
     * cannot be attached to a child that died of a missing cwd). */
    int ready[2] = {0, 0};
    if (write(errpipe, ready, sizeof ready) != (ssize_t)sizeof ready)
        _exit(127);
    /* Hold here until the parent has attached its counters; with nothing
     * to attach (a warm-up, a build), a child sharing perfgate's memory,
     * born in its cgroup, execs at once (its parent waits for that). */
    char go;
    ssize_t r = 1;
    while ((hold || !shared) && (r = read(gopipe, &go, 1)) < 0 && errno == EINTR)
        ;
    if (r != 1)
        _exit(127);     /* parent gave up (attach failed): nothing to report */
    execvpe(o->argv[0], o->argv, o->envp ? o->envp : environ);
    child_fail(errpipe, STAGE_EXEC);
}

/* ---- the parent side: one run's state, and the steps that use it ---- */

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

enum { MAX_POLL = 40, MAX_HOOK_FDS = 32 };

typedef struct spawn_run {
    const pg_spawn_opts *o;
    pg_spawn_result *res;
    /* [0] read end, [1] write end; -1 when closed. go: release; err: exec
     * failure report; out/ero: the child's stdout/stderr. */
    int go[2], err[2], out[2], ero[2];
    int pidfd;
    logbuf lout, lerr;
    int logs;               /* lout/lerr allocated */
    sigset_t old;           /* the signal mask before the run */
    int masked;
    pg_contain box;
    int contained;
    pid_t pid;
    int status;
    double t0, deadline, kill_at;
    int setup[2];           /* the child's report before exec: {0, 0} ready, else {stage, errno} */
    pg_canon_layout canon;  /* its namespace, when it gets one */
} spawn_run;

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static int open_pipes(spawn_run *r)
{
    if (pipe2(r->go, O_CLOEXEC) < 0 || pipe2(r->err, O_CLOEXEC) < 0 ||
        (!r->o->quiet_stdout && !r->o->stdout_to_stderr && pipe2(r->out, O_CLOEXEC) < 0) ||
        pipe2(r->ero, O_CLOEXEC) < 0)
        return pg_error_errno(PG_ERROR, "cannot create pipes");
    size_t cap = r->o->log_cap ? r->o->log_cap : 64 * 1024;
    r->logs = 1;
    log_init(&r->lout, cap);
    log_init(&r->lerr, cap);
    return 0;
}

typedef struct child_args {
    spawn_run *r;
    const pg_canon_layout *canon;
    const char *via;
    pid_t parent;
    int hold;               /* a hook attaches to it before its exec */
} child_args;

/* The child: the parent's ends of the pipes closed (in its own file table,
 * shared memory or not), then its set-up and exec. */
static void child_entry(void *arg, int shared)
{
    const child_args *ca = arg;
    const spawn_run *r = ca->r;
    close(r->go[1]);
    close(r->err[0]);
    if (r->out[0] >= 0)
        close(r->out[0]);
    close(r->ero[0]);
    child_main(r->o, ca->canon, ca->via, ca->parent, r->go[0], r->err[1], r->out[1], r->ero[1], shared, ca->hold);
}

/* Forks the child, held before exec; the parent keeps its ends of the pipes. */
static int start_child(spawn_run *r)
{
    /* Block SIGINT/SIGTERM outside ppoll so a Ctrl-C cannot slip between a check and a wait. */
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &r->old);
    r->masked = 1;
    pg_contain_begin(&r->box);
    r->contained = 1;

    /* Computed before the fork: the child allocates nothing. */
    pg_canon_layout *canon = &r->canon;
    if (!r->o->tree || !pg_canon_layout_make(canon, r->o->tree, r->o->cwd, r->o->argv))
        canon = NULL;
    const char *via = r->o->own_rss ? pg_launcher_path() : NULL;
    child_args ca = {r, canon, via, getpid(), r->o->hooks && r->o->hooks->attach};
    fflush(NULL);
    /* Only a child that execs at once may share perfgate's memory: one that
     * execs the launcher, or one nothing attaches to (a warm-up: a fork
     * copied perfgate's page tables, and perfgate then took a fault on the
     * first write to each of its pages); one held before its exec until the
     * counters attach is a fork. (And one whose launcher's argv fits its
     * stack with room to spare.) */
    size_t nargs = 0;
    while (r->o->argv[nargs])
        nargs++;
    r->pid = pg_contain_spawn(&r->box, child_entry, &ca, (via != NULL || !ca.hold) && nargs < 1024);
    if (r->pid < 0)
        return pg_error_errno(PG_ERROR, "cannot fork");
    pg_contain_adopt(&r->box, r->pid);
    if (via && !r->box.shared) {      /* adopted: the child may exec the launcher now */
        ssize_t w = pg_write_nosigpipe(r->go[1], "a", 1);
        (void)w;
    }
    close_fd(&r->go[0]);
    close_fd(&r->err[1]);
    close_fd(&r->out[1]);
    close_fd(&r->ero[1]);
    if (r->out[0] >= 0)
        fcntl(r->out[0], F_SETFL, O_NONBLOCK);
    fcntl(r->ero[0], F_SETFL, O_NONBLOCK);
    return 0;
}

/* Lets the hooks attach to the held child, then releases it (or, when a hook
 * failed, lets it exit without exec). */
static int attach_and_release(spawn_run *r)
{
    int rc = 0;
    const pg_spawn_hooks *h = r->o->hooks;
    /* The child's setup: ready, or why not (then it is gone: nothing to attach
     * to, nothing to release). */
    ssize_t got;
    do
        got = read(r->err[0], r->setup, sizeof r->setup);
    while (got < 0 && errno == EINTR);
    int ready = got == (ssize_t)sizeof r->setup && r->setup[0] == 0;
    if (got != (ssize_t)sizeof r->setup)
        r->setup[0] = r->setup[1] = 0;
    /* Through the launcher, the program is its child: counters attach to it. */
    if (ready && h && h->attach)
        rc = h->attach(h->ctx, r->setup[1] > 0 ? (pid_t)r->setup[1] : r->pid);
    r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
    r->t0 = now_ns();
    if (rc == 0 && ready) {
        /* Should it have died since, no SIGPIPE for perfgate. */
        ssize_t w = pg_write_nosigpipe(r->go[1], "g", 1);
        (void)w;
    }
    close_fd(&r->go[1]);    /* on a failed attach the child reads EOF and exits */
    r->deadline = r->o->timeout_sec > 0 ? r->t0 + r->o->timeout_sec * 1e9 : 0;
    return rc;
}

/* The fds to poll: pidfd, the logs, the hooks'. *first_hook is where the hooks' start. */
static size_t poll_set(const spawn_run *r, struct pollfd *pfd, size_t *first_hook)
{
    size_t n = 0;
    if (r->pidfd >= 0)
        pfd[n++] = (struct pollfd){.fd = r->pidfd, .events = POLLIN};
    if (r->out[0] >= 0)
        pfd[n++] = (struct pollfd){.fd = r->out[0], .events = POLLIN};
    if (r->ero[0] >= 0)
        pfd[n++] = (struct pollfd){.fd = r->ero[0], .events = POLLIN};
    *first_hook = n;
    const pg_spawn_hooks *h = r->o->hooks;
    if (h && h->pollfds) {
        int fds[MAX_HOOK_FDS];
        size_t k = h->pollfds(h->ctx, fds, MAX_HOOK_FDS);
        for (size_t i = 0; i < k && n < MAX_POLL; i++)
            pfd[n++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
    }
    return n;
}

/* How long ppoll may sleep: until the deadline or the SIGKILL that follows a
 * SIGTERM; NULL (no limit) when the pidfd wakes it; 10 ms when there is none. */
static struct timespec *poll_timeout(const spawn_run *r, struct timespec *ts)
{
    double t = now_ns();
    double wait_ns = r->pidfd >= 0 ? -1 : 10e6;
    double until = r->kill_at ? r->kill_at : r->deadline;
    if (until) {
        double left = until > t ? until - t : 0;
        if (wait_ns < 0 || left < wait_ns)
            wait_ns = left;
    }
    if (wait_ns < 0)
        return NULL;
    ts->tv_sec = (time_t)(wait_ns / 1e9);
    ts->tv_nsec = (long)(wait_ns - (double)ts->tv_sec * 1e9);
    return ts;
}

static void handle_ready(spawn_run *r, const struct pollfd *pfd, size_t n, size_t first_hook)
{
    int hook_ready = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pfd[i].revents)
            continue;
        if (i >= first_hook)
            hook_ready = 1;
        else if (pfd[i].fd == r->out[0])
            drain_fd(&r->out[0], &r->lout);
        else if (pfd[i].fd == r->ero[0])
            drain_fd(&r->ero[0], &r->lerr);
    }
    const pg_spawn_hooks *h = r->o->hooks;
    if (hook_ready && h->readable)
        h->readable(h->ctx);
}

/* Ctrl-C kills the run at once; a timeout sends SIGTERM, then SIGKILL after a grace period. */
static void enforce_limits(spawn_run *r)
{
    if (interrupted && !r->res->interrupted) {
        r->res->interrupted = 1;
        pg_contain_signal(&r->box, SIGKILL);
    }
    double t = now_ns();
    if (r->deadline && !r->kill_at && t >= r->deadline) {
        r->res->timed_out = 1;
        pg_contain_signal(&r->box, SIGTERM);
        r->kill_at = t + 500e6;
    } else if (r->kill_at && t >= r->kill_at) {
        pg_contain_signal(&r->box, SIGKILL);
        r->kill_at = t + 3600e9;
    }
}

/* Polls until the child is reaped. */
static int watch(spawn_run *r)
{
    int rc = 0;
    sigset_t waitmask = r->old;
    sigdelset(&waitmask, SIGINT);
    sigdelset(&waitmask, SIGTERM);
    for (;;) {
        struct pollfd pfd[MAX_POLL];
        struct timespec ts;
        size_t first_hook;
        size_t n = poll_set(r, pfd, &first_hook);
        int pr = ppoll(pfd, n, poll_timeout(r, &ts), &waitmask);
        if (pr < 0 && errno != EINTR && rc == 0) {
            rc = pg_error_errno(PG_ERROR, "poll failed while waiting for the benchmark");
            pg_contain_signal(&r->box, SIGKILL);
        }
        if (pr > 0)
            handle_ready(r, pfd, n, first_hook);
        enforce_limits(r);
        if (wait4(r->pid, &r->status, WNOHANG, &r->res->ru) == r->pid)
            return rc;
    }
}

/* What the child (or the launcher) said after it was released: an exec
 * failure, as a line in its stderr log (then -1), and through the launcher
 * the program's own status and usage. 0 when it started. */
static int exec_failure(spawn_run *r)
{
    int msg[2] = {r->setup[0], r->setup[1]}, failed = 0;
    ssize_t got = msg[0] ? (ssize_t)sizeof msg : read(r->err[0], msg, sizeof msg);
    for (; got == (ssize_t)sizeof msg; got = read(r->err[0], msg, sizeof msg)) {
        if (msg[0] == PG_LAUNCH_DONE) {
            pg_launch_done d;
            memcpy(&d, msg, sizeof msg);
            char *rest = (char *)&d + sizeof msg;
            size_t want = sizeof d - sizeof msg;
            if (read(r->err[0], rest, want) == (ssize_t)want) {
                r->status = d.status;
                r->res->ru = d.ru;
            }
            continue;
        }
        if (!msg[0] || failed)
            continue;
        const pg_spawn_opts *o = r->o;
        char line[512];
        if (msg[0] == STAGE_CWD)
            snprintf(line, sizeof line, "perfgate: cannot change directory to %s: %s\n", o->cwd, strerror(msg[1]));
        else if (msg[0] == STAGE_PIN)
            snprintf(line, sizeof line, "perfgate: cannot pin to CPU %d: %s\n", o->cpu, strerror(msg[1]));
        else if (msg[0] == STAGE_LAUNCHER)
            snprintf(line, sizeof line, "perfgate: cannot execute the launcher %.400s: %s\n", pg_launcher_path(), strerror(msg[1]));
        else if (msg[0] == STAGE_SETUP)
            snprintf(line, sizeof line, "perfgate: cannot set up stdin/stdout for %s: %s\n", o->argv[0],
                     strerror(msg[1]));
        else
            snprintf(line, sizeof line, "perfgate: cannot execute %s: %s\n", o->argv[0], strerror(msg[1]));
        log_add(&r->lerr, line, strlen(line));
        r->res->exec_errno = msg[1];
        failed = 1;
    }
    return failed ? -1 : 0;
}

/* After the child was reaped: what it left goes (daemonized grandchildren would
 * hold the pipes open and skew the next run), its output is read to the end,
 * and the result filled in. */
static void finish(spawn_run *r, int rc)
{
    pg_spawn_result *res = r->res;
    res->wall_ns = now_ns() - r->t0;
    pg_contain_end(&r->box);
    r->contained = 0;
    if (r->out[0] >= 0)
        drain_fd(&r->out[0], &r->lout);
    if (r->ero[0] >= 0)
        drain_fd(&r->ero[0], &r->lerr);
    const pg_spawn_hooks *h = r->o->hooks;
    if (h && h->readable)
        h->readable(h->ctx);
    if (exec_failure(r) == 0 && rc == 0)
        res->started = 1;
    if (WIFEXITED(r->status))
        res->exit_code = WEXITSTATUS(r->status);
    else if (WIFSIGNALED(r->status))
        res->signal = WTERMSIG(r->status);
    r->logs = 0;
    res->out_cut = r->lout.total > r->lout.head_len + r->lout.ring_len;
    res->out_log = log_finish(&r->lout, &res->out_len);
    res->err_log = log_finish(&r->lerr, &res->err_len);
}

/* The one way out: whatever the steps left open is closed. */
static void cleanup(spawn_run *r)
{
    if (r->contained)
        pg_contain_end(&r->box);
    int *fds[] = {&r->go[0], &r->go[1], &r->err[0], &r->err[1], &r->out[0], &r->out[1],
                  &r->ero[0], &r->ero[1], &r->pidfd};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
        close_fd(fds[i]);
    if (r->logs) {
        free(r->lout.head);
        free(r->lout.ring);
        free(r->lerr.head);
        free(r->lerr.ring);
    }
    if (r->masked)
        sigprocmask(SIG_SETMASK, &r->old, NULL);
}

int pg_spawn_run(pg_spawn_result *res, const pg_spawn_opts *o)
{
    memset(res, 0, sizeof *res);
    spawn_run r = {.o = o, .res = res, .go = {-1, -1}, .err = {-1, -1}, .out = {-1, -1}, .ero = {-1, -1},
                   .pidfd = -1};
    int rc = open_pipes(&r);
    if (rc == 0)
        rc = start_child(&r);
    if (rc == 0) {
        rc = attach_and_release(&r);
        int wrc = watch(&r);
        rc = rc ? rc : wrc;
        finish(&r, rc);
    }
    cleanup(&r);
    return rc;
}

void pg_spawn_result_free(pg_spawn_result *res)
{
    free(res->out_log);
    free(res->err_log);
    res->out_log = res->err_log = NULL;
}
