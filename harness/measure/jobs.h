/* harness/measure/jobs.h — work spread over forked worker processes.
 *
 * `run --jobs N` measures the exact counts of several benchmarks at once
 * (runner.h): a count that does not depend on load may be taken beside
 * another. Processes rather than threads, because a measurement forks,
 * waits and owns a meter and temporary directories of its own, none of
 * which is safe to share between threads.
 *
 * pg_jobs_run forks `jobs` workers and hands each one item at a time
 * (0..n-1 in order, the next one to whichever worker is free, so a long item
 * does not hold back the others); the worker calls fn(ctx, i, &text, &len)
 * and sends the item's result back. A benchmark a worker measures is the
 * code under test and may be hostile, so results never pass through a file:
 * each worker has a pipe of its own to the parent and one from it, both
 * close-on-exec, so that nothing the worker starts holds them
 * (docs/processes.md). The parent takes from worker w only the answer to
 * the item it handed w, once; anything else (another item, a second answer,
 * a message it cannot read) is refused and the call fails. A worker starts
 * with perfgate's memory as it was at the fork and ends with _exit, so
 * nothing of the parent's (its meters, its temporary directories, stdio
 * buffers) is freed or flushed twice; it dies with perfgate
 * (PR_SET_PDEATHSIG). Ctrl-C reaches every worker (one process group):
 * their measurements stop and the call returns PG_EINTR.
 */
#ifndef PG_HARNESS_JOBS_H
#define PG_HARNESS_JOBS_H

#include <stddef.h>

/* In a worker: item i's result into *text (malloc'd, `*len` bytes), or
 * negative with the error's message set (said in the parent). */
typedef int pg_job_fn(void *ctx, size_t i, char **text, size_t *len);
/* Called in each worker after its last item: what it made for itself goes
 * (a meter's temporary directory would otherwise wait for the next sweep). */
typedef void pg_job_end_fn(void *ctx);

typedef struct pg_jobs {
    size_t n;
    char **text;                /* item i's result, NUL-terminated; NULL until received */
    size_t *len;
    char *error;                /* the error of the first item (by index) that failed */
    size_t error_item;
    int interrupted;            /* a worker said its measurement was interrupted */
} pg_jobs;

/* Items handed out at once. */
#define PG_JOBS_MAX_ITEMS 4096
/* The largest message a worker may send (one benchmark's entry). */
#define PG_JOBS_MAX_MESSAGE (64u << 20)

/* Runs every item (n <= PG_JOBS_MAX_ITEMS); 0 when all succeeded, else the first failed item's error
 * (PG_EINTR after Ctrl-C, PG_EIO for a worker that died or said what it was not asked).
 * The results stay until pg_jobs_free. */
int pg_jobs_run(pg_jobs *j, size_t n, int jobs, pg_job_fn *fn, pg_job_end_fn *end, void *ctx);
/* Item i's result (NUL-terminated), NULL when there is none. */
const char *pg_jobs_result(size_t *len, const pg_jobs *j, size_t i);
void pg_jobs_free(pg_jobs *j);

/* The CPUs perfgate may run on (its affinity mask), at least 1. */
int pg_jobs_cpus(void);

/* --- the parent's side of one worker's channel (for pg_jobs_run and the fuzzer) --- */

/* What the parent knows of a worker: the item it was handed, and the bytes
 * of its answer received so far. */
typedef struct pg_jobs_conn {
    int worker;                 /* its number, in messages */
    int busy;                   /* it holds `item` and owes its answer */
    size_t item;
    unsigned char *buf;
    size_t len, cap;
} pg_jobs_conn;

/* Empty results for n items (pg_jobs_run does it). */
int pg_jobs_init(pg_jobs *j, size_t n);
/* `n` more bytes from worker c: 1 when they complete its answer (the result,
 * an error or an interruption, recorded in j; c is no longer busy), 0 when
 * more are needed, negative (PG_EIO, said) when they are not an answer to
 * the item c was handed. */
int pg_jobs_receive(pg_jobs *j, pg_jobs_conn *c, const void *bytes, size_t n);
void pg_jobs_conn_free(pg_jobs_conn *c);

#endif
