/* counters/stackrec.c — see stackrec.h. */
#include "counters/stackrec.h"
#include "counters/callgrind.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/owned_dir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct pg_stackrec {
    pg_stackrec_opts o;
    /* valgrind */
    pg_valgrind *vg;
    pg_owned_dir tmp;           /* callgrind's output directory: a killed perfgate's is swept by the next */
    char **argv;                /* the callgrind command of the current run */
    /* perf, per run */
    pg_sampler *s;
    pg_profile *p;
    int rc;                     /* the first error while the child ran */
    pg_folded *out;
};

int pg_stackrec_new(pg_stackrec **out, const pg_stackrec_opts *o)
{
    pg_stackrec *r = calloc(1, sizeof *r);
    if (!r)
        return pg_error_set(PG_ENOMEM, "out of memory");
    r->o = *o;
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

static void end_run(pg_stackrec *r)
{
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
    r->rc = 0;
    r->out = out;
    if (r->o.backend == PG_BACKEND_VALGRIND) {
        int rc = pg_callgrind_wrap(r->vg, &r->argv, argv, r->tmp.path);
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
 * are unwound now, so a long run's memory stays bounded. */
int pg_stackrec_readable(pg_stackrec *r)
{
    if (!r->s)
        return 0;
    int rc = pg_sampler_drain_round(r->s);
    if (rc < 0 && r->rc == 0)
        r->rc = rc;     /* spawn does not stop for a hook's error: keep it for pg_stackrec_end */
    if (r->rc == 0 && pg_sampler_pending(r->s) > r->o.sampler.flush_bytes)
        r->rc = pg_sampler_flush(r->s, pg_profile_add, r->p);
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
        if (ran) {
            rc = pg_callgrind_collect(r->out, r->tmp.path);
        } else if (pg_folded_new(&scratch) == 0) {
            pg_callgrind_collect(scratch, r->tmp.path);
            pg_error_clear();
        }
        pg_folded_free(scratch);
    } else if (r->s) {
        if (ran) {
            double t0 = now_ns();
            rc = r->rc;
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
