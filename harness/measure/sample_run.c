/* harness/measure/sample_run.c — a spawn with a stack recorder attached. See sample_run.h. */
#include "harness/measure/sample_run.h"
#include "util/error.h"

#include <string.h>

static int attach(void *ctx, pid_t pid) { return pg_stackrec_attach(ctx, pid); }
static size_t pollfds(void *ctx, int *fds, size_t max) { return pg_stackrec_pollfds(ctx, fds, max); }
static int readable(void *ctx) { return pg_stackrec_readable(ctx); }

int pg_stackrec_run(pg_stackrec *r, pg_folded *out, pg_sample_result *sr, pg_spawn_result *res,
                    const pg_spawn_opts *so)
{
    memset(sr, 0, sizeof *sr);
    memset(res, 0, sizeof *res);
    char **argv;
    int rc = pg_stackrec_begin(r, &argv, so->argv, so->cpu, out);
    if (rc < 0)
        return rc;
    pg_spawn_hooks hooks = {.ctx = r, .attach = attach, .pollfds = pollfds, .readable = readable};
    pg_spawn_opts o = *so;
    o.argv = argv;
    o.hooks = &hooks;
    rc = pg_spawn_run(res, &o);
    int erc = pg_stackrec_end(r, rc == 0, sr);
    if (rc == 0 && erc == 0 && res->started)
        erc = pg_stackrec_collect_timed(r, out, &sr->iterations, res->out_log ? res->out_log : "", res->out_len);
    return rc < 0 ? rc : erc;
}

int pg_sample_run(pg_folded *out, pg_sample_result *sr, pg_spawn_result *res,
                  const pg_spawn_opts *so, const pg_sampler_opts *sopt)
{
    memset(sr, 0, sizeof *sr);
    memset(res, 0, sizeof *res);
    pg_stackrec_opts ro = {.backend = pg_backend_native(), .sampler = *sopt};
    pg_stackrec *r;
    int rc = pg_stackrec_new(&r, &ro);
    if (rc < 0)
        return rc;
    rc = pg_stackrec_run(r, out, sr, res, so);
    pg_stackrec_free(r);
    return rc;
}
