/* counters/evlist.h — the perf backend: the events counted on one child.
 *
 * Life cycle per measured run:
 *     pg_evlist_new (once) -> [ pg_evlist_open(child pid, before it execs)
 *                               -> child execs, runs, exits
 *                               -> pg_evlist_read -> pg_evlist_close ] * runs
 *     -> pg_evlist_free
 * Hardware events are opened as one group (leader disabled + enable_on_exec,
 * inherit so threads and children count, user space only by default). The
 * software events task-clock, page-faults, context-switches and cpu-migrations
 * are always added, in a group of their own, so a PMU that is missing or busy
 * cannot take them down. From the first open until pg_evlist_free, the list
 * also holds one disabled event of each software kind behind a kernel static
 * key (page-faults, context-switches, cpu-migrations) on the calling process
 * itself: it counts nothing, and spares each run's open and close two
 * rewrites of kernel text per kind (evlist.c, keep_keys).
 */
#ifndef PG_COUNTERS_EVLIST_H
#define PG_COUNTERS_EVLIST_H

#include "counters/evsel.h"
#include "counters/readings.h"
#include "util/metrics.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct pg_evlist pg_evlist;

#define PG_DEFAULT_EVENTS PG_METRICS_PERF_DEFAULT

/* `events` is a comma-separated list (NULL: PG_DEFAULT_EVENTS; "" : software only).
 * Encodes every event up front, so a bad name fails before anything runs. */
int pg_evlist_new(pg_evlist **out, const char *events, int user_only);
void pg_evlist_free(pg_evlist *l);

/* Opens all events on `pid` (a child stopped before exec). A hardware event that
 * cannot be opened is not fatal: it is remembered (pg_evlist_unavailable) and
 * left out of the readings. Software events failing to open is fatal. */
int pg_evlist_open(pg_evlist *l, pid_t pid);

/* Reads every open event after the child exited: scaled values and running
 * fractions, appended to `out` with backend "perf". Events that never ran
 * (running == 0) are left out and noted as unavailable. */
int pg_evlist_read(pg_evlist *l, pg_readings *out);
void pg_evlist_close(pg_evlist *l);

/* The hardware events that could not be counted in the last open, and why
 * (a plain-words message with the fix). Index 0..count-1. */
size_t pg_evlist_unavailable_count(const pg_evlist *l);
const char *pg_evlist_unavailable(const pg_evlist *l, size_t i, const char **why);

/* A function whose calls are counted with a uprobe (uprobe.h), stored as
 * "calls:<name>". */
typedef struct pg_evlist_probe {
    const char *name;           /* the function, as the user named it */
    const char *file;           /* the ELF file that defines it */
    uint64_t offset;            /* its entry's file offset */
} pg_evlist_probe;

/* Replaces the counted functions (n == 0: none) for the next opens. A probe
 * that cannot be opened is fatal at open: a call count is asked for by name. */
int pg_evlist_set_probes(pg_evlist *l, const pg_evlist_probe *p, size_t n);

/* Region mode (include/perfgate.h): every counter is opened disabled and
 * stays so at exec; pg_evlist_enable turns them on and off, the children's
 * inherited counters with them. */
void pg_evlist_set_regions(pg_evlist *l, int on);
int pg_evlist_enable(pg_evlist *l, int on);

size_t pg_evlist_count(const pg_evlist *l);
const pg_evsel *pg_evlist_get(const pg_evlist *l, size_t i);

#endif
