/* harness/bench/bench.h — what to measure: benchmarks from manifests, directories
 * and command lines.
 *
 * `perfgate run PATH...`: a directory with perfgate.json uses the manifest
 * (docs/manifest.md); a directory without one runs each executable file in it
 * (sorted by name); an executable file is one benchmark. `perfgate run -- CMD`
 * is one benchmark named after the command. A Google Benchmark executable (or
 * a manifest entry of "kind": "google-benchmark") is a suite: after the build,
 * pg_benchset_expand lists it and makes each of its benchmarks one entry
 * (harness/bench/gbench_suite.c, harness/measure/gbench_list.c, docs/google-benchmark.md).
 */
#ifndef PG_HARNESS_BENCH_H
#define PG_HARNESS_BENCH_H

#include "report/threshold.h"
#include "util/metrics.h"

#include <stddef.h>

typedef enum pg_bench_kind {
    PG_BENCH_COMMAND = 0,   /* a command, measured as a whole */
    PG_BENCH_GB_SUITE,      /* a Google Benchmark executable, not listed yet */
    PG_BENCH_GB_ONE,        /* one benchmark of it: argv prints its JSON report */
} pg_bench_kind;

/* A target Cargo builds (docs/manifest.md, "Cargo targets"): the entry's
 * "cargo". Its executable is not known until the build: cargo is run after
 * the manifest's "build" (harness/measure/cargo.h), in every tree measured,
 * and the entry's argv[0] becomes what cargo's own output names. */
typedef enum pg_cargo_kind { PG_CARGO_BENCH = 0, PG_CARGO_BIN, PG_CARGO_EXAMPLE } pg_cargo_kind;

typedef struct pg_cargo_target {
    pg_cargo_kind kind;
    char *target;           /* the target's name */
    char *package;          /* NULL: the one package of the workspace with such a target */
    char *features;         /* comma list for --features, NULL: none */
    int no_default_features;
    char *profile;          /* --profile: "bench" for a bench target, else "release", unless given */
    char *dir;              /* absolute: where cargo runs (the manifest's directory, in the tree measured) */
    char *manifest_path;    /* absolute Cargo.toml for --manifest-path; NULL: cargo looks up from `dir` */
} pg_cargo_target;

/* "bench", "bin" or "example": the key that names it, as cargo's target kinds. */
const char *pg_cargo_kind_name(pg_cargo_kind k);

void pg_cargo_target_free(pg_cargo_target *t);

typedef struct pg_bench {
    pg_bench_kind kind;
    char *name;             /* a suite: the prefix of its benchmarks' names, or NULL */
    char *gb_filter;        /* a suite: its --benchmark_filter, or NULL */
    char **argv;        /* NULL-terminated; argv[0] absolute when it had a '/' */
    int argv0_in_tree;  /* argv[0] was written relative (or found in a directory): it is
                           passed relative to cwd (harness/measure/canon.h) */
    char *cwd;          /* absolute; NULL: perfgate's own */
    char **env;         /* extra "KEY=VALUE" entries, NULL-terminated, may be NULL */
    int repeat;         /* -1: not set here */
    int warmup;         /* -1: not set here */
    double timeout;     /* <= 0: not set here */
    int has_thresholds; /* the manifest gave "thresholds" for it */
    pg_thresholds thresholds;  /* per metric, percent */
    pg_metric_set metrics;     /* the manifest's "metrics" for it; 0: not set here */
    int markers;        /* "markers": -1 not set here (detected from the program), 0 or 1 */
    char *count_calls;  /* "count_calls": comma list of functions, NULL: not set here */
    char *source;       /* where it came from, for messages */
    pg_cargo_target *cargo; /* a cargo target: argv[0] is a placeholder until the build found it; NULL: none */
} pg_bench;

typedef struct pg_benchset {
    pg_bench *v;
    size_t n, cap;
    char *build;        /* the first manifest's "build" command, or NULL */
    int has_cargo;      /* an entry names a cargo target: built after `build` */
    char *build_manifest; /* which manifest it came from */
    double build_timeout; /* its "build_timeout" in seconds; <= 0: not set (harness/measure/build.h) */
    /* manifest "defaults", applied where a benchmark does not set its own */
    int def_repeat, def_warmup;
    double def_timeout;
    pg_metric_set def_metrics;
    int has_def_thresholds;
    pg_thresholds def_thresholds;
    int def_markers;        /* -1: detect */
    char *def_count_calls;
} pg_benchset;

void pg_benchset_init(pg_benchset *s);
void pg_benchset_free(pg_benchset *s);

/* Loads a perfgate.json. Errors name the file, the key and its place
 * ("bench/perfgate.json: benchmarks[1].repeat: expected a whole number >= 1").
 * Relative paths in it ("command"[0], "cwd") resolve against `base`, an
 * absolute directory; NULL: the manifest's own directory. */
int pg_manifest_load(pg_benchset *s, const char *path, const char *base);
/* The same from text[0..len); `path` names it in messages. */
int pg_manifest_parse(pg_benchset *s, const char *text, size_t len, const char *path, const char *base);

/* Where the benchmarks a PATH names are measured (docs/manifest.md, "Which
 * paths are whose"). A revision is measured in a checkout of the work tree,
 * and the manifest of today names that checkout's files:
 *   - a manifest inside the work tree (tracked or not): its relative paths
 *     resolve against its directory's counterpart under `root` (made there
 *     when the revision has no such directory);
 *   - a manifest outside the work tree: against `root` itself;
 *   - a directory without a manifest, or an executable, inside the work
 *     tree: its counterpart under `root` is what is discovered.
 * The manifest's text is always today's: the file PATH names now. */
typedef struct pg_bench_place {
    const char *worktree;   /* the measured repository's work tree root; NULL: no repository */
    const char *root;       /* that tree for this measurement: `worktree` itself (run),
                             * or a revision's checkout (compare --run-missing) */
} pg_bench_place;

/* Adds what a PATH argument names (see above); `at` NULL: outside any
 * repository, a manifest's paths resolve against its own directory. */
int pg_bench_discover(pg_benchset *s, const char *path, const pg_bench_place *at);

/* Adds what the PATH operands paths[0..n) name, or bench/ when n is 0 and
 * `fallback` is set, as `run` picks them: in the work tree `worktree` (a
 * manifest outside it names the work tree's files), or with `worktree` NULL
 * outside any repository. */
int pg_bench_select(pg_benchset *s, char *const *paths, int n, int fallback, const char *worktree);

/* Checks a --count-calls / "count_calls" list: comma-separated names that a
 * symbol table can hold. PG_EINVAL with the first wrong one at *bad, *badlen
 * bytes of `list` (0 when the list names nothing). */
int pg_count_calls_check(const char *list, const char **bad, int *badlen);


/* Adds one benchmark running argv (argc > 0). */
int pg_bench_add_command(pg_benchset *s, char *const *argv, int argc);

/* The rule every benchmark name follows, however it was given (a manifest's
 * "name", an executable's file name): NULL when `name` is a valid name, else
 * what is wrong with it ("may not contain a newline"). A name is data: any
 * other byte is allowed, and every output escapes it (util/text.h). */
const char *pg_bench_name_problem(const char *name);

/* Appends an empty entry (repeat/warmup -1) for the caller to fill. */
int pg_bench_new_entry(pg_benchset *s, pg_bench **out);

/* Frees what an entry owns. */
void pg_bench_free(pg_bench *b);

/* Whether the executable `path` uses Google Benchmark (it holds the library's
 * symbols or its flags' names). */
int pg_gbench_is_executable(const char *path);

/* The most of a Google Benchmark executable's stdout perfgate reads, in MiB:
 * its listing, a benchmark's JSON report. Past it the middle would be lost
 * (harness/measure/spawn.h keeps a head and a tail), so a longer one is refused. */
#define PG_GBENCH_OUTPUT_CAP_MIB 16


/* Keeps only the benchmarks whose name matches the extended regex. */
int pg_benchset_filter(pg_benchset *s, const char *regex);

/* Keeps only the benchmarks i with keep[i] set, in their order. */
void pg_benchset_keep(pg_benchset *s, const unsigned char *keep);
/* Keeps only the benchmarks named in v[0..n). */
void pg_benchset_keep_named(pg_benchset *s, const char *const *v, size_t n);

/* Appends to `out` one benchmark per line of `list`, the output of `suite
 * --benchmark_list_tests` (NUL-terminated, changed in place): named after
 * the suite and the line ('/' as ':'), running the suite filtered to it.
 * PG_EINVAL for a name that cannot be a benchmark's (docs/manifest.md),
 * PG_ENOTFOUND for a listing without one. */
int pg_benchset_add_listing(pg_benchset *out, const pg_bench *suite, char *list);

/* PG_EINVAL naming two benchmarks of `s` that have one name, and where each
 * came from; 0 when every name is its own. */
int pg_benchset_check_unique(const pg_benchset *s);

#endif
