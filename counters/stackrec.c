/* counters/stackrec.c — see stackrec.h. */
#include "counters/stackrec.h"
#include "counters/callgrind.h"
#include "counters/gbench.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/owned_dir.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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
} unwinder;

struct pg_stackrec {
    pg_stackrec_opts o;
    /* valgrind */
    pg_valgrind *vg;
    pg_owned_dir tmp;           /* callgrind's output directory: a killed perfgate's is swept by the next */
    char **argv;                /* the callgrind command of the current run */
    int timed;                  /* a Google Benchmark: only its timed region (pg_stackrec_timed) */
    /* perf, per run */
    pg_sampler *s;
    pg_profile *p;
    int rc;                     /* the first error while the child ran */
    int rc_unwinder;            /* rc came from the unwinding thread (message in u.err) */
    pg_folded *out;
    unwinder u;
};

int pg_stackrec_new(pg_stackrec **out, const pg_stackrec_opts *o)
{
    pg_stackrec *r = calloc(1, sizeof *r);
    if (!r)
        return pg_error_set(PG_ENOMEM, "out of memory");
    r->o = *o;
    pthread_mutex_init(&r->u.mu, NULL);
    pthread_cond_init(&r->u.cv, NULL);
    if (!r->o.sampler.flush_bytes)
        r->o.sampler.flush_bytes = (size_t)64 << 20;
    pg_owned_init(&r->tmp);
    int rc = 0;
    if (o->backend == PG_BACKEND_VALGRIND && (rc = pg_valgrind_new(&r->vg)) == 0)
        rc = pg_owned_mkdtemp(&r->tmp, "perfgate-cg-");
    if (rc < 0) {
        pg_stackrec_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

static void *unwind_main(void *arg)
{
    pg_stackrec *r = arg;
    unwinder *u = &r->u;
    pthread_mutex_lock(&u->mu);
    for (;;) {
        while (!u->todo && !u->stop)
            pthread_cond_wait(&u->cv, &u->mu);
        if (!u->todo)
            break;
        pg_sampler_batch *b = u->todo;
        int failed = u->rc;
        pthread_mutex_unlock(&u->mu);
        int rc = failed ? 0 : pg_sampler_batch_replay(b, pg_profile_add, r->p);
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
 * blocked (Ctrl-C is the poll loop's). 1 when handed, 0 when the thread
 * cannot be started (the caller unwinds here instead). */
static int hand_over(pg_stackrec *r, pg_sampler_batch *b)
{
    unwinder *u = &r->u;
    if (!u->started) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        u->started = pthread_create(&u->thread, NULL, unwind_main, r) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (!u->started)
            return 0;
    }
    pthread_mutex_lock(&u->mu);
    u->todo = b;
    pthread_cond_signal(&u->cv);
    pthread_mutex_unlock(&u->mu);
    return 1;
}

/* Waits for the batch in flight, ends the thread and releases what it did;
 * the thread's error, if any, becomes this thread's. */
static int unwinder_stop(pg_stackrec *r)
{
    unwinder *u = &r->u;
    if (!u->started)
        return 0;
    pthread_mutex_lock(&u->mu);
    u->stop = 1;
    pthread_cond_signal(&u->cv);
    pthread_mutex_unlock(&u->mu);
    pthread_join(u->thread, NULL);
    u->started = u->stop = 0;
    pg_sampler_release(r->s, u->done);
    u->done = NULL;
    /* The message stays in u->err: pg_stackrec_end sets it only when this is
     * the error it returns, so a spawn's or a drain's own message survives. */
    int rc = u->rc;
    u->rc = 0;
    return rc;
}

static void end_run(pg_stackrec *r)
{
    unwinder_stop(r);
    pg_valgrind_argv_free(r->argv);
    r->argv = NULL;
    pg_profile_free(r->p);
    pg_sampler_free(r->s);
    r->p = NULL;
    r->s = NULL;
    r->out = NULL;
}

void pg_stackrec_free(pg_stackrec *r)
{
    if (!r)
        return;
    end_run(r);
    pthread_cond_destroy(&r->u.cv);
    pthread_mutex_destroy(&r->u.mu);
    pg_owned_release(&r->tmp, 1);
    pg_valgrind_free(r->vg);
    free(r);
}

const char *pg_stackrec_weight(const pg_stackrec *r)
{
    return r->o.backend == PG_BACKEND_VALGRIND ? "instructions" : "samples";
}

const char *pg_stackrec_note(const pg_stackrec *r)
{
    return r->o.backend == PG_BACKEND_VALGRIND ? PG_CALLGRIND_NOTE : "";
}

int pg_stackrec_begin(pg_stackrec *r, char ***argv_out, char *const *argv, int cpu, pg_folded *out)
{
    end_run(r);
    r->rc = r->rc_unwinder = 0;
    r->out = out;
    if (r->o.backend == PG_BACKEND_VALGRIND) {
        int rc = r->timed ? pg_gbench_wrap_stacks(r->vg, &r->argv, argv, r->tmp.path)
                          : pg_callgrind_wrap(r->vg, &r->argv, argv, r->tmp.path);
        *argv_out = r->argv;
        return rc;
    }
    pg_sampler_opts so = r->o.sampler;
    so.pinned_cpu = cpu;
    int rc = pg_sampler_new(&r->s, &so);
    if (rc == 0)
        rc = pg_profile_new(&r->p, out, r->s);
    if (rc < 0) {
        end_run(r);
        return rc;
    }
    *argv_out = (char **)argv;
    return 0;
}

int pg_stackrec_attach(pg_stackrec *r, pid_t pid) { return r->s ? pg_sampler_attach(r->s, pid) : 0; }

size_t pg_stackrec_pollfds(pg_stackrec *r, int *fds, size_t max) { return r->s ? pg_sampler_pollfds(r->s, fds, max) : 0; }

/* Normally only copies records out. Past flush_bytes, the records old enough
 * go to the unwinding thread, so a long run's memory stays bounded. */
int pg_stackrec_readable(pg_stackrec *r)
{
    if (!r->s)
        return 0;
    unwinder *u = &r->u;
    int rc = pg_sampler_drain_round(r->s);
    if (rc < 0 && r->rc == 0)
        r->rc = rc;     /* spawn does not stop for a hook's error: keep it for pg_stackrec_end */
    int busy = 0;
    if (u->started) {
        pthread_mutex_lock(&u->mu);
        pg_sampler_release(r->s, u->done);
        u->done = NULL;
        busy = u->todo != NULL;
        if (u->rc < 0 && r->rc == 0)
            r->rc = r->rc_unwinder = u->rc;     /* its message is in u->err */
        pthread_mutex_unlock(&u->mu);
    }
    if (busy || r->rc != 0 || pg_sampler_pending(r->s) <= r->o.sampler.flush_bytes)
        return rc;
    pg_sampler_batch *b;
    int t = pg_sampler_take(r->s, &b);
    if (t == 0 && b && hand_over(r, b))
        return rc;
    if (t == 0 && b)
        t = pg_sampler_batch_replay(b, pg_profile_add, r->p);
    pg_sampler_release(r->s, b);
    if (t < 0)
        r->rc = t;
    return rc;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int pg_stackrec_end(pg_stackrec *r, int ran, pg_stackrec_stats *stats)
{
    int rc = 0;
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (r->o.backend == PG_BACKEND_VALGRIND) {
        pg_folded *scratch = NULL;
        /* Whatever callgrind left is read out of the directory (and removed), so
         * the next run's stacks are that run's alone; a run that did not happen
         * has none to keep. */
        if (ran && r->timed) {
            rc = 0;         /* which dumps count is in the run's report: pg_stackrec_collect_timed */
        } else if (ran) {
            rc = pg_callgrind_collect(r->out, r->tmp.path);
        } else if (pg_folded_new(&scratch) == 0) {
            pg_callgrind_collect(scratch, r->tmp.path);
            pg_error_clear();
        }
        pg_folded_free(scratch);
    } else if (r->s) {
        double t0 = now_ns();
        int urc = unwinder_stop(r);
        if (stats) {    /* the stacks built before the run ended (by the unwinding thread, or inline) */
            pg_profile_stats during;
            pg_profile_stats_get(r->p, &during);
            stats->early = during.samples;
        }
        if (ran) {
            rc = r->rc < 0 ? r->rc : urc;
            if (rc < 0 && (r->rc == 0 || r->rc_unwinder))
                pg_error_set(rc, "%s", r->u.err);
            if (rc == 0)
                rc = pg_sampler_finish(r->s);
            if (rc == 0)
                rc = pg_sampler_flush(r->s, pg_profile_add, r->p);
            if (stats)
                stats->unwind_ns = now_ns() - t0;
        }
        if (stats) {
            snprintf(stats->event, sizeof stats->event, "%s", pg_sampler_event(r->s));
            snprintf(stats->notice, sizeof stats->notice, "%s", pg_sampler_notice(r->s));
            pg_sampler_stats_get(r->s, &stats->sampler);
            pg_profile_stats_get(r->p, &stats->profile);
        }
    }
    end_run(r);
    return rc;
}

void pg_stackrec_timed(pg_stackrec *r, int on) { r->timed = on; }

int pg_stackrec_collect_timed(pg_stackrec *r, pg_folded *out, double *iterations, const char *report, size_t len)
{
    *iterations = 0;
    if (r->o.backend != PG_BACKEND_VALGRIND || !r->timed)
        return 0;
    return pg_gbench_collect_stacks(out, iterations, r->tmp.path, report, len);
}
