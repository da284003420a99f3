/* harness/measure/watchdog.h — a run's cgroup killed and removed, and the
 * watchdog that does it when perfgate dies (harness/measure/contain.h).
 *
 * Written on harness/measure/lsys.h's system calls only: contain.c uses these
 * with the C library's (in perfgate, and in a watchdog forked from it where
 * there is no launcher), launch/perfgate-launch.c without it (the watchdog
 * perfgate starts: `perfgate-launch --watch`, with its descriptors at
 * PG_WATCH_FD and PG_WATCH_STATE_FD). No malloc, no stdio: all of it is safe in a child forked
 * from a process with threads.
 *
 * Why the watchdog is exec'd rather than forked: a fork copies perfgate's
 * page tables, and while the copy lives (all of perfgate's life) perfgate
 * takes a copy-on-write fault on the first write to each page it had; the
 * launcher is started sharing perfgate's memory until its exec, as each
 * run's is (contain.h, pg_contain_spawn), and is a few pages.
 *
 * The protocol: perfgate writes a pg_watch_msg at the start of a memfd
 * (PG_WATCH_STATE_FD) when a run starts (its process group and cgroup) and
 * when it ends (zeros), and holds the only write end of a pipe whose read end
 * is PG_WATCH_FD. The watchdog sleeps in a read of the pipe; at its EOF
 * (perfgate exited, or was killed) it reads the memfd, kills the last run's
 * process group and cgroup, removes the cgroup and exits. (A message on a
 * socket per change woke it twice a run.) */
#ifndef PG_HARNESS_WATCHDOG_H
#define PG_HARNESS_WATCHDOG_H

#include "harness/measure/lsys.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>

enum { PG_WATCH_FD = 3, PG_WATCH_STATE_FD = 4 };
#define PG_WATCH_ARG "--watch"

typedef struct pg_watch_msg {
    int pgid;
    char cgroup[512];
} pg_watch_msg;

/* dst = a + b (+ c), truncated safely; returns 0 when it fit. */
static inline int pg_watch_join(char *dst, size_t len, const char *a, const char *b, const char *c)
{
    size_t n = 0;
    const char *parts[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        for (const char *s = parts[i]; s && *s; s++)
            if (n + 1 < len)
                dst[n++] = *s;
            else
                return -1;
    dst[n] = '\0';
    return 0;
}

static inline void pg_watch_nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (lsys_nanosleep(&ts) == -EINTR)
        ;
}

/* <dir><file> opened with flags (and O_CLOEXEC); -1 when it cannot be. */
static inline int pg_watch_open(const char *dir, const char *file, int flags)
{
    char path[600];
    if (pg_watch_join(path, sizeof path, dir, file, NULL) < 0)
        return -1;
    long fd = lsys_open(path, flags | O_CLOEXEC);
    return fd < 0 ? -1 : (int)fd;
}

static inline int pg_watch_write(const char *dir, const char *file, const char *text)
{
    int fd = pg_watch_open(dir, file, O_WRONLY);
    if (fd < 0)
        return -1;
    size_t n = 0;
    while (text[n])
        n++;
    long w = lsys_write(fd, text, n);
    lsys_close(fd);
    return w == (long)n ? 0 : -1;
}

/* Calls fn for each pid in <dir>/cgroup.procs; returns how many, -1 when it cannot be read. */
static inline int pg_watch_each_pid(const char *dir, void (*fn)(int, int), int arg)
{
    char buf[1024];
    int fd = pg_watch_open(dir, "/cgroup.procs", O_RDONLY);
    if (fd < 0)
        return -1;
    long cur = -1, r;
    int n = 0;
    while ((r = lsys_read(fd, buf, sizeof buf)) > 0)
        for (long i = 0; i < r; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                cur = (cur < 0 ? 0 : cur * 10) + (buf[i] - '0');
            } else if (cur >= 0) {
                fn((int)cur, arg);
                n++;
                cur = -1;
            }
        }
    if (cur >= 0) {
        fn((int)cur, arg);
        n++;
    }
    lsys_close(fd);
    return n;
}

static inline void pg_watch_signal(int pid, int sig) { lsys_kill(pid, sig); }

/* 1 while any process is in the cgroup (or below), 0 when empty, -1 when unknown. */
static inline int pg_watch_populated(const char *dir)
{
    char buf[256];
    int fd = pg_watch_open(dir, "/cgroup.events", O_RDONLY);
    if (fd < 0)
        return -1;
    long r = lsys_read(fd, buf, sizeof buf - 1);
    lsys_close(fd);
    if (r <= 0)
        return -1;
    static const char key[] = "populated ";
    for (long i = 0; i + (long)sizeof key - 1 < r; i++) {
        long k = 0;
        while (key[k] && buf[i + k] == key[k])
            k++;
        if (!key[k])
            return buf[i + k] == '1';
    }
    return -1;
}

/* SIGKILL to everything in the cgroup: cgroup.kill (Linux 5.14) reaches a
 * process even as it forks; older kernels get a kill of each member until
 * none is left. */
static inline void pg_watch_cg_kill(const char *dir)
{
    if (pg_watch_write(dir, "/cgroup.kill", "1") == 0)
        return;
    for (int round = 0; round < 100 && pg_watch_each_pid(dir, pg_watch_signal, SIGKILL) > 0; round++)
        pg_watch_nap_ms(1);
}

/* Kills what is left, waits (bounded) for the last to go, removes the
 * directory. -1 when it stayed (the next perfgate's sweep retries). */
static inline int pg_watch_cg_remove(const char *dir)
{
    long waited = 0;
    for (long ms = 1; waited < 10000; waited += ms, ms = ms < 50 ? ms * 2 : ms) {
        /* Asked first: an empty cgroup (most runs') needs no kill. */
        int populated = pg_watch_populated(dir);
        if (populated < 0 && lsys_exists(dir) < 0)
            return 0;       /* already gone */
        long rc;
        if (populated == 0 && ((rc = lsys_rmdir(dir)) == 0 || rc == -ENOENT))
            return 0;
        pg_watch_cg_kill(dir);
        pg_watch_nap_ms(ms);
    }
    return -1;
}

/* The watchdog, once its process is set up (its own session, the signals a
 * terminal sends ignored, its two descriptors and nothing else of perfgate's
 * open): waits for EOF, then ends the last run. */
static inline __attribute__((noreturn)) void pg_watch_loop(void)
{
    lsys_prctl(PR_SET_NAME, (long)"perfgate-watch");
    char c;
    long r;
    while ((r = lsys_read(PG_WATCH_FD, &c, 1)) > 0 || r == -EINTR)
        ;       /* EOF: perfgate is gone, by exit or by kill */
    pg_watch_msg cur = {0};
    if (lsys_pread(PG_WATCH_STATE_FD, &cur, sizeof cur, 0) != (long)sizeof cur)
        lsys_exit(1);
    if (cur.pgid > 0)
        lsys_kill(-cur.pgid, SIGKILL);
    cur.cgroup[sizeof cur.cgroup - 1] = '\0';
    if (cur.cgroup[0])
        pg_watch_cg_remove(cur.cgroup);
    lsys_exit(0);
}

#endif
