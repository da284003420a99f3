/* counters/procscan.h — the processes already running, as side-band records.
 *
 * A system-wide recording (sampler.h, system_wide) sees MMAP2 and COMM
 * records only for what happens after it starts: a process that was already
 * running would have no name and no mappings, and its samples would read
 * "[unknown]". As `perf record -a` does, the state of every process is read
 * from /proc (comm of each thread, executable mappings from maps) and handed
 * on as the records the kernel would have written, stamped time 0 so they
 * come before every real record. A process that exits while it is read is
 * skipped: it cannot be named either way.
 */
#ifndef PG_COUNTERS_PROCSCAN_H
#define PG_COUNTERS_PROCSCAN_H

#include <linux/perf_event.h>

/* Takes one record (pg_sampler_keep is one). */
typedef int (*pg_procscan_fn)(void *ctx, const struct perf_event_header *rec);

/* Calls `fn` with a COMM record per thread and an MMAP2 record per
 * executable file mapping of every process under `proc` (NULL: /proc).
 * Returns the number of processes read, or fn's negative return. */
int pg_procscan(const char *proc, pg_procscan_fn fn, void *ctx);

#endif
