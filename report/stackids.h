/* report/stackids.h — folded stacks as arrays of function ids.
 *
 * The views of one profile that speak of functions rather than of stacks
 * (perfgate top, pprof and speedscope files) all split each stack at ';',
 * as the flamegraph does, and number the distinct frame names. This does it
 * once: function ids from 0 in the order of first appearance in the stacks
 * (sorted as pg_folded_entries sorts them, so the numbering is stable), and
 * each stack an array of ids, root first.
 */
#ifndef PG_REPORT_STACKIDS_H
#define PG_REPORT_STACKIDS_H

#include "util/folded.h"
#include "util/strindex.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pg_stackids {
    uint32_t *ids;           /* stack i: ids[off[i]..off[i+1]), root first */
    size_t *off;             /* n + 1 of them */
    uint64_t *count;         /* stack i's count */
    size_t n;
    char **names;            /* by id: the frame's exact bytes */
    size_t nnames;
    pg_strindex index;       /* name -> id */
    size_t nids, capids, cap, capoff, capnames;
} pg_stackids;

/* Every stack of `f` with a count above 0. `f` is only read (its sorted cache
 * is filled). PG_EINVAL past 2^32 distinct names, PG_ENOMEM; *out is then
 * freed. */
int pg_stackids_build(pg_stackids *out, pg_folded *f);
void pg_stackids_free(pg_stackids *s);

/* Keeps the stacks for which keep(ctx, ids, len) is true, in order. */
void pg_stackids_filter(pg_stackids *s, int (*keep)(void *ctx, const uint32_t *ids, size_t len), void *ctx);

#endif
