/* launch/perfgate-launch.c — starts the benchmark from a small process
 * (sharing its memory until the exec on x86-64, else a fork), so
 * that its max-rss is its own (harness/measure/launch.h says why and the protocol),
 * and is perfgate's watchdog (harness/measure/watchdog.h).
 *
 * usage: perfgate-launch GO_FD ERR_FD -- PROGRAM [ARG...]
 *        perfgate-launch --watch     (the socket at descriptor 3)
 * (started by perfgate, never by hand). The benchmark inherits
 * everything the spawner set up: working directory, CPU, personality,
 * process group, cgroup, file descriptors, environment.
 *
 * Written against harness/measure/lsys.h's system calls only, so that it can be built
 * without the C library (lsys.h says why): no errno, no stdio, no
 * string functions; the program is found on PATH here as execvp(3) finds it. */
#include "harness/measure/launch.h"
#include "harness/measure/lsys.h"
#include "harness/measure/watchdog.h"

#include <errno.h>          /* the E* constants only */
#include <fcntl.h>
#include <linux/limits.h>   /* PATH_MAX */
#include <signal.h>
#include <sys/prctl.h>

static void say(int fd, const void *msg, size_t n)
{
    long w = lsys_write(fd, msg, n);
    (void)w;
}

static int to_int(const char *s)
{
    int v = 0;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (*s++ - '0');
    return v;
}

static size_t len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

static int has_slash(const char *s)
{
    for (; *s; s++)
        if (*s == '/')
            return 1;
    return 0;
}

/* execve, and as execvp(3) does, a file the kernel cannot execute
 * (ENOEXEC: a script without #!) is given to /bin/sh. Returns -errno. */
static long exec_file(const char *path, char **argv, char **envp)
{
    long rc = lsys_execve(path, argv, envp);
    if (rc != -ENOEXEC)
        return rc;
    size_t n = 0;
    while (argv[n])
        n++;
    char *sh[n + 2];
    sh[0] = "/bin/sh", sh[1] = (char *)path;
    for (size_t i = 1; i <= n; i++)
        sh[i + 1] = argv[i];
    lsys_execve(sh[0], sh, envp);
    return rc;
}

/* execvp(3) with the environment given: a name without '/' is looked for in
 * each directory of PATH (glibc's default "/bin:/usr/bin" when it is unset;
 * an empty entry is the working directory); a directory that cannot hold it
 * is skipped, and a file found but not executable (EACCES) is the error when
 * no later one runs. Returns -errno. */
static long exec_path(char **argv, char **envp)
{
    const char *file = argv[0];
    if (!*file)
        return -ENOENT;
    if (has_slash(file))
        return exec_file(file, argv, envp);
    const char *path = "/bin:/usr/bin";
    for (char **e = envp; *e; e++)
        if ((*e)[0] == 'P' && (*e)[1] == 'A' && (*e)[2] == 'T' && (*e)[3] == 'H' && (*e)[4] == '=') {
            path = *e + 5;
            break;
        }
    size_t flen = len(file);
    if (flen >= NAME_MAX + 1)
        return -ENAMETOOLONG;
    long rc = -ENOENT;
    int denied = 0;
    for (const char *p = path;; p++) {
        const char *end = p;
        while (*end && *end != ':')
            end++;
        size_t dlen = (size_t)(end - p);
        char full[PATH_MAX + NAME_MAX + 2];
        if (dlen < PATH_MAX) {
            size_t o = 0;
            for (size_t i = 0; i < dlen; i++)
                full[o++] = p[i];
            if (dlen)
                full[o++] = '/';
            for (size_t i = 0; i <= flen; i++)
                full[o++] = file[i];
            rc = exec_file(full, argv, envp);
            if (rc == -EACCES)
                denied = 1;
            else if (rc != -ENOENT && rc != -ESTALE && rc != -ENOTDIR && rc != -ENODEV && rc != -ETIMEDOUT)
                return rc;
        }
        if (!*end)
            break;
        p = end;
    }
    return denied ? -EACCES : rc;
}

typedef struct held {
    char **argv, **envp;
    int go, err;
    long parent;
} held;

/* The benchmark's process from its birth to its exec: it dies with the
 * launcher, says it is ready (its pid: the counters attach to it), waits
 * for go, and execs; else says why. Only system calls, on its own stack:
 * it may share the launcher's memory. */
static __attribute__((noreturn)) void held_child(void *arg)
{
    const held *h = arg;
    lsys_prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (lsys_getppid() != h->parent)
        lsys_exit(127);
    int ready[2] = {PG_LAUNCH_READY, (int)lsys_getpid()};
    say(h->err, ready, sizeof ready);
    char c;
    long r;
    do
        r = lsys_read(h->go, &c, 1);
    while (r == -EINTR);
    if (r != 1)
        lsys_exit(127);         /* the spawner gave up (an attach failed) */
    int m[2] = {PG_LAUNCH_EXEC, (int)-exec_path(h->argv, h->envp)};
    say(h->err, m, sizeof m);
    lsys_exit(127);
}

static void held_entry(void *arg) { held_child(arg); }

static int launch_main(int argc, char **argv, char **envp)
{
    const char *watch = PG_WATCH_ARG;
    size_t i = 0;
    while (argc == 2 && watch[i] && argv[1][i] == watch[i])
        i++;
    if (argc == 2 && !watch[i] && !argv[1][i])
        pg_watch_loop();
    if (argc < 5 || argv[3][0] != '-' || argv[3][1] != '-' || argv[3][2])
        return 127;
    held h = {argv + 4, envp, to_int(argv[1]), to_int(argv[2]), lsys_getpid()};
    /* The benchmark must not keep them open past its exec. */
    lsys_fcntl(h.go, F_SETFD, FD_CLOEXEC);
    lsys_fcntl(h.err, F_SETFD, FD_CLOEXEC);
    long pid = -1;
#ifdef LSYS_HAVE_CLONE3_ON
    /* Sharing the launcher's memory until its exec, as a vfork: no copy of
     * the launcher to make, fault in and tear down at the exec, every run.
     * Its max-rss is its own either way (a new process starts a new peak;
     * the launcher's few pages are all it inherits). The launcher sleeps
     * meanwhile: it has nothing to do before the exec. */
    _Alignas(16) char stack[64 * 1024];
    struct clone_args ca = {.flags = CLONE_VM | CLONE_VFORK, .exit_signal = SIGCHLD,
                            .stack = (unsigned long)stack, .stack_size = sizeof stack};
    if (argc < 1024)
        pid = lsys_clone3_on(&ca, held_entry, &h);
    if (pid < 0)        /* no clone3 here (Linux < 5.3), or a seccomp filter: a fork */
#endif
    {
        pid = lsys_fork();
        if (pid == 0)
            held_child(&h);
    }
    if (pid < 0) {
        int m[2] = {PG_LAUNCH_EXEC, (int)-pid};
        say(h.err, m, sizeof m);
        return 127;
    }
    lsys_close(h.go);
    pg_launch_done done = {.kind = PG_LAUNCH_DONE};
    long w;
    while ((w = lsys_wait4((int)pid, &done.status, 0, &done.ru)) < 0)
        if (w != -EINTR)
            return 127;
    say(h.err, &done, sizeof done);
    return 0;
}

#ifdef PG_LAUNCH_NOLIBC
/* Called by lsys.h's _start with the stack the kernel set up. */
__attribute__((noreturn, used)) void pg_launch_start(long *sp);
__attribute__((noreturn, used)) void pg_launch_start(long *sp)
{
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);
    lsys_exit(launch_main(argc, argv, argv + argc + 1));
}
#else
extern char **environ;
int main(int argc, char **argv)
{
    return launch_main(argc, argv, environ);
}
#endif
