/* harness/measure/plan.h — one measurement of revisions: `compare
 * --run-missing`, `bisect`, the confirmation round.
 *
 * A pg_measure_plan says what to measure (commits, today's benchmarks, only
 * some of them), how (a session, run options) and where the results go (a
 * store, the git notes); pg_measure carries it out:
 *     prepare   each revision's tree exported (libgit2) into a temporary
 *               directory of its own, built with the manifest's "build",
 *               its Google Benchmark suites listed, a document, logs and
 *               stacks opened: every revision before measuring any, so a
 *               build failure costs no measuring time;
 *     measure   round by round, each revision in turn (A, B, A, B, ...), so
 *               drift of the machine hits all alike;
 *     store     each revision's run stored under its commit as `perfgate
 *               run` would, and into the notes.
 * The temporary trees are always removed, on success, failure and Ctrl-C.
 */
#ifndef PG_HARNESS_PLAN_H
#define PG_HARNESS_PLAN_H

#include "harness/store/gitrepo.h"
#include "harness/measure/runner.h"
#include "harness/measure/session.h"

#include <stddef.h>

typedef struct pg_measure_plan {
    pg_repo *repo;
    const char *const *commits; /* full ids */
    size_t ncommits;
    const char *bench_path;     /* what measures them: a manifest (today's, applied to every
                                 * revision: bench.h, pg_bench_place) or a directory */
    const char *worktree;       /* the work tree's root; NULL for a bare repository (then a
                                 * relative bench_path is each revision's own) */
    pg_session *sess;           /* the backend and its meters */
    const pg_run_opts *ro;
    const char *store_root;     /* the results go here... */
    int notes;                  /* ...and into the git notes: PG_NOTES_RUNS, PG_NOTES_WITH_STACKS
                                 * for the stacks note as well (harness/store/notes.h), or 0 */
    int reuse;                  /* --reuse-unchanged: exact counts taken from the stored runs of each
                                   commit and its nearest measured ancestor where the key matches
                                   (harness/measure/reuse.h) */
    const char *const *only;    /* only these benchmarks (after listing suites); NULL: all */
    size_t nonly;
} pg_measure_plan;

/* Carries out `plan`. Negative when a revision could not be exported, built
 * or stored, or on Ctrl-C (PG_EINTR: nothing stored); benchmarks that failed
 * are in the stored documents, and counted on stderr. */
int pg_measure(const pg_measure_plan *plan);

/* pg_measure of those of plan's commits that have no run of the session's
 * machine and backend stored (store or notes: pg_results_load), each at most
 * once, all in one interleaved batch (plan->only is ignored); sets *measured
 * to how many that was. Sweeps what a killed perfgate left in the store
 * first. `bisect` measures through it; `compare --run-missing` chooses its own
 * (it also re-measures a revision that lacks wanted stacks). */
int pg_measure_missing(size_t *measured, const pg_measure_plan *plan);

#endif
