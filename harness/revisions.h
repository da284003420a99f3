/* harness/revisions.h — measuring revisions that have no stored results
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

#include "harness/gitrepo.h"
#include "harness/runner.h"
#include "harness/session.h"

#include <stddef.h>

/* Measures `n` commits (full ids) with the benchmarks `bench_path` names now
 * (a manifest, today's, is applied to every revision: bench.h, pg_bench_place);
 * `worktree` is the repository's work tree root, NULL for a bare repository
 * (then a relative `bench_path` is each revision's own). Stores into
 * `store_root`, and into the git notes too when `notes` (harness/notes.h). */
int pg_revisions_measure(pg_repo *repo, const char *const *commits, size_t n, const char *bench_path,
                         const char *worktree, pg_session *sess, const pg_run_opts *ro, const char *store_root,
                         int notes);

/* What `--run-missing` measures with (compare and bisect alike). */
typedef struct pg_missing_opts {
    const char *bench;          /* --bench as given (from the current directory); NULL: bench/ at the work tree root */
    const char *worktree;       /* the work tree root with '/', NULL: bare */
    int repeat;                 /* measured runs per benchmark; <= 0: manifest or backend default */
    pg_metric_set metrics;      /* --metrics; 0: the manifest's */
    int sample;                 /* also record stacks */
    unsigned long sample_freq;  /* Hz; 0: PG_SAMPLE_FREQ_DEFAULT */
    int notes;                  /* store into the git notes too */
} pg_missing_opts;

/* Measures those of the `n` commits that have no run of `sess`'s machine and
 * backend stored (store or notes: pg_results_load), each at most once, all in
 * one interleaved batch, and sets *measured to how many that was. Sweeps what
 * a killed perfgate left in the store first. The caller reloads the results. */
int pg_revisions_measure_missing(size_t *measured, pg_repo *repo, const char *const *commits, size_t n,
                                 pg_session *sess, const pg_missing_opts *o, const char *store_root);

#endif
