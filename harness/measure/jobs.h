/* harness/measure/jobs.h — work spread over forked worker processes.
 *
 * `run --jobs N` measures the exact counts of several benchmarks at once
 * (runner.h): a count that does not depend on load may be taken beside
 * another. Processes rather than threads, because a measurement forks,
 * waits and owns a meter and temporary directories of its own, none of
 * which is safe to share between threads.
 *
 * pg_jobs_run forks `jobs` workers, which take the items 0..n-1 in order,
 * each the next one free (so a long item does not hold back the others),
 * and call fn(ctx, i, path) for each in the worker: the item's result goes
 * to the file `path` (in a directory of the call's own, owned by perfgate),
 * which the parent reads with pg_jobs_result afterwards. A worker starts
 * with perfgate's memory as it was at the fork and ends with _exit, so
 * nothing of the parent's (its meters, its temporary directories, stdio
 * buffers) is freed or flushed twice; it dies with perfgate
 * (PR_SET_PDEATHSIG). Ctrl-C reaches every worker (one process group):
 * their measurements stop and the call returns PG_EINTR.
 */
#ifndef PG_HARNESS_JOBS_H
#define PG_HARNESS_JOBS_H

#include "util/owned_dir.h"

#include <stddef.h>

/* Negative with the error's message set: the worker's error, said in the parent. */
typedef int pg_job_fn(void *ctx, size_t i, const char *path);
/* Called in each worker after its last item: what it made for itself goes
 * (a meter's temporary directory would otherwise wait for the next sweep). */
typedef void pg_job_end_fn(void *ctx);

typedef struct pg_jobs {
    pg_owned_dir dir;           /* item i's result: <dir>/<i>.json */
} pg_jobs;

/* Items handed out at once: their indices fit a pipe. */
#define PG_JOBS_MAX_ITEMS 4096

/* Runs every item (n <= PG_JOBS_MAX_ITEMS); 0 when all succeeded, else the first failed item's error
 * (PG_EINTR after Ctrl-C). The results stay until pg_jobs_free. */
int pg_jobs_run(pg_jobs *j, size_t n, int jobs, pg_job_fn *fn, pg_job_end_fn *end, void *ctx);
/* Where item i's result is. */
void pg_jobs_result(char *path, size_t len, const pg_jobs *j, size_t i);
void pg_jobs_free(pg_jobs *j);

/* The CPUs perfgate may run on (its affinity mask), at least 1. */
int pg_jobs_cpus(void);

#endif
