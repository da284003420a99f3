/* harness/measure/revisions.h — measuring revisions that have no stored results
 * (`compare --run-missing`).
 *
 * Each revision's tree is exported (libgit2) into its own temporary directory,
 * built there with the manifest's "build" command, and measured. When several
 * revisions are measured their runs are interleaved round by round (A, B, A, B,
 * ...) so drift of the machine hits all alike. Results are stored under each
 * revision's commit like `perfgate run` would. The temporary trees are always
 * removed, on success, failure and Ctrl-C.
 */
#ifndef PG_HARNESS_REVISIONS_H
#define PG_HARNESS_REVISIONS_H

#include "harness/store/gitrepo.h"
#include "harness/measure/runner.h"
#include "harness/measure/session.h"

#include <stddef.h>

/* Measures `n` commits (full ids) with the benchmarks `bench_path` names now
 * (a manifest, today's, is applied to every revision: bench.h, pg_bench_place);
 * `worktree` is the repository's work tree root, NULL for a bare repository
 * (then a relative `bench_path` is each revision's own). Stores into
 * `store_root`, and into the git notes too when `notes` (PG_NOTES_RUNS, or
 * PG_NOTES_WITH_STACKS for the stacks note as well: harness/store/notes.h).
 * Only the benchmarks named in only[0..nonly) when `only` is not NULL. */
int pg_revisions_measure(pg_repo *repo, const char *const *commits, size_t n, const char *bench_path,
                         const char *worktree, pg_session *sess, const pg_run_opts *ro, const char *store_root,
                         int notes, const char *const *only, size_t nonly);

/* pg_revisions_measure (all benchmarks) of those of the `n` commits that have
 * no run of `sess`'s machine and backend stored (store or notes:
 * pg_results_load), each at most once, all in one interleaved batch; sets
 * *measured to how many that was. Sweeps what a killed perfgate left in the
 * store first. `bisect` measures through it; `compare --run-missing` chooses
 * its own (it also re-measures a revision that lacks wanted stacks). */
int pg_revisions_measure_missing(size_t *measured, pg_repo *repo, const char *const *commits, size_t n,
                                 const char *bench_path, const char *worktree, pg_session *sess,
                                 const pg_run_opts *ro, const char *store_root, int notes);

#endif
