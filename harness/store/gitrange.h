/* harness/store/gitrange.h — "A..B" on the command line: the first-parent
 * line that history, backfill and their kin walk. */
#ifndef PG_HARNESS_GITRANGE_H
#define PG_HARNESS_GITRANGE_H

#include "harness/store/gitrepo.h"

/* The commits of `range`, an "A..B" (either side empty: HEAD), oldest
 * first: the first-parent chain after A up to B, into a malloc'd array of
 * *n commit ids (free() it). PG_EINVAL for "A..B..C" and when A is not a
 * first-parent ancestor of B, naming the range; PG_ENOTFOUND when a side
 * does not resolve. `range` must hold "..": a lone revision is the caller's. */
int pg_repo_range(char (**out)[PG_OID_HEXSZ + 1], unsigned long *n, pg_repo *r, const char *range);

#endif
