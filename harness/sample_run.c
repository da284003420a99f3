/* harness/sample_run.c — a spawn with a sampler attached. See sample_run.h. */
#include "harness/sample_run.h"
#include "util/error.h"

#include <string.h>
#include <time.h>

typedef struct run_ctx {
    pg_sampler *s;
    pg_profile *p;
    size_t flush_bytes;
    int rc;
} run_ctx;

static int attach(void *ctx, pid_t pid) { return pg_sampler_attach(((run_ctx *)ctx)->s, pid); }
static size_t pollfds(void *ctx, int *fds, size_t max) { return pg_sampler_pollfds(((run_ctx *)ctx)->s, fds, max); }

/* Normally only copies records out. Past flush_bytes, the records old enough
 * are unwound now, so a long run's memory stays bounded. */
static int readable(void *ctx)
{
    run_ctx *c = ctx;
    int rc = pg_sampler_drain_round(c->s);
    if (rc < 0 && c->rc == 0)
        c->rc = rc;     /* spawn does not stop for a hook's error: keep it for the caller */
    if (c->rc == 0 && pg_sampler_pending(c->s) > c->flush_bytes)
        c->rc = pg_sampler_flush(c->s, pg_profile_add, c->p);
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
    pg_spawn_hooks hooks = {.ctx = &c, .attach = attach, .pollfds = pollfds, .readable = readable};
    pg_spawn_opts o = *so;
    o.hooks = &hooks;
    rc = pg_spawn_run(res, &o);
    snprintf(sr->event, sizeof sr->event, "%s", pg_sampler_event(c.s));
    snprintf(sr->notice, sizeof sr->notice, "%s", pg_sampler_notice(c.s));
    if (rc == 0) {
        double t0 = now_ns();
        rc = c.rc;
        if (rc == 0)
            rc = pg_sampler_finish(c.s);
        if (rc == 0)
            rc = pg_sampler_flush(c.s, pg_profile_add, c.p);
        sr->unwind_ns = now_ns() - t0;
    }
    pg_sampler_stats_get(c.s, &sr->sampler);
    pg_profile_stats_get(c.p, &sr->profile);
    pg_profile_free(c.p);
    pg_sampler_free(c.s);
    return rc;
}
