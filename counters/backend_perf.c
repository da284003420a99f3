/* counters/backend_perf.c — the perf backend's table (backend_ops.h):
 * perf_event counters opened on the held child (evlist.h), regions switched
 * through the child's channel (control.h), call counts through uprobes, a
 * Google Benchmark's readings from its own report, and stacks by sampling
 * (sampler.h) with DWARF unwinding (profile.h). */
#include "counters/backend_ops.h"
#include "counters/elfsym.h"
#include "counters/evlist.h"
#include "counters/gbench.h"
#include "util/error.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

/* The perf backend's meter: the shared part first (backend_ops.h). */
typedef struct perf_meter {
    pg_meter parent;
    pg_evlist *evlist;
    char unav[8][640];          /* pg_meter_unavailable's lines */
    size_t nunav;
} perf_meter;

/* The thread that unwinds a recording's samples while it runs. */
typedef struct perf_unwinder {
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pg_sampler_batch *todo;     /* handed to the thread */
    pg_sampler_batch *done;     /* replayed, for the poll loop to release */
    int stop;
    int rc;                     /* the first error of a replay, its message in err */
    char err[512];
} perf_unwinder;

/* The perf backend's recorder, per run. */
typedef struct perf_rec {
    pg_stackrec parent;
    pg_sampler *s;
    pg_profile *p;
    int rc;                     /* the first error while the child ran */
    int rc_unwinder;            /* rc came from the unwinding thread (message in u.err) */
    perf_unwinder u;
} perf_rec;

static perf_meter *pm(pg_meter *m) { return (perf_meter *)m; }
static perf_rec *pr(pg_stackrec *r) { return (perf_rec *)r; }

static int meter_open(pg_meter *m, const pg_meter_opts *o)
{
    int rc = pg_evlist_new(&pm(m)->evlist, o->events, o->user_only);
    if (rc < 0)
        return rc;
    struct utsname u;
    uname(&u);
    snprintf(m->version, sizeof m->version, "perf_event (linux %s)", u.release);
    return 0;
}

static void meter_close(pg_meter *m)
{
    if (pm(m)->evlist)
        pg_evlist_free(pm(m)->evlist);
}

/* Regions switch the counters; each called function gets a uprobe. */
static int target(pg_meter *m, const pg_meter_target *t)
{
    pg_evlist_set_regions(pm(m)->evlist, m->regions);
    pg_evlist_set_probes(pm(m)->evlist, NULL, 0);
    if (m->ncalls == 0)
        return 0;
    pg_evlist_probe *p = calloc(m->ncalls, sizeof *p);
    char (*files)[PATH_MAX] = calloc(m->ncalls, PATH_MAX);
    int rc = p && files ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < m->ncalls && rc == 0; i++) {
        p[i].name = m->calls[i];
        p[i].file = files[i];
        rc = pg_elfsym_resolve(files[i], &p[i].offset, t->exe, m->calls[i], t->ld_library_path);
    }
    if (rc == 0)
        rc = pg_evlist_set_probes(pm(m)->evlist, p, m->ncalls);
    free(p);
    free(files);
    return rc;
}

/* The program runs as it is; a marked one gets its channel for the run. */
static int wrap(pg_meter *m, char ***out, char *const *argv, int gbench)
{
    (void)gbench;
    *out = (char **)argv;
    m->ctl_failed = 0;
    return m->regions ? pg_control_open(&m->ctl) : 0;
}

static int attach(pg_meter *m, pid_t pid)
{
    pg_control_parent_side(&m->ctl);
    return pg_evlist_open(pm(m)->evlist, pid);
}

static int enable(pg_meter *m, int on) { return pg_evlist_enable(pm(m)->evlist, on); }

/* Events that could not be counted, from the open and from the read (a
 * counter never scheduled): those that failed for one reason are said in one
 * line, "instructions, cycles: no PMU ...", not four times the same words. */
static void group_unavailable(pg_meter *m)
{
    pm(m)->nunav = 0;
    char whys[8][512];
    size_t n = pg_evlist_unavailable_count(pm(m)->evlist);
    for (size_t i = 0; i < n; i++) {
        const char *why = NULL;
        const char *name = pg_evlist_unavailable(pm(m)->evlist, i, &why);
        why = why ? why : "cannot be counted";
        size_t k = 0;
        while (k < pm(m)->nunav && strcmp(whys[k], why))
            k++;
        if (k == pm(m)->nunav) {
            if (pm(m)->nunav == 8)
                continue;
            snprintf(whys[k], sizeof whys[k], "%s", why);
            snprintf(pm(m)->unav[k], sizeof pm(m)->unav[k], "%s", name);
            pm(m)->nunav++;
        } else {
            size_t used = strlen(pm(m)->unav[k]);
            snprintf(pm(m)->unav[k] + used, sizeof pm(m)->unav[k] - used, ", %s", name);
        }
    }
    for (size_t k = 0; k < pm(m)->nunav; k++) {
        size_t used = strlen(pm(m)->unav[k]);
        snprintf(pm(m)->unav[k] + used, sizeof pm(m)->unav[k] - used, ": %s", whys[k]);
    }
}

static int collect(pg_meter *m, pg_readings *out)
{
    pg_control_close(&m->ctl);
    int rc = m->ctl_failed ? pg_error_set(PG_EIO, "%s", m->ctl_err) : pg_evlist_read(pm(m)->evlist, out);
    pg_evlist_close(pm(m)->evlist);
    group_unavailable(m);
    return rc;
}

/* The process's own counters are not the benchmark's: they count the
 * library's timing loop, whose iteration count is chosen by time. The
 * readings are the library's report. */
static int collect_gbench(pg_meter *m, pg_readings *out, const char *report, size_t len)
{
    pg_readings scratch = {0};
    pg_evlist_read(pm(m)->evlist, &scratch);
    pg_evlist_close(pm(m)->evlist);
    pg_readings_free(&scratch);
    pm(m)->nunav = 0;
    pg_gbench_report rep = {0};
    int rc = pg_gbench_parse_json(&rep, out, "perf", report, len);
    if (rc == 0 && rep.error)
        rc = pg_error_set(PG_EINVAL, "the benchmark reported an error: %s", rep.error);
    free(rep.error);
    return rc;
}

static const char *geometry(const pg_meter *m)
{
    (void)m;
    return "";
}

static const char *unavailable(const pg_meter *m, size_t i)
{
    const perf_meter *p = (const perf_meter *)m;
    return i < p->nunav ? p->unav[i] : NULL;
}

/* ---- stacks: perf_event sampling, unwound after the run or on the way ---- */

/* Unwinding during the run happens on a thread of its own: the poll loop
 * must go on draining the ring buffers while a batch is unwound (the first
 * symbolization of a file alone can take seconds under load or a sanitizer),
 * or they fill up and the kernel drops records, the side-band ones with the
 * samples, so that later samples resolve against the wrong files. One batch
 * is in flight at a time and batches are replayed in the order taken, so the
 * profile still sees every record in time order. */
static void *unwind_main(void *arg)
{
    pg_stackrec *r = arg;
    perf_unwinder *u = &pr(r)->u;
    pthread_mutex_lock(&u->mu);
    for (;;) {
        while (!u->todo && !u->stop)
            pthread_cond_wait(&u->cv, &u->mu);
        if (!u->todo)
            break;
        pg_sampler_batch *b = u->todo;
        int failed = u->rc;
        pthread_mutex_unlock(&u->mu);
        int rc = failed ? 0 : pg_sampler_batch_replay(b, pg_profile_add, pr(r)->p);
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
    perf_unwinder *u = &pr(r)->u;
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
    perf_unwinder *u = &pr(r)->u;
    if (!u->started)
        return 0;
    pthread_mutex_lock(&u->mu);
    u->stop = 1;
    pthread_cond_signal(&u->cv);
    pthread_mutex_unlock(&u->mu);
    pthread_join(u->thread, NULL);
    u->started = u->stop = 0;
    pg_sampler_release(pr(r)->s, u->done);
    u->done = NULL;
    /* The message stays in u->err: pg_stackrec_end sets it only when this is
     * the error it returns, so a spawn's or a drain's own message survives. */
    int rc = u->rc;
    u->rc = 0;
    return rc;
}

/* The run's sampler and profile, and the thread that unwound for them. */
static void rec_reset(pg_stackrec *r)
{
    unwinder_stop(r);
    pg_profile_free(pr(r)->p);
    pg_sampler_free(pr(r)->s);
    pr(r)->p = NULL;
    pr(r)->s = NULL;
}

static int rec_attach(pg_stackrec *r, pid_t pid) { return pr(r)->s ? pg_sampler_attach(pr(r)->s, pid) : 0; }

static size_t rec_pollfds(pg_stackrec *r, int *fds, size_t max)
{
    return pr(r)->s ? pg_sampler_pollfds(pr(r)->s, fds, max) : 0;
}

/* Normally only copies records out. Past flush_bytes, the records old enough
 * go to the unwinding thread, so a long run's memory stays bounded. */
static int rec_readable(pg_stackrec *r)
{
    if (!pr(r)->s)
        return 0;
    perf_unwinder *u = &pr(r)->u;
    int rc = pg_sampler_drain_round(pr(r)->s);
    if (rc < 0 && pr(r)->rc == 0)
        pr(r)->rc = rc;     /* spawn does not stop for a hook's error: keep it for pg_stackrec_end */
    int busy = 0;
    if (u->started) {
        pthread_mutex_lock(&u->mu);
        pg_sampler_release(pr(r)->s, u->done);
        u->done = NULL;
        busy = u->todo != NULL;
        if (u->rc < 0 && pr(r)->rc == 0)
            pr(r)->rc = pr(r)->rc_unwinder = u->rc;     /* its message is in u->err */
        pthread_mutex_unlock(&u->mu);
    }
    if (busy || pr(r)->rc != 0 || pg_sampler_pending(pr(r)->s) <= r->o.sampler.flush_bytes)
        return rc;
    pg_sampler_batch *b;
    int t = pg_sampler_take(pr(r)->s, &b);
    if (t == 0 && b && hand_over(r, b))
        return rc;
    if (t == 0 && b)
        t = pg_sampler_batch_replay(b, pg_profile_add, pr(r)->p);
    pg_sampler_release(pr(r)->s, b);
    if (t < 0)
        pr(r)->rc = t;
    return rc;
}

static int rec_open(pg_stackrec *r)
{
    pthread_mutex_init(&pr(r)->u.mu, NULL);
    pthread_cond_init(&pr(r)->u.cv, NULL);
    if (!r->o.sampler.flush_bytes)
        r->o.sampler.flush_bytes = (size_t)64 << 20;
    return 0;
}

static void rec_close(pg_stackrec *r)
{
    pthread_cond_destroy(&pr(r)->u.cv);
    pthread_mutex_destroy(&pr(r)->u.mu);
}

static int rec_begin(pg_stackrec *r, char ***argv_out, char *const *argv, int cpu)
{
    pr(r)->rc = pr(r)->rc_unwinder = 0;
    pg_sampler_opts so = r->o.sampler;
    so.pinned_cpu = cpu;
    int rc = pg_sampler_new(&pr(r)->s, &so);
    if (rc == 0)
        rc = pg_profile_new(&pr(r)->p, r->out, pr(r)->s);
    if (rc < 0) {
        rec_reset(r);
        return rc;
    }
    *argv_out = (char **)argv;
    return 0;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The samples left after the run are unwound here, after the thread's. */
static int rec_end(pg_stackrec *r, int ran, pg_stackrec_stats *stats)
{
    if (!pr(r)->s)
        return 0;
    int rc = 0;
    double t0 = now_ns();
    int urc = unwinder_stop(r);
    if (stats) {    /* the stacks built before the run ended (by the unwinding thread, or inline) */
        pg_profile_stats during;
        pg_profile_stats_get(pr(r)->p, &during);
        stats->early = during.samples;
    }
    if (ran) {
        rc = pr(r)->rc < 0 ? pr(r)->rc : urc;
        if (rc < 0 && (pr(r)->rc == 0 || pr(r)->rc_unwinder))
            pg_error_set(rc, "%s", pr(r)->u.err);
        if (rc == 0)
            rc = pg_sampler_finish(pr(r)->s);
        if (rc == 0)
            rc = pg_sampler_flush(pr(r)->s, pg_profile_add, pr(r)->p);
        if (stats)
            stats->unwind_ns = now_ns() - t0;
    }
    if (stats) {
        snprintf(stats->event, sizeof stats->event, "%s", pg_sampler_event(pr(r)->s));
        snprintf(stats->notice, sizeof stats->notice, "%s", pg_sampler_notice(pr(r)->s));
        pg_sampler_stats_get(pr(r)->s, &stats->sampler);
        pg_profile_stats_get(pr(r)->p, &stats->profile);
    }
    return rc;
}

/* The whole process is sampled: no timed region's stacks (*iterations stays 0). */
static int rec_collect_timed(pg_stackrec *r, pg_folded *out, double *iterations, const char *report, size_t len)
{
    (void)r, (void)out, (void)iterations, (void)report, (void)len;
    return 0;
}

static void probe(pg_probe *p, pg_backend_fit *out)
{
    pg_probe_perf(p);
    if (p->hw_instructions) {
        out->fit = PG_FIT_FULL;
        out->why[0] = '\0';
    } else if (p->software) {
        out->fit = PG_FIT_PART;
        snprintf(out->why, sizeof out->why, "hardware counters unavailable (%s)", p->hw_why);
        snprintf(out->part, sizeof out->part, "counting software events only");
    } else {
        out->fit = PG_FIT_NONE;
        snprintf(out->why, sizeof out->why, "%s", p->sw_why);
    }
}

static void doctor(const pg_probe *p, pg_doctor_line *line, void *ctx)
{
    line(ctx, "--backend perf", p->hw_instructions || p->software,
         p->hw_instructions ? "hardware and software events"
         : p->software ? "software events only (no hardware counters)" : p->sw_why);
}

static void doctor_tools(const pg_probe *p, pg_doctor_line *line, void *ctx)
{
    (void)p, (void)line, (void)ctx;     /* perf_event itself: doctor's own sections */
}

static const char *choice_note(const pg_probe *p)
{
    return p->hw_instructions ? " (hardware counters)" : " (software events only)";
}

const pg_backend_ops pg_backend_perf_ops = {
    .props = {.name = "perf", .kind = PG_BACKEND_PERF, .takes_events = 1, .max_rss = 1, .native = 1, .stacks_unit = "samples",
              .repeat = 5, .warmup = 1, .gives = "hardware and software event counts"},
    .priority = 20,     /* a PMU's counts are the program's own, at native speed */
    .probe = probe,
    .meter_size = sizeof(perf_meter),
    .rec_size = sizeof(perf_rec),
    .meter_open = meter_open,
    .meter_close = meter_close,
    .target = target,
    .wrap = wrap,
    .attach = attach,
    .enable = enable,
    .collect = collect,
    .collect_gbench = collect_gbench,
    .geometry = geometry,
    .unavailable = unavailable,
    .rec_open = rec_open,
    .rec_close = rec_close,
    .rec_begin = rec_begin,
    .rec_attach = rec_attach,
    .rec_pollfds = rec_pollfds,
    .rec_readable = rec_readable,
    .rec_reset = rec_reset,
    .rec_end = rec_end,
    .rec_collect_timed = rec_collect_timed,
    .stacks_note = "",
    .doctor = doctor,
    .doctor_tools = doctor_tools,
    .choice_note = choice_note,
};
