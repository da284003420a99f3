/* counters/stackrec.h — recording one run's stacks, whatever the backend.
 *
 * The stacks side of pg_meter (backend.h): the harness spawns the child and
 * calls these hooks, and never needs to know how a backend gets its stacks:
 *   valgrind: the run goes under callgrind; weights are exact instruction
 *             counts (callgrind.h says where the stacks are inexact);
 *   perf:     perf_event sampling (sampler.h) with DWARF unwinding after the
 *             run (profile.h); weights are samples.
 * Per recording run:
 *     pg_stackrec_begin      the argv to exec (valgrind prefixes itself), stacks go to `out`
 *     pg_stackrec_attach     child forked and held before exec
 *     pg_stackrec_pollfds /
 *     pg_stackrec_readable   while it runs: the sampler's buffers are drained
 *     pg_stackrec_end        child reaped: its stacks into `out`
 */
#ifndef PG_COUNTERS_STACKREC_H
#define PG_COUNTERS_STACKREC_H

#include "counters/backend_ops.h"
#include "counters/profile.h"
#include "counters/sampler.h"
#include "util/folded.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>




/* pg_stackrec_opts and pg_stackrec_stats are backend_ops.h's. */
int pg_stackrec_new(pg_stackrec **out, const pg_stackrec_opts *o);
void pg_stackrec_free(pg_stackrec *r);

/* What a stack's count is: "instructions" (valgrind) or "samples" (perf). */
const char *pg_stackrec_weight(const pg_stackrec *r);
/* What is inexact about these stacks, for subtitles; "" for sampled stacks. */
const char *pg_stackrec_note(const pg_stackrec *r);

/* A Google Benchmark (harness/bench/gbench_suite.c) is recorded, with valgrind, only
 * in its timed region: the runs the library reports, as its per-iteration
 * count is (counters/gbench.h). Set before pg_stackrec_begin; after
 * pg_stackrec_end, pg_stackrec_collect_timed reads the stacks with the
 * run's JSON report (its stdout) and says how many iterations they hold.
 * With perf the whole process is sampled (*iterations stays 0). */
void pg_stackrec_timed(pg_stackrec *r, int on);
int pg_stackrec_collect_timed(pg_stackrec *r, pg_folded *out, double *iterations, const char *report, size_t len);

/* Starts a recording of `argv`, pinned to `cpu` (-1: not pinned), whose
 * stacks go to `out`: *argv_out is what to exec (owned by the recorder until
 * pg_stackrec_end). Negative when recording cannot start here
 * (perf_event_paranoid, no valgrind): nothing to end then. */
int pg_stackrec_begin(pg_stackrec *r, char ***argv_out, char *const *argv, int cpu, pg_folded *out);
int pg_stackrec_attach(pg_stackrec *r, pid_t pid);
size_t pg_stackrec_pollfds(pg_stackrec *r, int *fds, size_t max);
int pg_stackrec_readable(pg_stackrec *r);
/* Ends the recording begun last. `ran`: the child ran (whatever its exit),
 * so its stacks are built; 0: the spawn failed, nothing is built. Either way
 * the run's left-overs are removed. Negative when the stacks could not be
 * built (valgrind: callgrind wrote none). */
int pg_stackrec_end(pg_stackrec *r, int ran, pg_stackrec_stats *stats);

#endif
