/* harness/measure/stacks.h — a benchmark's stacks for `run --sample`.
 *
 * After a benchmark's measured runs, one more run records its stacks, so the
 * counts stay those of unprofiled runs:
 *   valgrind backend: under callgrind, weights are exact instruction counts
 *                     (counters/callgrind.h says where the stacks are inexact);
 *   perf backend:     sampled with perf_event at the requested frequency.
 * The folded stacks go to <dir>/<benchmark>.folded (<benchmark>: the name as
 * a file name, pg_path_safe_name: distinct for distinct names, never too
 * long) and the benchmark object gets "stacks": "<rel>/<benchmark>.folded"
 * (rel is relative to the store
 * root, where compare resolves it) and "stacks_weight" ("instructions" or
 * "samples"). A directory in the store is owned (util/owned_dir.h) until the
 * run is stored (pg_stacks_keep); pg_stacks_free removes it when it was not,
 * and a perfgate killed before either leaves it for the next run's sweep
 * (harness/store/leftovers.h).
 */
#ifndef PG_HARNESS_STACKS_H
#define PG_HARNESS_STACKS_H

#include "counters/backend.h"
#include "harness/store/rundoc.h"
#include "harness/measure/spawn.h"

typedef struct pg_stacks pg_stacks;

/* `dir` is created when the first stacks are written. */
int pg_stacks_new(pg_stacks **out, pg_backend_kind backend, unsigned long freq, const char *dir, const char *rel);
/* The same for a run that goes into the store at `store_root`: <dir> is
 * <store_root>/stacks/<commit>/<machine_id>/<run_id> (commit NULL:
 * "nocommit"), made now and written into `dir`. */
int pg_stacks_new_in_store(pg_stacks **out, char *dir, size_t dirlen, pg_backend_kind backend, unsigned long freq,
                           const char *store_root, const char *commit, const char *machine_id, const char *run_id);
/* The run was stored: its stacks directory stays (removed when empty). */
void pg_stacks_keep(pg_stacks *s);
/* Frees `s`; a store directory not kept goes with it. */
void pg_stacks_free(pg_stacks *s);

/* Runs `so` once (its argv is the bare benchmark, not moved to the canonical
 * tree), recording stacks, and writes them for benchmark `name`, noting the
 * path in `bench`. When so->tree is set and the program is a file in it,
 * its function table (counters/funclines.h) goes beside the stacks as
 * <benchmark>.funclines.json, for compare's coverage of a change. `timed`: a
 * Google Benchmark, recorded (valgrind) only in its timed region, with
 * bench->stacks_iterations the iterations the stacks hold. A benchmark
 * that fails in this run is not an error here: *failed is set, with why in
 * pg_error_last(). Negative only when perfgate itself could not go on. */
int pg_stacks_record(pg_stacks *s, pg_rundoc_bench *bench, const char *name, pg_spawn_opts *so, int timed,
                     int *failed);

/* What kind of stacks these are, for subtitles ("" for sampled stacks). */
const char *pg_stacks_note(const pg_stacks *s);

#endif
