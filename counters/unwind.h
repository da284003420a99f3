/* counters/unwind.h — DWARF unwinding of a sampled user stack with libunwind.
 *
 * Each sample carries the user registers and a copy of the top of the user
 * stack (PERF_SAMPLE_REGS_USER / STACK_USER). libunwind's remote API unwinds
 * it "as if" the process were there: registers come from the sample, stack
 * words from the copy, and everything else (unwind tables, code) from the
 * mapped ELF files (maps.h). Unwind info is found through each file's
 * .eh_frame_hdr binary-search table, the way Linux perf does it
 * (tools/perf/util/unwind-libunwind-local.c). Files without .eh_frame_hdr
 * (only .debug_frame) are not unwound through: the stack ends there, marked
 * truncated.
 */
#ifndef PG_COUNTERS_UNWIND_H
#define PG_COUNTERS_UNWIND_H

#include "counters/maps.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct pg_unwinder pg_unwinder;

int pg_unwinder_new(pg_unwinder **out);
void pg_unwinder_free(pg_unwinder *u);

/* One sample. `regs` holds the sampled registers in ascending bit order of
 * `mask` (perf's x86-64 numbering, asm/perf_regs.h); `stack` the copied bytes
 * starting at the sampled stack pointer.
 * Fills ips[0..*n) leaf first: ips[0] is the sampled IP, the others are return
 * addresses (callers should look up ip - 1 for those). Returns PG_UNWIND_DONE
 * when the unwind reached the outermost frame, PG_UNWIND_STACK_END when it
 * stopped because the copied stack ran out and every frame so far had unwind
 * information (a larger copy would have gone on), PG_UNWIND_STOPPED when it
 * stopped for any other reason (no unwind info for a frame, memory no file
 * backs, `max` frames), negative on a usage error. */
enum { PG_UNWIND_DONE = 0, PG_UNWIND_STACK_END = 1, PG_UNWIND_STOPPED = 2 };
int pg_unwind(pg_unwinder *u, uint64_t *ips, size_t max, size_t *n,
              const pg_procs *procs, pid_t pid,
              const uint64_t *regs, uint64_t mask, const unsigned char *stack, size_t stack_len);

#endif
