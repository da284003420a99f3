/* counters/readings.h — what one measured run produced.
 *
 * A reading is one metric's value from one run, named with the shared metric
 * names of docs/metrics.md ("instructions", "cycles", "cache-misses", "branch-misses",
 * "task-clock", "wall-time", "page-faults", "context-switches",
 * "cpu-migrations", "max-rss") or a backend's own name ("D1mr", or the event
 * string the user gave, e.g. "perf::L1-dcache-load-misses").
 */
#ifndef PG_COUNTERS_READINGS_H
#define PG_COUNTERS_READINGS_H

#include <stddef.h>

typedef struct pg_reading {
    char name[96];
    char unit[16];     /* "count", "ns", "bytes" */
    char backend[16];  /* "perf", "valgrind", "os" (wall-time, max-rss from the kernel's rusage) */
    double value;      /* already scaled for multiplexing */
    double running;    /* time_running / time_enabled; 1.0 when not multiplexed or not applicable */
} pg_reading;

typedef struct pg_readings {
    pg_reading *v;
    size_t n, cap;
} pg_readings;

/* Appends a reading; returns PG_ENOMEM on allocation failure. */
int pg_readings_add(pg_readings *r, const char *name, const char *unit, const char *backend,
                    double value, double running);
const pg_reading *pg_readings_find(const pg_readings *r, const char *name);
void pg_readings_clear(pg_readings *r);   /* n = 0, keeps memory */
void pg_readings_free(pg_readings *r);

#endif
