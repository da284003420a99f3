/* report/coverage.h — which functions a change touched, and which benchmarks run them.
 *
 * A reviewer's question: does any benchmark run the code this change
 * touches? The change is `git diff BASE HEAD` as lines of HEAD's files
 * (pg_change, made by harness/store/gitdiff.h). The candidate's stored
 * stacks say what each benchmark ran, and beside each, its program's
 * function table (counters/funclines.h: every function with its file, its
 * lines, and the frames its code runs under, inlined calls under their
 * hosts). A changed function is one whose lines a hunk touches; a benchmark
 * runs it when its program has it and its stacks hold one of its frames.
 * Its delta there is the self-cost change of those frames (exact
 * instructions with valgrind's stacks; samples, the baseline scaled, with
 * perf's). A changed function no benchmark runs is "not covered".
 *
 * What cannot be mapped is said, never guessed: the change (a base that is
 * not an ancestor, a diff too large: pg_change.note), a benchmark without a
 * table (stacks recorded before tables were, a program without DWARF), a
 * table that does not read (stored documents are not trusted: every field
 * is checked), a changed source file no benchmark's program was built from.
 */
#ifndef PG_REPORT_COVERAGE_H
#define PG_REPORT_COVERAGE_H

#include "report/comparison.h"

#include <stddef.h>

/* One file of the change: the lines of HEAD's version that it added or
 * changed, as [first, last] ranges in ascending order (a deletion: the line
 * after it). */
typedef struct pg_change_file {
    char *path;                 /* relative to the repository's root */
    int (*range)[2];
    size_t nrange;
} pg_change_file;

typedef struct pg_change {
    pg_change_file *files;
    size_t nfiles;
    char note[256];             /* why the change could not be mapped; "" when it could */
} pg_change;

void pg_change_free(pg_change *ch);

/* A benchmark that runs a changed function. */
typedef struct pg_cov_bench {
    const char *name;           /* borrowed from the comparison */
    double delta;               /* self-cost change of the function's frames; NAN: no baseline stacks */
} pg_cov_bench;

typedef struct pg_cov_func {
    char *name, *file;
    int first, last;            /* its lines in HEAD's file */
    int changed_at;             /* the first changed line in it */
    size_t nchanged;            /* how many of its lines the change touched */
    char **in;                  /* the frames its code runs under (inlined: where) */
    size_t nin;
    pg_cov_bench *bench;        /* the benchmarks that run it, in the comparison's order */
    size_t nbench;
} pg_cov_func;

typedef struct pg_coverage {
    int mapped;                 /* 0: nothing could be mapped (`note` says why) */
    pg_cov_func *f;             /* the changed functions, by file and line */
    size_t nf;
    size_t nuncovered;          /* of them, run by no benchmark */
    char **unmapped;            /* changed source files (C, C++, Rust...) that no benchmark's program
                                   was built from: what is in them is not known to run */
    size_t nunmapped;
    const char **blind;         /* benchmarks whose code is not known (no usable function table):
                                   what they run is neither covered nor not (borrowed names) */
    size_t nblind;
    char *note;                 /* what could not be mapped and why, "; "-joined; NULL: nothing */
    const char *unit;           /* of the deltas: "instructions" or "samples" */
    int required;               /* --require-coverage: not covered (or not mapped) fails */
} pg_coverage;

/* Maps change `ch` onto the candidate's stacks and tables in `c`. Negative
 * only when memory ran out; whatever did not map is in out->note. */
int pg_coverage_map(pg_coverage *out, const pg_change *ch, const pg_comparison *c);
void pg_coverage_free(pg_coverage *cv);

/* What --require-coverage decides: "covered" (every changed function is
 * run by a benchmark), "not covered" (one is run by none, and every
 * benchmark's code is known) or "unknown" (nothing could be mapped, or a
 * function none of the known benchmarks runs may be run by a blind one). */
const char *pg_coverage_verdict(const pg_coverage *cv);
/* Whether it fails the comparison: required and not "covered". */
int pg_coverage_fails(const pg_coverage *cv);

/* The funclines file beside a stacks file: <x>.folded -> <x>.funclines.json. */
void pg_coverage_table_path(char *buf, size_t len, const char *stacks);

#endif
