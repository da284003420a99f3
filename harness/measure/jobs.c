/* harness/measure/jobs.c — see jobs.h. */
#include "harness/measure/jobs.h"
#include "util/forksafe.h"
#include "harness/measure/spawn.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Exit statuses of a worker. */
enum { WORKER_OK = 0, WORKER_FAILED = 1, WORKER_INTERRUPTED = 3 };

int pg_jobs_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) < 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

void pg_jobs_result(char *path, size_t len, const pg_jobs *j, size_t i)
{
    snprintf(path, len, "%s/%zu.json", j->dir.path, i);
}

/* A worker: items from the pipe until it is empty; an item's error goes to
 * <dir>/<i>.error for the parent to say. */
static void worker(pg_jobs *j, int rfd, pg_job_fn *fn, pg_job_end_fn *end, void *ctx)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    size_t i;
    char path[4200];
    while (read(rfd, &i, sizeof i) == (ssize_t)sizeof i) {
        pg_jobs_result(path, sizeof path, j, i);
        int rc = fn(ctx, i, path);
        if (rc < 0 || pg_spawn_interrupted()) {
            char err[4200];
            snprintf(err, sizeof err, "%s/%zu.error", j->dir.path, i);
            const char *msg = rc < 0 ? pg_error_last() : "interrupted";
            pg_file_write_atomic(err, msg, strlen(msg));
            end(ctx);
            _exit(rc == PG_EINTR || pg_spawn_interrupted() ? WORKER_INTERRUPTED : WORKER_FAILED);
        }
    }
    end(ctx);
    _exit(WORKER_OK);
}

/* The error of the first item that has one, as this process's. */
static int first_error(const pg_jobs *j, size_t n, int interrupted)
{
    if (interrupted)
        return pg_error_set(PG_EINTR, "interrupted");
    for (size_t i = 0; i < n; i++) {
        char path[4200], *msg = NULL;
        snprintf(path, sizeof path, "%s/%zu.error", j->dir.path, i);
        if (pg_file_read(&msg, NULL, path) == 0) {
            int rc = pg_error_set(PG_EIO, "%s", msg);
            free(msg);
            return rc;
        }
        pg_error_clear();
    }
    return pg_error_set(PG_EIO, "a worker of --jobs ended without a result");
}

int pg_jobs_run(pg_jobs *j, size_t n, int jobs, pg_job_fn *fn, pg_job_end_fn *end, void *ctx)
{
    pg_owned_init(&j->dir);
    int rc = pg_owned_mkdtemp(&j->dir, "perfgate-jobs-");
    if (rc < 0)
        return rc;
    if (n > PG_JOBS_MAX_ITEMS)
        return pg_error_set(PG_EINVAL, "--jobs takes at most %d items at once", PG_JOBS_MAX_ITEMS);
    int p[2];
    if (pipe(p) < 0)
        return pg_error_errno(PG_EIO, "pipe");
    /* Every item into the pipe before any worker starts (they fit its 64
     * KiB): nobody ever waits to write, whatever the workers do. */
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (write(p[1], &i, sizeof i) != (ssize_t)sizeof i)
            rc = pg_error_errno(PG_EIO, "hand an item to the workers of --jobs");
    pg_spawn_install_sigint();
    fflush(NULL);
    int started = 0;
    pid_t pids[256];
    jobs = jobs < 1 ? 1 : jobs > 256 ? 256 : jobs;
    if ((size_t)jobs > n)
        jobs = (int)n;
    pg_forksafe_fork_begin();      /* a worker runs on: no other thread inside a library */
    for (int w = 0; rc == 0 && w < jobs; w++) {
        pid_t pid = fork();
        if (pid == 0) {
            pg_forksafe_fork_end();
            close(p[1]);
            worker(j, p[0], fn, end, ctx);
        }
        if (pid < 0) {
            rc = pg_error_errno(PG_EIO, "fork a worker of --jobs");
            break;
        }
        pids[started++] = pid;
    }
    pg_forksafe_fork_end();
    close(p[0]);
    close(p[1]);
    int failed = 0, interrupted = 0;
    for (int w = 0; w < started; w++) {
        int st;
        while (waitpid(pids[w], &st, 0) < 0 && errno == EINTR)
            ;
        interrupted |= WIFEXITED(st) && WEXITSTATUS(st) == WORKER_INTERRUPTED;
        failed |= !WIFEXITED(st) || WEXITSTATUS(st) != WORKER_OK;
    }
    interrupted |= pg_spawn_interrupted();
    if (rc == 0 && (failed || interrupted))
        rc = first_error(j, n, interrupted);
    return rc;
}

void pg_jobs_free(pg_jobs *j)
{
    pg_owned_release(&j->dir, 1);
}
