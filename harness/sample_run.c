/* harness/sample_run.c — a spawn with a sampler attached. See sample_run.h. */
#include "harness/sample_run.h"
#include "util/error.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Unwinding during the run happens on a thread of its own: the poll loop
 * must go on draining the ring buffers while a batch is unwound (the first
 * symbolization of a file alone can take seconds under load or a sanitizer),
 * or they fill up and the kernel drops records, the side-band ones with the
 * samples, so that later samples resolve against the wrong files. One batch
 * is in flight at a time and batches are replayed in the order taken, so the
 * profile still sees every record in time order. */
typedef struct unwinder {
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pg_sampler_batch *todo;     /* handed to the thread */
    pg_sampler_batch *done;     /* replayed, for the poll loop to release */
    int stop;
    int rc;                     /* the first error of a replay, its message in err */
    char err[512];
    uint64_t batches;
} unwinder;

typedef struct run_ctx {
    pg_sampler *s;
    pg_profile *p;
    size_t flush_bytes;
    int rc;
    unwinder u;
} run_ctx;

static void *unwind_main(void *arg)
{
    run_ctx *c = arg;
    unwinder *u = &c->u;
    pthread_mutex_lock(&u->mu);
    for (;;) {
        while (!u->todo && !u->stop)
            pthread_cond_wait(&u->cv, &u->mu);
        if (!u->todo)
            break;
        pg_sampler_batch *b = u->todo;
        int failed = u->rc;
        pthread_mutex_unlock(&u->mu);
        int rc = failed ? 0 : pg_sampler_batch_replay(b, pg_profile_add, c->p);
        pthread_mutex_lock(&u->mu);
        if (rc < 0 && !u->rc) {
            u->rc = rc;     /* error messages are per thread: carried over at the join */
            snprintf(u->err, sizeof u->err, "%s", pg_error_last());
        }
        u->todo = NULL;
        u->done = b;
    }
    pthread_mutex_unlock(&u->mu);
    return NULL;
}

/* Hands `b` to the unwinding thread, started on first use with every signal
 * blocked (Ctrl-C is the poll loop's). Returns 1 when handed, 0 when the
 * thread cannot be started (the caller unwinds here instead). */
static int hand_over(run_ctx *c, pg_sampler_batch *b)
{
    unwinder *u = &c->u;
    if (!u->started) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        u->started = pthread_create(&u->thread, NULL, unwind_main, c) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (!u->started)
            return 0;
    }
    pthread_mutex_lock(&u->mu);
    u->todo = b;
    u->batches++;
    pthread_cond_signal(&u->cv);
    pthread_mutex_unlock(&u->mu);
    return 1;
}

/* Waits for the batch in flight, ends the thread and releases what it did;
 * the thread's error, if any, becomes this thread's. */
static int unwinder_stop(run_ctx *c)
{
    unwinder *u = &c->u;
    if (!u->started)
        return 0;
    pthread_mutex_lock(&u->mu);
    u->stop = 1;
    pthread_cond_signal(&u->cv);
    pthread_mutex_unlock(&u->mu);
    pthread_join(u->thread, NULL);
    u->started = 0;
    pg_sampler_release(c->s, u->done);
    u->done = NULL;
    return u->rc < 0 ? pg_error_set(u->rc, "%s", u->err) : 0;
}

static int attach(void *ctx, pid_t pid) { return pg_sampler_attach(((run_ctx *)ctx)->s, pid); }
static size_t pollfds(void *ctx, int *fds, size_t max) { return pg_sampler_pollfds(((run_ctx *)ctx)->s, fds, max); }

/* Normally only copies records out. Past flush_bytes, the records old enough
 * go to the unwinding thread, so a long run's memory stays bounded. */
static int readable(void *ctx)
{
    run_ctx *c = ctx;
    unwinder *u = &c->u;
    int rc = pg_sampler_drain_round(c->s);
    if (rc < 0 && c->rc == 0)
        c->rc = rc;     /* spawn does not stop for a hook's error: keep it for the caller */
    int busy = 0;
    if (u->started) {
        pthread_mutex_lock(&u->mu);
        pg_sampler_release(c->s, u->done);
        u->done = NULL;
        busy = u->todo != NULL;
        if (u->rc < 0 && c->rc == 0)
            c->rc = u->rc;
        pthread_mutex_unlock(&u->mu);
    }
    if (busy || c->rc != 0 || pg_sampler_pending(c->s) <= c->flush_bytes)
        return rc;
    pg_sampler_batch *b;
    int r = pg_sampler_take(c->s, &b);
    if (r == 0 && b && hand_over(c, b))
        return rc;
    if (r == 0 && b)
        r = pg_sampler_batch_replay(b, pg_profile_add, c->p);
    pg_sampler_release(c->s, b);
    if (r < 0)
        c->rc = r;
    return rc;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int pg_sample_run(pg_folded *out, pg_sample_result *sr, pg_spawn_result *res,
                  const pg_spawn_opts *so, const pg_sampler_opts *sopt)
{
    memset(sr, 0, sizeof *sr);
    memset(res, 0, sizeof *res);
    run_ctx c = {.flush_bytes = sopt->flush_bytes ? sopt->flush_bytes : (size_t)64 << 20};
    pg_sampler_opts sampler_opts = *sopt;
    sampler_opts.pinned_cpu = so->cpu;
    int rc = pg_sampler_new(&c.s, &sampler_opts);
    if (rc == 0 && (rc = pg_profile_new(&c.p, out, c.s)) < 0)
        pg_sampler_free(c.s);
    if (rc < 0)
        return rc;
    pthread_mutex_init(&c.u.mu, NULL);
    pthread_cond_init(&c.u.cv, NULL);
    pg_spawn_hooks hooks = {.ctx = &c, .attach = attach, .pollfds = pollfds, .readable = readable};
    pg_spawn_opts o = *so;
    o.hooks = &hooks;
    rc = pg_spawn_run(res, &o);
    snprintf(sr->event, sizeof sr->event, "%s", pg_sampler_event(c.s));
    snprintf(sr->notice, sizeof sr->notice, "%s", pg_sampler_notice(c.s));
    double t0 = now_ns();
    /* The profile's stacks built so far, all of them by the unwinding thread. */
    pg_profile_stats during;
    int urc = unwinder_stop(&c);
    pg_profile_stats_get(c.p, &during);
    sr->early = during.samples;
    if (rc == 0) {
        rc = c.rc < 0 ? c.rc : urc;
        if (rc == 0)
            rc = pg_sampler_finish(c.s);
        if (rc == 0)
            rc = pg_sampler_flush(c.s, pg_profile_add, c.p);
        sr->unwind_ns = now_ns() - t0;
    }
    pthread_cond_destroy(&c.u.cv);
    pthread_mutex_destroy(&c.u.mu);
    pg_sampler_stats_get(c.s, &sr->sampler);
    pg_profile_stats_get(c.p, &sr->profile);
    pg_profile_free(c.p);
    pg_sampler_free(c.s);
    return rc;
}
