/* counters/profile.h — a sampler's records into folded stacks.
 *
 * Replays the records in time order (incrementally: batches may be fed while
 * the sampled program still runs, see sampler.h): side-band records update the address
 * spaces (maps.h); each sample is unwound (its kernel call chain in fp mode,
 * libunwind over the copied stack in dwarf mode, unwind.h), every frame
 * symbolized (symbolize.h), and the stack added to a pg_folded, root first:
 *
 *     comm;[truncated];_start;__libc_start_main;main;parse;hash 42
 *
 * The root frame is the sampled thread's name (comm), as `perf script |
 * stackcollapse-perf.pl` writes it, so that threads and child processes are
 * told apart and two runs of the same benchmark line up in a diff. A stack
 * whose unwinding stopped before the outermost frame gets a "[truncated]"
 * frame right under the comm (its callers are unknown, not absent). A frame
 * in memory no file backs is "[unknown]"; frames in files without symbols
 * are "module+0xADDR". Kernel frames (system-wide recording) come below the
 * user's, named from /proc/kallsyms with FlameGraph's "_[k]" mark
 * (kallsyms.h); a kernel thread's stack is its kernel frames alone.
 */
#ifndef PG_COUNTERS_PROFILE_H
#define PG_COUNTERS_PROFILE_H

#include "counters/sampler.h"
#include "util/folded.h"

#include <stdint.h>

typedef struct pg_profile_stats {
    uint64_t samples;       /* samples turned into stacks */
    uint64_t truncated;     /* of which stopped early */
    uint64_t truncated_stack;   /* of those, stopped where the copied user stack ran out
                                 * (a larger --stack-size would have gone on) */
    uint64_t kernel;        /* samples with kernel frames (system-wide, sampler.h) */
    int kernel_hidden;      /* the kernel hid its symbols' addresses: kernel frames unnamed */
    uint64_t unmapped;      /* samples whose user leaf lies in no mapping perfgate saw: a
                             * process gone before its mappings were read, or JIT code */
} pg_profile_stats;

typedef struct pg_profile pg_profile;

/* A builder adding to `f` (not owned) the records of sampler `s` (read for
 * its sample layout only, at the first record: it may be made before the
 * sampler attached; `s` must outlive it). */
int pg_profile_new(pg_profile **out, pg_folded *f, const pg_sampler *s);
void pg_profile_free(pg_profile *p);

/* One record, in time order: a pg_sampler_fn, so `pg_sampler_flush(s,
 * pg_profile_add, profile)` feeds it. A malformed sample is skipped. */
int pg_profile_add(void *profile, const struct perf_event_header *rec);

void pg_profile_stats_get(const pg_profile *p, pg_profile_stats *out);

#endif
