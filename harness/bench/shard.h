/* harness/bench/shard.h — `run --shard I/N`: one deterministic part of a suite.
 *
 * Every shard of a suite must choose the same partition without talking to
 * the others, so the choice depends only on the benchmark names and on
 * results every shard sees alike: those of the nearest first-parent ancestor
 * of HEAD that has any (local store or git notes; never HEAD's own, which
 * other shards are adding to while this one starts). With their wall times
 * the benchmarks are dealt longest first, each to the shard with the least
 * total so far (greedy longest-processing-time; ties by name, then by the
 * lower shard); a benchmark without a stored time counts as the mean of those
 * with one. Without any stored time they are dealt by name, round robin.
 */
#ifndef PG_HARNESS_SHARD_H
#define PG_HARNESS_SHARD_H

#include "harness/bench/bench.h"
#include "harness/store/gitrepo.h"
#include "harness/store/rundoc.h"

#include <stddef.h>

typedef struct pg_shard {
    int index, count;           /* 1-based index of count; count 0: no sharding */
} pg_shard;

/* "I/N" with 1 <= I <= N; PG_EINVAL naming what is wrong. */
int pg_shard_parse(pg_shard *out, const char *arg);

/* The 0-based shard of each of names[0..n): durations[i] in any unit, < 0
 * when unknown; NULL or all unknown: by name. */
void pg_shard_assign(int *shard_of, const char *const *names, const double *durations, size_t n, int count);

/* The runs the partition is balanced by (see above) into `runs`, and the
 * commit they are of into `from` ("" when none: then by name). */
int pg_shard_history(pg_rundoc_list *runs, char from[PG_OID_HEXSZ + 1], pg_repo *repo, const char *store,
                     const char *head);

/* Keeps only the benchmarks of `sh` in `set`, balanced by the wall times of
 * `history`; *balanced is set when any was known. */
int pg_shard_select(pg_benchset *set, int *balanced, const pg_shard *sh, const pg_rundoc_list *history);

#endif
