/* counters/backend.h — which backend measures, and one measured run with it.
 *
 * A pg_meter hides the backends from the harness. Per benchmark:
 *     pg_meter_set_target  what the benchmark asks for: regions, call counts
 * Per measured run:
 *     pg_meter_wrap_argv   the command to exec (valgrind prefixes itself)
 *     pg_meter_child_env /
 *     pg_meter_child_fds   what the child gets besides (the region channel)
 *     pg_meter_attach      child forked and held before exec: open counters on it
 *     pg_meter_pollfds /
 *     pg_meter_readable    while it runs: region commands are served
 *     pg_meter_collect     child reaped: append the run's readings
 */
#ifndef PG_COUNTERS_BACKEND_H
#define PG_COUNTERS_BACKEND_H

#include "counters/backend_ops.h"
#include "counters/probe.h"
#include "counters/readings.h"
#include "util/metrics.h"

#include <stddef.h>
#include <sys/types.h>


/* The types (pg_backend_kind, pg_backend_props, pg_meter_opts,
 * pg_meter_target) are backend_ops.h's, shared with the backends. */

const char *pg_backend_name(pg_backend_kind k);     /* "auto", "perf", "valgrind" */

/* 1 when this process itself runs under a backend's simulator (valgrind, as
 * when perfgate measures its own code: bench/self), which runs one thread at
 * a time; else 0. */
int pg_backend_hosted(void);
int pg_backend_parse(pg_backend_kind *out, const char *s);

/* `text` with the registry's words in place of its keys, into `buf`: lists
 * of backend names, "perf or valgrind", so that no help text outside
 * counters/ names a backend, and a new backend is in every one.
 *   {backends}      auto (default), perf or valgrind     (--backend's choices)
 *   {names}         perf or valgrind                     (every backend)
 *   {exact} {native} {native-time} {takes-events}        those whose props say so
 *   {selects}       those whose meter leaves out what the metrics chosen do not need
 *   {repeat} {warmup}  5 perf, 1 valgrind                (each one's default)
 * Anything else is copied as it is; cut to fit `buf`. Returns buf. */
const char *pg_backend_expand(char *buf, size_t len, const char *text);


/* The properties of a chosen backend (PERF or VALGRIND; NULL for AUTO), and
 * of the backend a document or series names ("perf", "valgrind"; NULL for
 * anything else: "os", a name from a newer perfgate). */
const pg_backend_props *pg_backend_props_of(pg_backend_kind k);
const pg_backend_props *pg_backend_props_named(const char *name);
/* Asks the backends whether they can work here, into `p`: `requested` alone,
 * or for AUTO every backend auto may choose (a backend's probe may cost a
 * process start: valgrind's is not worth it when perf is forced). */
void pg_backend_probe(pg_probe *p, pg_backend_kind requested);
/* Every backend's own counters (props.events), NULL-terminated: for
 * util/metrics.h's pg_metric_known and pg_metric_suggest. */
const char *const *pg_backend_events(void);
/* The environment variables the backends' tools need kept (props.env_keep),
 * the i-th from 0; NULL past the end. */
const char *pg_backend_env_keep(size_t i);
/* The backend that alone gives the registry metric `metric` (its props'
 * `metrics`: DHAT's heap-*), measured beside the chosen backend when asked
 * for; AUTO when every backend may give it. */
pg_backend_kind pg_backend_giving(const char *metric);
/* The backend that measures native time beside a simulated one, and the one
 * that samples stacks with perf_event (`record`, `run --sample` natively). */
pg_backend_kind pg_backend_native(void);
/* For `perfgate doctor`: one line per backend (`line(ctx, label, ok,
 * detail)`), and the sections of the tools a backend needs beyond
 * perf_event (a heading is a line with ok -1). */
void pg_backend_doctor(const pg_probe *p, pg_doctor_line *line, void *ctx);
void pg_backend_doctor_tools(const pg_probe *p, pg_doctor_line *line, void *ctx);
/* "(hardware counters)", "(software events only)": what auto's choice of `k` means here. */
const char *pg_backend_choice_note(pg_backend_kind k, const pg_probe *p);

/* The fallback decision of `--backend auto`, and the check of a forced one.
 * auto: perf when hardware instructions can be counted; else valgrind (with a
 * one-line notice naming why perf cannot); else perf with software events only
 * (with a notice). perf forced without a PMU still works with software events and
 * says so; a backend that cannot work at all returns PG_ENOTSUP with why. */
int pg_backend_choose(pg_backend_kind *out, char *notice, size_t len,
                      pg_backend_kind requested, const pg_probe *p);


int pg_meter_new(pg_meter **out, const pg_meter_opts *o);
void pg_meter_free(pg_meter *m);
pg_backend_kind pg_meter_backend(const pg_meter *m);

/* The metrics the next runs must produce (0: every default one). The
 * valgrind backend leaves out the cache simulation unless cache-misses is
 * chosen and the branch simulation unless branch-misses is: instructions
 * alone take about half the time. The perf backend counts its events anyway
 * (counters cost nothing there). */
void pg_meter_select(pg_meter *m, pg_metric_set metrics);

/* Set before a benchmark's measured runs. An error is the benchmark's
 * (a function not found, markers built without valgrind's header): the
 * message says which and how to fix it. */
int pg_meter_set_target(pg_meter *m, const pg_meter_target *t);
/* Whether the current target's program carries the marker note. */
int pg_meter_marked(const pg_meter *m);
/* The environment entry that turns a program's markers off. */
#define PG_METER_MARKERS_OFF "PERFGATE_MARKERS=0"

/* What to exec for `argv`; `*out` is owned by the meter until the next call. */
int pg_meter_wrap_argv(pg_meter *m, char ***out, char *const *argv);
/* An entry the child's environment gets ("PERFGATE_CTL_FD=5,8" for the
 * regions' channel, "PERFGATE_MARKERS=0" when a marked program is measured whole),
 * or NULL; valid until the next wrap. */
const char *pg_meter_child_env(const pg_meter *m);
/* fds the child keeps open across exec (the region channel's ends). */
size_t pg_meter_child_fds(const pg_meter *m, int *fds, size_t max);
int pg_meter_attach(pg_meter *m, pid_t pid);
size_t pg_meter_pollfds(pg_meter *m, int *fds, size_t max);
int pg_meter_readable(pg_meter *m);
/* Appends the run's readings; wall_ns and max_rss (bytes) come from the spawner. */
int pg_meter_collect(pg_meter *m, pg_readings *out, double wall_ns, double max_rss);

/* The same for a Google Benchmark run (counters/gbench.h): `argv` prints the
 * library's JSON report, and `report` is what the run printed on stdout.
 * Natively the readings come from the report; under valgrind the program runs
 * under callgrind and `instructions` is its count per iteration. */
int pg_meter_wrap_gbench(pg_meter *m, char ***out, char *const *argv);
int pg_meter_collect_gbench(pg_meter *m, pg_readings *out, const char *report, size_t len, double wall_ns,
                            double max_rss);

/* A process the runs since pg_meter_set_target counted that did not run
 * the command measured: its command line as the backend saw it (another
 * program the command exec()ed, whose counts stand in the readings), or NULL
 * when every one ran the command itself. Only a backend that counts each
 * process apart can tell (valgrind); NULL from the others. */
const char *pg_meter_others(const pg_meter *m);

/* Backend details for the machine fingerprint: "valgrind-3.19.0" / "perf_event (linux 6.1)",
 * and the cache geometry ("" for perf). */
const char *pg_meter_version(const pg_meter *m);
const char *pg_meter_geometry(const pg_meter *m);
/* Hardware events perf could not count in the last collected run (not opened,
 * or never scheduled), one plain-words line per reason ("instructions,
 * cycles: no PMU ... fix: ..."); NULL past the end. */
const char *pg_meter_unavailable(const pg_meter *m, size_t i);

#endif
