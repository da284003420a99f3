/* launch/perfgate-launch.c — forks the benchmark from a small process, so
 * that its max-rss is its own (harness/measure/launch.h says why and the protocol).
 *
 * usage: perfgate-launch GO_FD ERR_FD -- PROGRAM [ARG...]
 * (started by perfgate's spawner, never by hand). The benchmark inherits
 * everything the spawner set up: working directory, CPU, personality,
 * process group, cgroup, file descriptors, environment. */
#include "harness/measure/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(int fd, const void *msg, size_t n)
{
    ssize_t w = write(fd, msg, n);
    (void)w;
}

int main(int argc, char **argv)
{
    if (argc < 5 || strcmp(argv[3], "--"))
        return 127;
    int go = atoi(argv[1]), err = atoi(argv[2]);
    /* The benchmark must not keep them open past its exec. */
    fcntl(go, F_SETFD, FD_CLOEXEC);
    fcntl(err, F_SETFD, FD_CLOEXEC);
    pid_t self = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int m[2] = {PG_LAUNCH_EXEC, errno};
        say(err, m, sizeof m);
        return 127;
    }
    if (pid == 0) {
        /* It dies with the launcher, which dies with perfgate. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != self)
            _exit(127);
        char c;
        ssize_t r;
        do
            r = read(go, &c, 1);
        while (r < 0 && errno == EINTR);
        if (r != 1)
            _exit(127);             /* the spawner gave up (an attach failed) */
        execvp(argv[4], argv + 4);
        int m[2] = {PG_LAUNCH_EXEC, errno};
        say(err, m, sizeof m);
        _exit(127);
    }
    close(go);
    int ready[2] = {PG_LAUNCH_READY, (int)pid};
    say(err, ready, sizeof ready);
    pg_launch_done done = {.kind = PG_LAUNCH_DONE};
    while (wait4(pid, &done.status, 0, &done.ru) < 0)
        if (errno != EINTR)
            return 127;
    say(err, &done, sizeof done);
    return 0;
}
