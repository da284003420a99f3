/* counters/uprobe.h — counting a function's calls with a uprobe (perf backend).
 *
 * The kernel's uprobe PMU (/sys/bus/event_source/devices/uprobe) makes a
 * counting perf event of a breakpoint at a file offset: perf_event_attr.type
 * is the PMU's type, config1 points at the file's path, config2 is the offset
 * (elfsym.h finds it). Every execution of the function's first instruction by
 * the counted task (and, inherited, its children) adds one: exact, whatever
 * the machine's PMU.
 */
#ifndef PG_COUNTERS_UPROBE_H
#define PG_COUNTERS_UPROBE_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* The uprobe PMU's perf type. PG_ENOTSUP, with why and the fix, when the
 * kernel has none. */
int pg_uprobe_type(uint32_t *type);

/* Fills `a` for a counting uprobe at `path`+`offset`; `path` must live until
 * perf_event_open has been called with it. */
void pg_uprobe_attr(struct perf_event_attr *a, uint32_t type, const char *path, uint64_t offset);

/* Can a uprobe be counted here? 1 yes; 0 no, with why (and the fix) in `why`.
 * Tries one on perfgate's own malloc. */
int pg_uprobe_probe(char *why, size_t len);

#endif
