/* harness/store/gitrange.c — "A..B" as a first-parent line (gitrange.h). */
#include "harness/store/gitrange.h"

#include <stdio.h>
#include <string.h>

#include "util/error.h"

int pg_repo_range(char (**out)[PG_OID_HEXSZ + 1], unsigned long *n, pg_repo *r, const char *range)
{
    *out = NULL;
    *n = 0;
    const char *dots = strstr(range, "..");
    if (!dots || strstr(dots + 2, ".."))
        return pg_error_set(PG_EINVAL, "'%s': a range is A..B", range);
    char a[PG_OID_HEXSZ + 1], b[PG_OID_HEXSZ + 1], from[256];
    snprintf(from, sizeof from, "%.*s", (int)(dots - range), range);
    int rc;
    if ((rc = pg_repo_resolve(a, r, *from ? from : "HEAD")) < 0 ||
        (rc = pg_repo_resolve(b, r, dots[2] ? dots + 2 : "HEAD")) < 0)
        return rc;
    if ((rc = pg_repo_first_parents(out, n, r, a, b)) < 0)
        return pg_error_wrap(rc, "%s: the first commit must be a first-parent ancestor of the second", range);
    return 0;
}
