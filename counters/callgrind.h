/* counters/callgrind.h — stacks for the valgrind backend, from callgrind.
 *
 * Callgrind records costs per function and per caller->callee edge, not whole
 * stacks. Run with --separate-callers=N, it keeps every function's cost apart
 * per chain of up to N callers ("hash'parse'main'..."), and such a chain read
 * backwards IS the stack, with exact instruction counts (Ir) as its weight.
 * Where that is inexact (said in docs/sampling.md and in the SVG subtitle):
 *   - stacks deeper than PG_CALLGRIND_DEPTH frames are cut at the root side;
 *     they get a first frame "[deeper]" so the cut is visible;
 *   - recursion deeper than PG_CALLGRIND_RECS levels is folded into the last
 *     level callgrind keeps apart (callgrind's --separate-recs).
 * Frames below main (libc's start-up, the same in every program) are left
 * out; code without a symbol, which callgrind names by address, is
 * "[unknown]".
 *
 * Life cycle of one stack-recording run:
 *     pg_callgrind_wrap -> run the returned argv -> pg_callgrind_collect
 */
#ifndef PG_COUNTERS_CALLGRIND_H
#define PG_COUNTERS_CALLGRIND_H

#include "counters/valgrind.h"
#include "util/folded.h"

#include <stddef.h>

#define PG_CALLGRIND_DEPTH 64
#define PG_CALLGRIND_RECS 16

/* What the SVG subtitle and `record` say about such stacks. */
#define PG_CALLGRIND_NOTE "stacks reconstructed from callgrind caller contexts (exact instruction counts; " \
                          "cut past 64 frames, recursion past 16 levels folded)"

/* The argv that runs `argv` under callgrind, writing into `outdir` (an
 * existing private directory). Free with pg_valgrind_argv_free. */
int pg_callgrind_wrap(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir);
/* The same with `more` options after perfgate's (NULL-terminated; at most 7). */
int pg_callgrind_wrap_more(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir,
                           const char *const *more);

/* Adds the stacks of one callgrind output text to `f` (weights: Ir). Returns
 * the number of instructions added, or a negative error naming `path`. */
long long pg_callgrind_parse(pg_folded *f, const char *text, size_t len, const char *path);

/* Parses and removes every callgrind output file in `outdir` (one per traced
 * process) into `f`. PG_EIO when callgrind wrote none. */
int pg_callgrind_collect(pg_folded *f, const char *outdir);

/* ---- counting: the valgrind backend's callgrind mode ----
 *
 * A benchmark with region markers or counted calls runs under callgrind
 * instead of cachegrind, with the same cache geometry and branch simulation,
 * so it yields the same metrics (valgrind.h) plus "calls:<fn>". `regions`:
 * instrumentation starts off and the markers' client requests turn it on and
 * off, so only the regions are counted (calls included). */
int pg_callgrind_wrap_count(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir,
                            int regions);

/* Adds to calls[i] the calls to function fns[i] that one callgrind output
 * text records (every caller's "calls=" lines towards it). Negative on a
 * malformed file, naming `path`. */
int pg_callgrind_calls(unsigned long long *calls, const char *const *fns, size_t n, const char *text, size_t len,
                       const char *path);

/* Parses and removes every callgrind output in `outdir`: the events' totals
 * (valgrind.h's 13, in its order; bit i of *present set for each event found)
 * and the calls. PG_EIO when there is none. */
int pg_callgrind_collect_counts(unsigned long long totals[13], unsigned *present, unsigned long long *calls,
                                const char *const *fns, size_t n, const char *outdir);

#endif
