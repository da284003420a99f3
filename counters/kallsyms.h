/* counters/kallsyms.h — kernel addresses to function names, from /proc/kallsyms.
 *
 * System-wide recording (`record -a`) samples kernel stacks too. The kernel's
 * text symbols are read once; a kernel frame is named after the symbol at
 * or below its address, with "_[k]" appended (FlameGraph's mark for kernel
 * frames, as `stackcollapse-perf.pl --kernel` writes them). When the kernel
 * hides its addresses (kernel.kptr_restrict, or a user without
 * CAP_SYSLOG: every address reads 0), no name can be given: the frames read
 * "[kernel.kallsyms]_[k]" and pg_kallsyms_hidden() says why.
 */
#ifndef PG_COUNTERS_KALLSYMS_H
#define PG_COUNTERS_KALLSYMS_H

#include <stdint.h>

typedef struct pg_kallsyms pg_kallsyms;

/* Reads `path` (NULL: /proc/kallsyms). An unreadable file is an empty table,
 * not an error (the frames are still counted); negative only out of memory. */
int pg_kallsyms_load(pg_kallsyms **out, const char *path);
void pg_kallsyms_free(pg_kallsyms *k);

/* The frame name of kernel address `addr` ("do_syscall_64_[k]"), or
 * "[kernel.kallsyms]_[k]" when no symbol covers it. Owned by the table. */
const char *pg_kallsyms_frame(const pg_kallsyms *k, uint64_t addr);
/* Whether the kernel hid every address (the table is empty although the
 * file was read): the reason kernel frames are unnamed. */
int pg_kallsyms_hidden(const pg_kallsyms *k);

/* Whether `addr` is a kernel address on this architecture (the upper half). */
static inline int pg_kallsyms_is_kernel(uint64_t addr) { return addr >= 0xffff800000000000ull; }

#endif
