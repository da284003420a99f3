/* harness/sample_run.h — one sampled run of a command: spawn + sampler + profile.
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

#include "counters/profile.h"
#include "counters/sampler.h"
#include "harness/spawn.h"
#include "util/folded.h"

typedef struct pg_sample_result {
    pg_sampler_stats sampler;   /* samples kept, lost, dropped */
    pg_profile_stats profile;   /* stacks built, truncated */
    char event[96];             /* what was sampled ("cpu-clock") */
    char notice[256];           /* fallback note ("no hardware cycle counter ..."), or "" */
    double unwind_ns;           /* time spent unwinding and symbolizing after the run */
    uint64_t early;             /* stacks unwound before the run ended (flush_bytes passed) */
} pg_sample_result;

/* Runs `so` (its hooks are replaced) with sampling `sopt`, adding the stacks
 * to `out`. *res is the spawn result (free with pg_spawn_result_free) whatever
 * the child's fate; stacks are built even when it failed. Returns negative
 * when sampling could not start (the child did not run) or the stacks could
 * not be built. */
int pg_sample_run(pg_folded *out, pg_sample_result *sr, pg_spawn_result *res,
                  const pg_spawn_opts *so, const pg_sampler_opts *sopt);

#endif
