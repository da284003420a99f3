/* report/top.h — the text view of one profile: functions by self and total
 * cost, as `pprof --text` and `perf report --no-children` give them.
 *
 * Built from folded stacks (util/folded.h). Each distinct frame name is one
 * function; the root frame (a thread's name, the comm) is a function like any
 * other. For a function F:
 *   self   the count of every stack whose leaf is F;
 *   total  the count of every stack that F is in, once per stack however
 *          often F recurs in it (as pprof counts cum), so no total exceeds
 *          the profile's.
 * These are the numbers the flamegraph of the same stacks shows: a frame's
 * width summed over every place F appears, nested places counted once (its
 * Search "Matched"), and the stacks that end in F.
 *
 * Filters act on whole stacks, as pprof's: --focus keeps the stacks with a
 * frame matching its POSIX extended regular expression (unanchored, as
 * regexec matches), --ignore drops those with one. Percentages stay shares of
 * the whole profile (pprof's default, and the flamegraph's), so a number does
 * not change meaning when a filter is added.
 */
#ifndef PG_REPORT_TOP_H
#define PG_REPORT_TOP_H

#include "util/folded.h"

#include <stddef.h>
#include <stdint.h>

typedef enum pg_top_sort {
    PG_TOP_SORT_SELF = 0,    /* self, then total, then name */
    PG_TOP_SORT_TOTAL,       /* total, then self, then name */
} pg_top_sort;

typedef struct pg_top_opts {
    const char *focus;       /* POSIX ERE; NULL: every stack */
    const char *ignore;      /* POSIX ERE; NULL: none dropped */
    pg_top_sort sort;
} pg_top_opts;

typedef struct pg_top_fn {
    const char *name;        /* owned by the pg_top */
    uint64_t self, total;
} pg_top_fn;

typedef struct pg_top {
    pg_top_fn *fn;           /* the functions of the kept stacks, in the order asked */
    size_t nfn;
    uint64_t total;          /* every sample of the profile: what percentages are of */
    uint64_t kept;           /* the samples of the stacks the filters kept */
    struct pg_top_stacks *st;/* the kept stacks as function ids, for pg_top_peek */
} pg_top;

/* Builds the table of `f` (only read; its sorted cache is filled). PG_EINVAL
 * when a regular expression does not compile ("--focus '(': ..."), when `f`
 * holds no samples, or when a count does not fit; PG_ENOMEM. Free with
 * pg_top_free. A profile whose stacks the filters all drop is no error: it
 * has no functions and kept == 0. */
int pg_top_build(pg_top **out, pg_folded *f, const pg_top_opts *o);
void pg_top_free(pg_top *t);

/* One caller or callee of the function looked at, and the samples of the
 * kept stacks in which that call happens (once per stack). */
typedef struct pg_top_edge {
    const char *name;        /* owned by the pg_top */
    uint64_t count;
} pg_top_edge;

/* The one-level tree around one function: who calls it and what it calls,
 * each sorted by count, then name. `root` counts the stacks where it is the
 * root frame (called by nobody). */
typedef struct pg_top_peek {
    const pg_top_fn *fn;
    pg_top_edge *callers, *callees;
    size_t ncallers, ncallees;
    uint64_t root;
} pg_top_peek;

/* The tree around the function named exactly `name`. PG_ENOTFOUND when no
 * kept stack holds it: the message names it, says when the filters dropped
 * it, and suggests a close name. Free with pg_top_peek_free. */
int pg_top_peek_of(pg_top_peek *out, const pg_top *t, const char *name);
void pg_top_peek_free(pg_top_peek *p);

/* A share of t->total in hundredths of a percent (5000 is 50.00%), rounded
 * half away from zero as the flamegraph's tooltips round it: the one
 * rounding, so both agree to the last digit. */
uint64_t pg_top_pct100(const pg_top *t, uint64_t part);

#endif
