/* harness/spawn.c — fork, prepare, hold, release, watch, reap. See spawn.h. */
#include "harness/spawn.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    char *head;
    size_t head_len, half;
    char *ring;         /* the most recent `half` bytes past the head */
    size_t ring_pos, ring_len;
    size_t total;
} logbuf;

static int log_init(logbuf *b, size_t cap)
{
    memset(b, 0, sizeof *b);
    b->half = cap / 2 ? cap / 2 : 1;
    b->head = malloc(b->half);
    b->ring = malloc(b->half);
    return b->head && b->ring ? 0 : -1;
}

static void log_add(logbuf *b, const char *p, size_t n)
{
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

enum { STAGE_SETUP = 1, STAGE_CWD, STAGE_PIN, STAGE_EXEC };

static void child_main(const pg_spawn_opts *o, int gopipe, int errpipe, int outfd, int errfd)
{
    /* Signals back to defaults and unblocked: perfgate's own handling must not leak. */
    sigset_t none;
    sigemptyset(&none);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);

    int devnull = open("/dev/null", O_RDWR);
    if (devnull < 0 || dup2(devnull, 0) < 0)
        child_fail(errpipe, STAGE_SETUP);
    if (dup2(outfd >= 0 ? outfd : devnull, 1) < 0 || dup2(errfd, 2) < 0)
        child_fail(errpipe, STAGE_SETUP);
    if (o->cwd && chdir(o->cwd) < 0)
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
    /* Hold here until the parent has attached its counters. */
    char go;
    ssize_t r;
    do
        r = read(gopipe, &go, 1);
    while (r < 0 && errno == EINTR);
    if (r != 1)
        _exit(127);     /* parent gave up (attach failed): nothing to report */
    execvpe(o->argv[0], o->argv, o->envp ? o->envp : environ);
    child_fail(errpipe, STAGE_EXEC);
}

/* ---- the parent side ---- */

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void kill_group(pid_t pid, int sig)
{
    if (kill(-pid, sig) < 0)
        kill(pid, sig);
}

int pg_spawn_run(pg_spawn_result *res, const pg_spawn_opts *o)
{
    memset(res, 0, sizeof *res);
    int go[2] = {-1, -1}, err[2] = {-1, -1}, out[2] = {-1, -1}, ero[2] = {-1, -1};
    if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 ||
        (!o->quiet_stdout && pipe2(out, O_CLOEXEC) < 0) || pipe2(ero, O_CLOEXEC) < 0) {
        int rc = pg_error_errno(PG_ERROR, "cannot create pipes");
        for (int *p = go; p; p = p == go ? err : p == err ? out : p == out ? ero : NULL)
            for (int k = 0; k < 2; k++)
                if (p[k] >= 0)
                    close(p[k]);
        return rc;
    }
    size_t cap = o->log_cap ? o->log_cap : 64 * 1024;
    logbuf lout, lerr;
    if (log_init(&lout, cap) < 0 || log_init(&lerr, cap) < 0)
        return pg_error_set(PG_ENOMEM, "out of memory");

    /* Block SIGINT/SIGTERM outside ppoll so a Ctrl-C cannot slip between a check and a wait. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old);

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        return pg_error_errno(PG_ERROR, "cannot fork");
    }
    if (pid == 0) {
        close(go[1]);
        close(err[0]);
        if (out[0] >= 0)
            close(out[0]);
        close(ero[0]);
        child_main(o, go[0], err[1], out[1], ero[1]);
    }
    setpgid(pid, pid);  /* also in the child: whichever runs first wins the race */
    close(go[0]);
    close(err[1]);
    if (out[1] >= 0)
        close(out[1]);
    close(ero[1]);
    if (out[0] >= 0)
        fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(ero[0], F_SETFL, O_NONBLOCK);

    int rc = 0;
    const pg_spawn_hooks *h = o->hooks;
    if (h && h->attach && (rc = h->attach(h->ctx, pid)) != 0) {
        close(go[1]);   /* the child reads EOF and exits without exec */
        go[1] = -1;
    }
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

    double t0 = now_ns();
    if (go[1] >= 0) {
        ssize_t w = write(go[1], "g", 1);
        (void)w;
        close(go[1]);
    }
    double deadline = o->timeout_sec > 0 ? t0 + o->timeout_sec * 1e9 : 0;
    double kill_at = 0;     /* SIGTERM sent: SIGKILL follows after a grace period */
    int status = 0, reaped = 0;
    sigset_t waitmask = old;
    sigdelset(&waitmask, SIGINT);
    sigdelset(&waitmask, SIGTERM);

    while (!reaped) {
        struct pollfd pfd[40];
        size_t n = 0;
        if (pidfd >= 0)
            pfd[n++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
        size_t first_log = n;
        if (out[0] >= 0)
            pfd[n++] = (struct pollfd){.fd = out[0], .events = POLLIN};
        if (ero[0] >= 0)
            pfd[n++] = (struct pollfd){.fd = ero[0], .events = POLLIN};
        size_t first_hook = n;
        if (h && h->pollfds) {
            int fds[32];
            size_t k = h->pollfds(h->ctx, fds, 32);
            for (size_t i = 0; i < k && n < 40; i++)
                pfd[n++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
        }
        double t = now_ns();
        double wait_ns = pidfd >= 0 ? -1 : 10e6;
        if (deadline && !kill_at) {
            double left = deadline - t;
            if (left < 0)
                left = 0;
            if (wait_ns < 0 || left < wait_ns)
                wait_ns = left;
        }
        if (kill_at) {
            double left = kill_at - t;
            if (left < 0)
                left = 0;
            if (wait_ns < 0 || left < wait_ns)
                wait_ns = left;
        }
        struct timespec ts, *tsp = NULL;
        if (wait_ns >= 0) {
            ts.tv_sec = (time_t)(wait_ns / 1e9);
            ts.tv_nsec = (long)(wait_ns - (double)ts.tv_sec * 1e9);
            tsp = &ts;
        }
        int pr = ppoll(pfd, n, tsp, &waitmask);
        if (pr < 0 && errno != EINTR) {
            rc = pg_error_errno(PG_ERROR, "poll failed while waiting for the benchmark");
            kill_group(pid, SIGKILL);
        }
        if (pr > 0) {
            for (size_t i = first_log; i < first_hook; i++)
                if (pfd[i].revents) {
                    if (pfd[i].fd == out[0])
                        drain_fd(&out[0], &lout);
                    else
                        drain_fd(&ero[0], &lerr);
                }
            int hook_ready = 0;
            for (size_t i = first_hook; i < n; i++)
                hook_ready |= pfd[i].revents != 0;
            if (hook_ready && h->readable)
                h->readable(h->ctx);
        }
        if (interrupted && !res->interrupted) {
            res->interrupted = 1;
            kill_group(pid, SIGKILL);
        }
        t = now_ns();
        if (deadline && !kill_at && t >= deadline) {
            res->timed_out = 1;
            kill_group(pid, SIGTERM);
            kill_at = t + 500e6;
        } else if (kill_at && t >= kill_at) {
            kill_group(pid, SIGKILL);
            kill_at = t + 3600e9;
        }
        pid_t w = wait4(pid, &status, WNOHANG, &res->ru);
        if (w == pid)
            reaped = 1;
    }
    res->wall_ns = now_ns() - t0;
    /* Leftover members of the group (a daemonized grandchild) would hold the
     * pipes open and skew the next run: the run is over, they go too. */
    kill(-pid, SIGKILL);
    if (pidfd >= 0)
        close(pidfd);
    if (out[0] >= 0) {
        drain_fd(&out[0], &lout);
        if (out[0] >= 0)
            close(out[0]);
    }
    if (ero[0] >= 0) {
        drain_fd(&ero[0], &lerr);
        if (ero[0] >= 0)
            close(ero[0]);
    }
    if (h && h->readable)
        h->readable(h->ctx);
    sigprocmask(SIG_SETMASK, &old, NULL);

    int msg[2] = {0, 0};
    ssize_t got = read(err[0], msg, sizeof msg);
    close(err[0]);
    if (got == (ssize_t)sizeof msg && msg[0]) {
        res->exec_errno = msg[1];
        char line[512];
        if (msg[0] == STAGE_CWD)
            snprintf(line, sizeof line, "perfgate: cannot change directory to %s: %s\n", o->cwd, strerror(msg[1]));
        else if (msg[0] == STAGE_PIN)
            snprintf(line, sizeof line, "perfgate: cannot pin to CPU %d: %s\n", o->cpu, strerror(msg[1]));
        else if (msg[0] == STAGE_SETUP)
            snprintf(line, sizeof line, "perfgate: cannot set up stdin/stdout for %s: %s\n", o->argv[0], strerror(msg[1]));
        else
            snprintf(line, sizeof line, "perfgate: cannot execute %s: %s\n", o->argv[0], strerror(msg[1]));
        log_add(&lerr, line, strlen(line));
    } else if (rc == 0) {
        res->started = 1;
    }
    if (WIFEXITED(status))
        res->exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        res->signal = WTERMSIG(status);
    res->out_log = log_finish(&lout, &res->out_len);
    res->err_log = log_finish(&lerr, &res->err_len);
    return rc;
}

void pg_spawn_result_free(pg_spawn_result *res)
{
    free(res->out_log);
    free(res->err_log);
    res->out_log = res->err_log = NULL;
}
