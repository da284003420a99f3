/* harness/measure/runner.h — measuring a set of benchmarks into a run document.
 *
 * For each benchmark: `warmup` unmeasured runs of the bare command, then
 * `repeat` measured runs through the meter, each a fresh child (spawn.h).
 * With the valgrind backend and a native meter, then its native runs (a
 * warmup and the native repeat, with perf software events), after and never
 * beside the valgrind ones, so one result has exact counts and native time.
 * A benchmark that fails (exec error, non-zero exit, signal, timeout) in any
 * run is recorded as failed with the reason and the tail of its stderr, and the
 * others still run. Every raw reading of every run is kept.
 * Metrics that another backend alone gives (pg_backend_giving: DHAT's
 * heap-*), when a benchmark's choice of metrics names them, come from a
 * series of that backend's own, after the native one (round 0 only; with
 * --jobs, in the worker after the exact series, but one benchmark after the
 * other in this process when pg_runner_exact made them); the run refuses
 * before anything runs when that backend cannot work here or cannot
 * measure a benchmark (a Google Benchmark suite under DHAT).
 * A program whose native runs print different things is measured again by
 * the exact backend (PG_VARIES_RUNS): counts that do not repeat get a spread.
 */
#ifndef PG_HARNESS_RUNNER_H
#define PG_HARNESS_RUNNER_H

#include "counters/backend.h"
#include "harness/bench/bench.h"
#include "harness/store/rundoc.h"

#include <stdio.h>

/* An exact backend's runs of a benchmark whose native runs printed different
 * things (its own timings, the date, its pid): its exact series is measured
 * again, one run at a time up to this many in all, until its counts settle
 * (two that repeat, or a spread far below its threshold), so that the
 * spread of counts that do not repeat is measured rather than guessed
 * (docs/metrics.md, "Counts that do not repeat"). The document's
 * `exact_varies` then says why. */
#define PG_VARIES_RUNS 5
#define PG_VARIES_WHY "its output differs from run to run (it prints timings, or reads the clock, a random seed or /proc)"

typedef struct pg_run_opts {
    int repeat, warmup;         /* -1: manifest, else backend default */
    double timeout;             /* <= 0: manifest, else none */
    pg_metric_set metrics;      /* --metrics; 0: the manifest's, else every default metric */
    pg_metric_set also;         /* measured besides (compare's --gate): metrics another backend
                                   alone gives (DHAT's heap-*) are measured so even when the choice
                                   above is every default metric */
    int cpu;                    /* -1: choose; -2: do not pin */
    const char *log_dir;        /* per-benchmark stdout/stderr logs go here */
    struct pg_owned_dir *log_lazy;  /* an unstored run's (log_dir NULL): only a failed benchmark's logs
                                   are written (the others would go when the run ends), into this
                                   directory, made at the first failure unless made already (prefix
                                   log_lazy_prefix); the caller releases it. NULL: log_dir's */
    const char *log_lazy_prefix;
    const char *tree;           /* the root of the tree the benchmarks run from (a work tree, a
                                   checkout; PG_CANON_OWN_CWD: none, each runs in its own directory's):
                                   measured runs see it at one path (harness/measure/canon.h) */
    int progress;               /* live progress line on stderr */
    FILE *out;                  /* per-benchmark tables as they finish; NULL: none */
    void (*out_begin)(void *arg);   /* called before each table is written to `out` (`run` prints
                                   its header there once it knows the work tree's state); NULL: none */
    void *out_arg;
    int verbose;                /* tables show backend-specific extras too */
    int round;                  /* -1: all runs of each benchmark; k >= 0: only measured run k
                                   (warmups in round 0; benchmarks with repeat <= k skipped), so
                                   two revisions' runs can be interleaved round by round */
    int sample;                 /* --sample was given (the caller makes `stacks`) */
    unsigned long sample_freq;  /* Hz */
    struct pg_stacks *stacks;   /* non-NULL: one more run per benchmark records its
                                   stacks (harness/measure/stacks.h); round 0 only */
    const char *pass_env;       /* --pass-env: the variables of perfgate's environment the benchmarks
                                   get besides the fixed list (harness/measure/canon.h); NULL: none */
    const char *count_calls;    /* --count-calls: functions whose calls every benchmark counts
                                   (with the manifest's own); NULL: only the manifest's */
    pg_meter *native;           /* valgrind backend: after each benchmark's runs, its native
                                   runs with this perf meter (session.h); NULL: none */
    int native_repeat;          /* native runs per benchmark; <= 0: as the perf backend's repeat */
    double build_timeout;       /* --build-timeout (harness/measure/build.h); <= 0: the manifest's, or the default */
    int jobs;                   /* > 1: an exact backend's series of that many benchmarks at once,
                                   each benchmark's native runs then one after the other, pinned,
                                   as without (harness/measure/jobs.h); the document is the same */
    const struct pg_rundoc_list *reuse_from;  /* --reuse-unchanged: stored runs whose exact counts a
                                   benchmark with the same key takes instead of running
                                   (harness/measure/reuse.h); NULL: every one is measured */
    const char *reuse_machine;  /* ...of this machine id only */
    struct pg_rundoc *pre;      /* the backend's series made beforehand (pg_runner_exact), benchmark i
                                   in pre[i]: taken in round 0 (or a whole run) instead of running
                                   them; NULL: none */
    size_t one;                 /* 0: every benchmark of the set; i + 1: only benchmark i, so that
                                   two revisions' runs of one benchmark can be made side by side */
} pg_run_opts;

/* The CPU perfgate pins to when not told: the last one it may use, away from
 * CPU 0 where most interrupts land. -1 when none can be determined. */
int pg_runner_pick_cpu(void);

/* Runs every benchmark of `set` with `meter`, appending their results to
 * `doc`'s benchmarks, and counts the failed ones in *nfailed.
 * Returns PG_EINTR when SIGINT stopped it (results incomplete: store nothing). */
int pg_runner_run(pg_rundoc *doc, int *nfailed, const pg_benchset *set, pg_meter *meter,
                  const pg_run_opts *o);

/* 0 when the metrics `set` asks for (with o->also) can be measured here
 * beside `meter`'s backend; else the one-line refusal pg_runner_run would
 * give (two side backends asked for, or one that cannot work here), so a
 * caller can refuse before building or printing anything. */
int pg_runner_check(const pg_benchset *set, const pg_meter *meter, const pg_run_opts *o);

/* Resolved repeat count of benchmark i (command line, manifest, the
 * default of backend `b`). */
int pg_runner_repeat(const pg_benchset *set, size_t i, const pg_run_opts *o, const pg_backend_props *b);

/* Rounds benchmark i needs when revisions are interleaved: the larger of its
 * backend's runs and, when `b` measures time natively beside itself and
 * `native` is set, its native runs. */
int pg_runner_rounds(const pg_benchset *set, size_t i, const pg_run_opts *o, const pg_backend_props *b);

/* --jobs across sets (the revisions of a plan, harness/measure/plan.h): the
 * backend's whole series of every benchmark of every set, o[0]->jobs at a
 * time, into pre[s] (an array of sets[s]->n one-benchmark documents; NULL
 * when the backend's counts depend on load, or o[0]->jobs is 1: then each
 * set measures as usual). o[s] says how set s runs (its tree, its logs);
 * hand pre[s] to it as its pg_run_opts.pre. */
int pg_runner_exact(struct pg_rundoc **pre, size_t nsets, const pg_benchset *const *sets, pg_meter *meter,
                    const pg_run_opts *const *o);
void pg_runner_exact_free(struct pg_rundoc **pre, size_t nsets, const pg_benchset *const *sets);

/* Merges the benchmarks of `from` (one round) into `into` by name:
 * samples appended, runs added, failure kept. `from` is emptied. */
int pg_runner_merge(pg_rundoc *into, pg_rundoc *from);

#endif
