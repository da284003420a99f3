/* harness/measure/sample_run.h — one run of a command with its stacks recorded:
 * spawn + a stack recorder (counters/stackrec.h).
 *
 * Shared by `perfgate record` and `perfgate run --sample`. The child is spawned
 * as for a measurement (spawn.h: pinned, ASLR off, held before exec); the
 * sampler attaches to it before exec and its buffers are drained while it
 * runs; once it exited, the records are unwound and symbolized into folded
 * stacks. Unwinding after the run keeps the sampled program's slowdown to
 * the cost of the kernel copying stacks. Past flush_bytes (sampler.h), the
 * oldest records are unwound during the run, on a thread of its own, so the
 * poll loop never stops draining the buffers.
 */
#ifndef PG_HARNESS_SAMPLE_RUN_H
#define PG_HARNESS_SAMPLE_RUN_H

#include "counters/backend.h"
#include "counters/stackrec.h"
#include "harness/measure/spawn.h"
#include "util/folded.h"

typedef pg_stackrec_stats pg_sample_result;

/* Runs `so` (its argv the bare command; its hooks are replaced) recording
 * with `r`, adding the stacks to `out`. *res is the spawn result (free with
 * pg_spawn_result_free) whatever the child's fate; stacks are built even when
 * it failed. Negative when recording could not start (the child did not run:
 * res->started is 0) or the stacks could not be built. */
int pg_stackrec_run(pg_stackrec *r, pg_folded *out, pg_sample_result *sr, pg_spawn_result *res,
                    const pg_spawn_opts *so);

/* pg_stackrec_run with a perf sampler of `sopt`, for `perfgate record`. */
int pg_sample_run(pg_folded *out, pg_sample_result *sr, pg_spawn_result *res,
                  const pg_spawn_opts *so, const pg_sampler_opts *sopt);

#endif
