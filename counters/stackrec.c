/* counters/stackrec.c — see stackrec.h: the dispatcher to the chosen
 * backend's recording hooks (backend_ops.h). */
#include "counters/stackrec.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

int pg_stackrec_new(pg_stackrec **out, const pg_stackrec_opts *o)
{
    const pg_backend_ops *ops = pg_backend_ops_of(o->backend);
    if (!ops)
        return pg_error_set(PG_EINVAL, "no backend chosen");
    pg_stackrec *r = calloc(1, ops->rec_size > sizeof *r ? ops->rec_size : sizeof *r);
    if (!r)
        return pg_error_set(PG_ENOMEM, "out of memory");
    r->o = *o;
    r->ops = ops;
    int rc = ops->rec_open(r);
    if (rc < 0) {
        pg_stackrec_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

static void end_run(pg_stackrec *r)
{
    r->ops->rec_reset(r);
    r->out = NULL;
}

void pg_stackrec_free(pg_stackrec *r)
{
    if (!r)
        return;
    end_run(r);
    r->ops->rec_close(r);
    free(r);
}

const char *pg_stackrec_weight(const pg_stackrec *r) { return r->ops->props.stacks_unit; }
const char *pg_stackrec_note(const pg_stackrec *r) { return r->ops->stacks_note; }

int pg_stackrec_begin(pg_stackrec *r, char ***argv_out, char *const *argv, int cpu, pg_folded *out)
{
    end_run(r);
    r->out = out;
    return r->ops->rec_begin(r, argv_out, argv, cpu);
}

/* A recorder that reads its stacks after the run (valgrind's tools) has
 * nothing to attach and nothing to drain: those entries are NULL. */
int pg_stackrec_attach(pg_stackrec *r, pid_t pid) { return r->ops->rec_attach ? r->ops->rec_attach(r, pid) : 0; }
size_t pg_stackrec_pollfds(pg_stackrec *r, int *fds, size_t max)
{
    return r->ops->rec_pollfds ? r->ops->rec_pollfds(r, fds, max) : 0;
}
int pg_stackrec_readable(pg_stackrec *r) { return r->ops->rec_readable ? r->ops->rec_readable(r) : 0; }

int pg_stackrec_end(pg_stackrec *r, int ran, pg_stackrec_stats *stats)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    int rc = r->ops->rec_end(r, ran, stats);
    end_run(r);
    return rc;
}

void pg_stackrec_timed(pg_stackrec *r, int on) { r->timed = on; }

int pg_stackrec_collect_timed(pg_stackrec *r, pg_folded *out, double *iterations, const char *report, size_t len)
{
    *iterations = 0;
    return r->ops->rec_collect_timed(r, out, iterations, report, len);
}
