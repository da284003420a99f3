/* harness/measure/plan.h — one measurement: `run` and `calibrate` of the work
 * tree in place, `compare --run-missing`, `bisect` and the confirmation round
 * of revisions in temporary checkouts.
 *
 * A pg_measure_plan says what to measure (commits, or the work tree as it is;
 * benchmarks, only some of them), how (a session, run options) and where the
 * results go (a store, the git notes); pg_measure carries it out. Revisions:
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
 * The work tree in place (`here`): the store checked, the manifest's build
 * run, suites listed and --filter applied, then each of here->copies
 * documents measured whole, one after the other, benchmark by benchmark as
 * `run` prints them; the first stored and put into the notes as above.
 * Either way what a killed perfgate left is swept first.
 * A range (`backfill`): pg_measure_each measures its commits one at a time,
 * each stored as soon as it is measured, so a killed backfill loses at most
 * the commit it was measuring and the next measures only what is missing.
 */
#ifndef PG_HARNESS_PLAN_H
#define PG_HARNESS_PLAN_H

#include "harness/store/gitrepo.h"
#include "harness/measure/runner.h"
#include "harness/measure/session.h"

#include <limits.h>
#include <stddef.h>

/* The work tree measured in place, with no checkout (`run`, `calibrate`). */
typedef struct pg_measure_here {
    pg_benchset *set;           /* the caller's selection (operands, a shard), not yet built: built,
                                   its suites listed and filtered here; the caller's to free */
    const char *filter;         /* --filter over the listed names (extended regex); NULL: all */
    int no_build;               /* --no-build */
    int (*finish)(void *arg, pg_rundoc *doc);   /* fills in what the caller found out meanwhile,
                                   when a copy's runs are done (`run`: the commit, when it was not
                                   asked for before, and whether the work tree is dirty); NULL: nothing */
    int shard_index, shard_count;   /* --shard, recorded in the document */
    size_t copies;              /* documents measured one after the other: 1 (run), 2 x pairs (calibrate) */
    const char *logs_prefix;    /* without a store: the prefix of the logs' temporary directory */
    void (*before_build)(void *arg);  /* before the build command runs, if it does (`run` settles
                                   `dirty` first: a build may change tracked files); NULL: nothing */
    void (*before)(void *arg, const pg_benchset *set, size_t copy);  /* before each copy is measured
                                   (`run`'s header, calibrate's progress); NULL: nothing */
    void *arg;
} pg_measure_here;

/* What pg_measure made of a plan with `here`. */
typedef struct pg_measure_out {
    pg_rundoc *docs;            /* here->copies documents, each finished (pg_session_finish_doc) */
    size_t ndocs;
    int nfailed;                /* failed benchmark runs, over every copy */
    char stored[PATH_MAX + 64]; /* where docs[0] was stored; "" when it was not */
    char stacks_dir[PATH_MAX * 2];  /* --sample: where the stacks are; "" when none */
    char logs[PATH_MAX];        /* without a store: the logs' directory, kept when a run failed or
                                   the stacks are in it, removed otherwise */
} pg_measure_out;

void pg_measure_out_free(pg_measure_out *out);

typedef struct pg_measure_plan {
    pg_repo *repo;
    const char *const *commits; /* full ids; with `here`, the work tree's commit (ncommits 0: none) */
    size_t ncommits;
    const pg_measure_here *here;    /* non-NULL: the work tree in place, not the commits' trees */
    const char *bench_path;     /* what measures them: a manifest (today's, applied to every
                                 * revision: bench.h, pg_bench_place) or a directory */
    const char *worktree;       /* the work tree's root; NULL for a bare repository (then a
                                 * relative bench_path is each revision's own) */
    pg_session *sess;           /* the backend and its meters */
    const pg_run_opts *ro;
    const char *store_root;     /* the results go here (NULL with `here`: nowhere)... */
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
 * are in the documents. Revisions: with `out` NULL, failures are counted on
 * stderr; else out->nfailed counts them (and nothing else is set). With
 * plan->here: the documents into *out. Free *out with pg_measure_out_free
 * whatever is returned. */
int pg_measure(pg_measure_out *out, const pg_measure_plan *plan);

/* pg_measure of those of plan's commits that have no run of the session's
 * machine and backend stored, each at most once, all in one interleaved
 * batch (plan->only is ignored); sets *measured to how many that was. When
 * stacks are wanted (plan->ro->sample) a commit is measured too when the
 * newest such run has a benchmark that did not fail and whose stacks no
 * such run stored. `stored`: NULL, or per commit the runs the caller has
 * already loaded for it (pg_results_load; an entry NULL: loaded here, from
 * the store and the notes). Sweeps what a killed perfgate left in the
 * store first. `bisect` and `compare --run-missing` measure through it. */
int pg_measure_missing(size_t *measured, const pg_measure_plan *plan, const pg_rundoc_list *const *stored);

/* *yes: a run of plan's session's machine and backend is stored for
 * `commit` (store or notes: pg_results_load). */
int pg_measure_has_run(int *yes, const pg_measure_plan *plan, const char *commit);

/* What pg_measure_each did with one commit. */
typedef enum pg_measure_fate {
    PG_MEASURE_STORED,          /* a run of this machine and backend was stored already: not measured */
    PG_MEASURE_DONE,            /* measured and stored (some of its benchmarks may have failed) */
    PG_MEASURE_FAILED,          /* not stored: its checkout, build or store failed */
} pg_measure_fate;

/* Told of each commit of pg_measure_each when it is done with it: the
 * commit's index in plan->commits, its fate, the benchmark runs that failed
 * (DONE) and why it failed (FAILED: the error's one line). */
typedef void pg_measure_each_fn(void *arg, size_t i, pg_measure_fate fate, int nfailed, const char *why);

/* A range, commit by commit in plan->commits' order: those with a run of the
 * session's machine and backend stored (store or notes, looked at just
 * before each is measured: another job may have stored it meanwhile) are
 * skipped; each other one is checked out, built, measured and stored on its
 * own (pg_measure), before the next. A commit that fails is told and the
 * next one measured. 0 when every commit was told; PG_EINTR on Ctrl-C (the
 * commits told before it stay stored, the one being measured is not);
 * another negative code when the store cannot be read or written, before
 * the commit it concerns is measured. */
int pg_measure_each(const pg_measure_plan *plan, pg_measure_each_fn *each, void *arg);

#endif
