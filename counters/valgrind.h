/* counters/valgrind.h — the valgrind backend: exact instruction counts.
 *
 * The benchmark runs under cachegrind with a fixed cache geometry
 * (I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64, as iai-callgrind) and branch
 * simulation, so counts are the same on every machine and every run. Children
 * are traced (--trace-children=yes) and their counts summed.
 *
 * Metrics produced (backend "valgrind", unit "count"):
 *   instructions = Ir, cache-misses = ILmr+DLmr+DLmw, branch-misses = Bcm+Bim,
 *   plus valgrind's own: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim.
 * The cache and branch simulations can each be left out (they double
 * cachegrind's time); then their metrics are not produced at all, never as 0.
 */
#ifndef PG_COUNTERS_VALGRIND_H
#define PG_COUNTERS_VALGRIND_H

#include "counters/readings.h"

#include <stddef.h>

typedef struct pg_valgrind pg_valgrind;

#define PG_VALGRIND_GEOMETRY "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64"

/* Finds valgrind on PATH (or $PERFGATE_VALGRIND) and its version. PG_ENOTSUP
 * with a message saying how to install it when it is missing. */
int pg_valgrind_new(pg_valgrind **out);
void pg_valgrind_free(pg_valgrind *vg);

const char *pg_valgrind_version(const pg_valgrind *vg);   /* "valgrind-3.19.0" */
const char *pg_valgrind_geometry(const pg_valgrind *vg);  /* PG_VALGRIND_GEOMETRY */

/* cachegrind's summary events, in the order it prints them, NULL-terminated:
 * the valgrind backend's own counters beside the shared metrics (its
 * props.events). "Ir" is also an alias of instructions (util/metrics.c). */
extern const char *const pg_valgrind_events[];

/* The simulations a run does, beyond counting instructions. */
enum { PG_VALGRIND_CACHE_SIM = 1, PG_VALGRIND_BRANCH_SIM = 2 };

/* Builds the argv that runs `argv` under cachegrind with the simulations in
 * `sims`, writing its output into `outdir` (an existing, empty, private
 * directory). The returned vector and its strings are owned by the caller:
 * free with pg_valgrind_argv_free. */
int pg_valgrind_wrap(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir, unsigned sims);
void pg_valgrind_argv_free(char **argv);

/* The general form: valgrind, then `opts` (NULL-terminated), then `argv`;
 * always without valgrind's gdbserver (--vgdb=no). */
int pg_valgrind_wrap_tool(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *const *opts);

/* Parses every cachegrind output file in `outdir`, sums them, appends the
 * readings of the events they hold (a shared metric only when every event it
 * sums is there), and removes the files. PG_EIO when no output was written (the
 * program could not start under valgrind). */
int pg_valgrind_collect(const pg_valgrind *vg, pg_readings *out, const char *outdir);

/* Calls fn on the text of every file in `outdir` whose name starts with
 * `prefix` (a tool's output, one per process or dump), and removes it and
 * valgrind's logs ("valgrind.log.PID"). Returns how many files there were, or
 * fn's first error; PG_EIO (with valgrind's own error when it left one) when
 * there was none: the program could not start under valgrind. Either of
 * those with less than 1 MiB free in `outdir`'s file system is PG_ENOSPC
 * instead, naming it: valgrind's writes failed (it says nothing of it, its
 * output just ends), the machine's failure and not the program's. */
typedef int pg_valgrind_output_fn(void *ctx, const char *text, size_t len, const char *path);
int pg_valgrind_outputs(const char *outdir, const char *prefix, pg_valgrind_output_fn *fn, void *ctx);

/* Whether a run counted a process that did not run its command: the
 * command line (the tools' "cmd:": the path a process exec'd, then its
 * arguments) of the first output file in `outdir` whose name starts with
 * `prefix` and which is not the client's of `wrapped` (the argv a wrap made),
 * into out; 1 when there is one, 0 when every process counted ran the
 * command itself (its forks included). A program that exec()s another
 * leaves only the other's counts, under the other's name. The files are left
 * for the tool's collect. */
int pg_valgrind_others(char *out, size_t len, const char *outdir, const char *prefix, char *const *wrapped);

/* The last line of valgrind's own log file `path` that is not a warning,
 * into out (left alone when there is none): why a program could not start. */
void pg_valgrind_log_error(char *out, size_t len, const char *path);

/* Parses one cachegrind.out text (for tests and collect): adds its summary's
 * events to `totals` in the order of the 13 names above, and sets bit i of
 * *present for each event i found. Returns the number of events found, or a
 * negative error naming `path`. */
int pg_valgrind_parse(unsigned long long totals[13], unsigned *present, const char *text, const char *path);

/* The same for another output format's totals line: `key` is "summary:"
 * (cachegrind) or "totals:" (callgrind, whose "summary:" may be partial). */
int pg_valgrind_parse_key(unsigned long long totals[13], unsigned *present, const char *text, const char *path,
                          const char *key);

/* The readings of summed totals (in the order above) of the events in
 * `present`: the shared metrics (each when every event it sums is there),
 * then valgrind's own. */
int pg_valgrind_readings(pg_readings *out, const unsigned long long t[13], unsigned present);

#endif
