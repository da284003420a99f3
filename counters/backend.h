/* counters/backend.h — which backend measures, and one measured run with it.
 *
 * A pg_meter hides the backends from the harness. Per measured run:
 *     pg_meter_wrap_argv   the command to exec (valgrind prefixes itself)
 *     pg_meter_attach      child forked and held before exec: open counters on it
 *     ... child runs ...
 *     pg_meter_collect     child reaped: append the run's readings
 */
#ifndef PG_COUNTERS_BACKEND_H
#define PG_COUNTERS_BACKEND_H

#include "counters/probe.h"
#include "counters/readings.h"

#include <stddef.h>
#include <sys/types.h>

typedef enum pg_backend_kind {
    PG_BACKEND_AUTO = 0,
    PG_BACKEND_PERF,        /* perf_event: hardware counters when there is a PMU, software events always */
    PG_BACKEND_VALGRIND,    /* cachegrind: exact instructions, simulated caches and branches */
} pg_backend_kind;

const char *pg_backend_name(pg_backend_kind k);     /* "auto", "perf", "valgrind" */
int pg_backend_parse(pg_backend_kind *out, const char *s);

/* The fallback decision of `--backend auto`, and the check of a forced one.
 * auto: perf when hardware instructions can be counted; else valgrind (with a
 * one-line notice naming why perf cannot); else perf with software events only
 * (with a notice). perf forced without a PMU still works with software events and
 * says so; a backend that cannot work at all returns PG_ENOTSUP with why. */
int pg_backend_choose(pg_backend_kind *out, char *notice, size_t len,
                      pg_backend_kind requested, const pg_probe *p);

typedef struct pg_meter pg_meter;

typedef struct pg_meter_opts {
    pg_backend_kind backend;    /* PERF or VALGRIND: already chosen */
    const char *events;         /* perf: comma list, NULL for the defaults */
    int user_only;              /* perf: exclude kernel and hypervisor */
} pg_meter_opts;

int pg_meter_new(pg_meter **out, const pg_meter_opts *o);
void pg_meter_free(pg_meter *m);
pg_backend_kind pg_meter_backend(const pg_meter *m);

/* What to exec for `argv`; `*out` is owned by the meter until the next call. */
int pg_meter_wrap_argv(pg_meter *m, char ***out, char *const *argv);
int pg_meter_attach(pg_meter *m, pid_t pid);
/* Appends the run's readings; wall_ns and max_rss (bytes) come from the spawner. */
int pg_meter_collect(pg_meter *m, pg_readings *out, double wall_ns, double max_rss);

/* The same for a Google Benchmark run (counters/gbench.h): `argv` prints the
 * library's JSON report, and `report` is what the run printed on stdout.
 * Natively the readings come from the report; under valgrind the program runs
 * under callgrind and `instructions` is its count per iteration. */
int pg_meter_wrap_gbench(pg_meter *m, char ***out, char *const *argv);
int pg_meter_collect_gbench(pg_meter *m, pg_readings *out, const char *report, size_t len, double wall_ns,
                            double max_rss);

/* Backend details for the machine fingerprint: "valgrind-3.19.0" / "perf_event (linux 6.1)",
 * and the cache geometry ("" for perf). */
const char *pg_meter_version(const pg_meter *m);
const char *pg_meter_geometry(const pg_meter *m);
/* Hardware events perf could not count in the last collected run (not opened,
 * or never scheduled), one plain-words line per reason ("instructions,
 * cycles: no PMU ... fix: ..."); NULL past the end. */
const char *pg_meter_unavailable(const pg_meter *m, size_t i);

#endif
