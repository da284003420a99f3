/* harness/store/rundoc.h — the run document and the store document: the one owner
 * of their shape (docs/result-schema.md).
 *
 * A run document is what `perfgate run --format json` prints and what the
 * store keeps, one per run, inside a store document. Everything else in
 * perfgate works on the typed structs below; only this module knows the JSON
 * key names. There is one writer (struct -> JSON text) and one validating
 * reader (JSON text -> structs). The reader refuses a document of the wrong
 * shape with the file, the JSON path and the reason:
 *     results.json: runs[0].benchmarks[3].metrics.instructions.samples[2]: expected a number, got "x"
 * and never trusts a key's type. Keys it does not know are ignored, so a
 * newer minor version (perfgate-run/1.N) still reads; another major version,
 * or a document without a schema, is refused.
 *
 * Ownership: every pointer in these structs is owned by the struct that holds
 * it and released by pg_rundoc_free / pg_rundoc_list_free.
 */
#ifndef PG_HARNESS_RUNDOC_H
#define PG_HARNESS_RUNDOC_H

#include "harness/store/machine.h"
#include "report/threshold.h"

#include <stddef.h>

#define PG_RUNDOC_SCHEMA "perfgate-run/1"
#define PG_STOREDOC_SCHEMA "perfgate-store/1"
#define PG_NOTEDOC_SCHEMA "perfgate-notes/1"

typedef struct pg_rundoc_metric {
    char *name;             /* "instructions" (docs/metrics.md) */
    char *unit;             /* "count", "ns", "bytes" */
    char *source;           /* key "backend": what produced it, "perf", "valgrind" or "os" */
    double *samples;        /* one per measured run, finite */
    double *running;        /* same length: fraction of the run the counter was on the PMU;
                               NULL while every one is 1 (pg_rundoc_metric_running reads it) */
    size_t n, cap;
} pg_rundoc_metric;

typedef struct pg_rundoc_failure {
    char *reason;           /* "exit status 3", "timeout", ...; NULL: none stored */
    char *phase;            /* "warmup" or "measured run"; NULL: none stored */
    int run;                /* 1-based; 0: not stored */
    int has_exit_code, exit_code;
    int has_signal, signal;
    double timeout;         /* > 0: it timed out after this many seconds */
    char *stderr_tail;
} pg_rundoc_failure;

typedef struct pg_rundoc_strings {
    char **v;
    size_t n, cap;
} pg_rundoc_strings;

typedef struct pg_rundoc_bench {
    char *name;
    char **command;         /* NULL-terminated; NULL: none stored */
    char *cwd;
    int repeat, warmup;     /* -1: not stored */
    double timeout;         /* <= 0: none */
    int has_thresholds;     /* the manifest gave thresholds (possibly none at all) */
    pg_thresholds thresholds;
    int failed;             /* status "failed" (else "ok") */
    int runs;               /* measured runs completed */
    pg_rundoc_failure failure;  /* when failed */
    char *stdout_log, *stderr_log;
    char *stacks;           /* folded stacks, relative to the store root or absolute */
    char *stacks_weight;    /* "instructions" or "samples" */
    char *stacks_note;      /* what is inexact about them, for subtitles */
    double stacks_iterations;  /* a Google Benchmark's timed-region stacks: the iterations they hold
                                  (their counts divided by it are per iteration); 0: not so */
    char *stacks_error;     /* why this benchmark has no stacks */
    char *reuse_key;        /* its exact counts' key (harness/measure/reuse.h), or NULL */
    char *exact_varies;     /* why its exact backend ran it more than once (its output differed
                               between runs: runner.h), or NULL: one run was its count */
    char *reused_run, *reused_commit;   /* --reuse-unchanged: the stored run (and its commit) whose exact
                                           counts these are, measured with the same key; NULL: measured */
    pg_rundoc_strings selected_metrics;  /* the metrics asked for (run --metrics, the manifest's
                                            "metrics"); none: the defaults */
    pg_rundoc_metric *metrics;
    size_t nmetrics, capmetrics;
} pg_rundoc_bench;

/* What a backend that measured a run says of its measurements (the run's
 * "backends"; counters/backend.h's pg_backend_props, as stored). */
typedef struct pg_rundoc_props {
    char name[32];
    int exact, simulated;
    char stacks_unit[32];
} pg_rundoc_props;
#define PG_RUNDOC_MAX_BACKENDS 4

typedef struct pg_rundoc {
    char *perfgate_version;
    char *id;               /* "<start time>-<pid>-<random hex>" */
    char *commit;           /* NULL: keyed to no commit */
    int dirty;
    char *start_time, *end_time;
    char *session;          /* the perfgate process that measured it: runs of one session were taken
                               together (interleaved, or one after the other in one command), runs
                               of two were not; NULL (older documents): a session of its own */
    double load;            /* the system's 1-minute load average when it started; < 0: not stored */
    pg_machine machine;
    char *backend;          /* "perf" or "valgrind" */
    pg_rundoc_props backends[PG_RUNDOC_MAX_BACKENDS];   /* the run's "backends" */
    size_t nbackends;
    int cpu;                /* settings.cpu: pinned CPU, -1: none */
    int aslr_disabled;
    char *stdin_path;       /* settings.stdin */
    char *events;           /* settings.events (perf); NULL: not stored */
    int user_only;          /* settings.user_only, with events */
    int has_native, native; /* settings.native (valgrind): native time measured too (docs/metrics.md) */
    int shard_index, shard_count;   /* `run --shard I/N`: I (1-based) of N; 0: the whole suite */
    pg_rundoc_strings uncontrolled, notices;
    pg_rundoc_bench *bench;
    size_t nbench, capbench;
    int from_note;          /* read from the commit's git note, not from the local store: another
                               clone's run (harness/store/results.h); never written */
} pg_rundoc;

/* Runs, in the order they were read. */
typedef struct pg_rundoc_list {
    pg_rundoc *v;
    size_t n, cap;
} pg_rundoc_list;

/* --- building ------------------------------------------------------------ */

void pg_rundoc_free(pg_rundoc *r);
void pg_rundoc_list_free(pg_rundoc_list *l);
/* Frees the runs of `l` past the first `n`. */
void pg_rundoc_list_truncate(pg_rundoc_list *l, size_t n);
void pg_rundoc_bench_free(pg_rundoc_bench *b);

/* Sets *dst to a copy of `s` (NULL: NULL), freeing what it held. PG_ENOMEM. */
int pg_rundoc_set(char **dst, const char *s);

/* Records what backend `name` says of its measurements in the run (once). */
int pg_rundoc_add_backend(pg_rundoc *run, const char *name);
/* What the run says of the backend `name`, else (a document older than
 * "backends") what this perfgate knows of it; 0 when neither knows it (a
 * metric of the operating system, a backend of a newer perfgate's that the
 * document does not describe), 1 when *out is filled. */
int pg_rundoc_backend_props(pg_rundoc_props *out, const pg_rundoc *run, const char *name);
int pg_rundoc_strings_add(pg_rundoc_strings *l, const char *s);

/* Appends a zeroed benchmark (repeat and warmup -1) to `r`. */
int pg_rundoc_add_bench(pg_rundoc_bench **out, pg_rundoc *r);
/* The benchmark named `name` in `r`, or NULL: to read, and to change. */
const pg_rundoc_bench *pg_rundoc_bench_find(const pg_rundoc *r, const char *name);
pg_rundoc_bench *pg_rundoc_find_bench(pg_rundoc *r, const char *name);

/* Room for n more samples, exactly (a document says how many it holds). */
int pg_rundoc_metric_reserve(pg_rundoc_metric *m, size_t n);

/* The fraction of sample i's run its counter was on the PMU (1: all of it). */
double pg_rundoc_metric_running(const pg_rundoc_metric *m, size_t i);

/* The metric `name` of `b`, added (with `unit` and `source`) when missing. */
int pg_rundoc_metric_get(pg_rundoc_metric **out, pg_rundoc_bench *b, const char *name, const char *unit,
                         const char *source);
int pg_rundoc_metric_push(pg_rundoc_metric *m, double value, double running);
/* The metric `name` of `b`, or NULL. */
const pg_rundoc_metric *pg_rundoc_metric_find(const pg_rundoc_bench *b, const char *name);

/* Merges benchmark `from` (one round of a run) into `into` by name: samples
 * appended, runs added, a failure replaces the earlier state; a benchmark
 * `into` does not have yet is moved over. `from` is emptied either way. */
int pg_rundoc_merge_bench(pg_rundoc *into, pg_rundoc_bench *from);

/* --- writing ------------------------------------------------------------- */

/* The run document as JSON text, ending in a newline (free with free()). */
int pg_rundoc_write(char **text, const pg_rundoc *r);
/* A JSON array of run documents (`show --format json`). */
int pg_rundoc_list_write(char **text, const pg_rundoc_list *l);

/* The store document of (commit, machine_id) with `run` appended: `old`
 * (`old_len` bytes, the current file `path`) when non-NULL, else a new
 * document. `old` is validated first and kept as it is, keys this perfgate
 * does not know included; an invalid one is PG_EINVAL naming `path`. `run`
 * is validated as the reader would read it: one the reader would refuse (a
 * benchmark named twice) is PG_EINVAL, so that no append makes the file
 * unreadable. */
int pg_storedoc_append(char **text, const char *old, size_t old_len, const char *path, const char *commit,
                       const char *machine_id, const pg_rundoc *run);

/* --- reading ------------------------------------------------------------- */

/* Whether `s` names schema `want` ("perfgate-run/1") or a later minor
 * version of it ("perfgate-run/1.3"). */
int pg_schema_ok(const char *s, const char *want);

/* Checks that `text` (the file `path`) is a store document this perfgate can
 * append to, as pg_storedoc_append would. PG_EINVAL naming the file, the JSON
 * path and why. */
int pg_storedoc_check(const char *text, size_t len, const char *path);

/* Appends to `out` the runs of `text`, which holds a store document, a single
 * run document (`run --format json`) or an array of them (`show --format
 * json`). `file` names it in errors. PG_EINVAL with file, JSON path and
 * reason; `out` keeps only what it held before on any error. */
int pg_rundoc_parse(pg_rundoc_list *out, const char *text, size_t len, const char *file);
/* The same for the file at `path`; PG_ENOTFOUND when it does not exist. */
int pg_rundoc_read_file(pg_rundoc_list *out, const char *path);

#endif
