/* harness/measure/jobresult.c — see jobresult.h. */
#include "harness/measure/jobresult.h"
#include "util/error.h"

#include <stdio.h>
#include <string.h>

int pg_jobresult_read(pg_rundoc *out, const char *text, size_t len, size_t item, const char *name,
                      const char *backend)
{
    char what[64];
    snprintf(what, sizeof what, "--jobs: the result of item %zu", item);
    pg_rundoc_list l = {0};
    int rc = pg_rundoc_parse(&l, text, len, what);
    const pg_rundoc *r = rc == 0 && l.n == 1 ? &l.v[0] : NULL;
    if (rc < 0)
        ;
    else if (!r || r->nbench != 1)
        rc = pg_error_set(PG_EIO, "%s is not one run of one benchmark (refused)", what);
    else if (!r->bench[0].name || strcmp(r->bench[0].name, name))
        rc = pg_error_set(PG_EIO, "%s names another benchmark than the one handed out, \"%s\" (refused)", what, name);
    else if (!r->backend || strcmp(r->backend, backend))
        rc = pg_error_set(PG_EIO, "%s was not measured by the %s backend (refused)", what, backend);
    if (rc == 0) {
        *out = l.v[0];
        memset(&l.v[0], 0, sizeof l.v[0]);
    }
    pg_rundoc_list_free(&l);
    return rc;
}
