/* harness/sample_run.c — a spawn with a sampler attached. See sample_run.h. */
#include "harness/sample_run.h"
#include "util/error.h"

#include <string.h>
#include <time.h>

static int attach(void *ctx, pid_t pid) { return pg_sampler_attach(ctx, pid); }
static size_t pollfds(void *ctx, int *fds, size_t max) { return pg_sampler_pollfds(ctx, fds, max); }
static int readable(void *ctx) { return pg_sampler_drain(ctx); }

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
    pg_sampler *s;
    int rc = pg_sampler_new(&s, sopt);
    if (rc < 0)
        return rc;
    pg_spawn_hooks hooks = {.ctx = s, .attach = attach, .pollfds = pollfds, .readable = readable};
    pg_spawn_opts o = *so;
    o.hooks = &hooks;
    rc = pg_spawn_run(res, &o);
    snprintf(sr->event, sizeof sr->event, "%s", pg_sampler_event(s));
    snprintf(sr->notice, sizeof sr->notice, "%s", pg_sampler_notice(s));
    if (rc < 0) {
        pg_sampler_free(s);
        return rc;
    }
    double t0 = now_ns();
    rc = pg_sampler_finish(s);
    pg_sampler_stats_get(s, &sr->sampler);
    if (rc == 0)
        rc = pg_profile_build(out, &sr->profile, s);
    sr->unwind_ns = now_ns() - t0;
    pg_sampler_free(s);
    return rc;
}
