/* counters/probe.h — what this machine can measure, and why not.
 *
 * Used by `--backend auto` to choose, and by `perfgate doctor` to explain.
 */
#ifndef PG_COUNTERS_PROBE_H
#define PG_COUNTERS_PROBE_H

#include <stddef.h>

typedef struct pg_probe {
    int hw_instructions;          /* perf can count hardware instructions on a child */
    char hw_why[512];             /* when not: plain words + fix */
    int software;                 /* perf software events (task-clock...) work */
    char sw_why[512];
    int sampling_hw;              /* cycles sampling works */
    int sampling_sw;              /* cpu-clock sampling works */
    int valgrind;                 /* valgrind found and runs */
    char valgrind_version[64];
    char valgrind_why[512];
    int paranoid;                 /* /proc/sys/kernel/perf_event_paranoid, or -99 unknown */
} pg_probe;

/* Opens `name` on the calling process (counting, or sampling at the default rate when
 * `sample`) and closes it again: 0 when it opened, with the event as libpfm4
 * resolved it in `detail`; else the errno (EINVAL for a bad name), with why
 * and the fix in plain words in `detail`. */
int pg_probe_event(const char *name, int sample, char *detail, size_t len);

/* What to probe: valgrind costs a process start, not worth it when the
 * perf backend is forced. */
enum { PG_PROBE_PERF = 1, PG_PROBE_VALGRIND = 2, PG_PROBE_ALL = 3 };

/* Fills `p` by trying to open events on the calling process and starting
 * `valgrind --version`, as `what` asks; what is not probed reads as absent
 * with the reason "not probed". Cheap (a few ms). */
int pg_probe_run(pg_probe *p, unsigned what);

#endif
