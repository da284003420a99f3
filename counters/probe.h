/* counters/probe.h — what this machine can measure, and why not.
 *
 * Used by `--backend auto` to choose, and by `perfgate doctor` to explain.
 */
#ifndef PG_COUNTERS_PROBE_H
#define PG_COUNTERS_PROBE_H

#include <stddef.h>

/* One backend's answer to "can you measure here?" (its ops' probe fills it). */
enum { PG_FIT_NONE = 0, PG_FIT_PART = 1, PG_FIT_FULL = 2 };
typedef struct pg_backend_fit {
    int fit;                      /* PG_FIT_*: cannot work, works in part, works fully */
    char version[64];             /* its tool's version ("valgrind-3.19.0"), or "" */
    char why[640];                /* when not fully: plain words + fix ("not probed" when not asked) */
    char part[256];               /* when in part: what it does then ("counting software events only") */
} pg_backend_fit;

#define PG_BACKEND_SLOTS 8        /* pg_probe.fit is indexed by pg_backend_kind */

typedef struct pg_probe {
    /* perf_event's facts of this machine (the perf backend, sampling, doctor) */
    int perf_probed;              /* the facts below were looked at */
    int hw_instructions;          /* perf can count hardware instructions on a child */
    char hw_why[512];             /* when not: plain words + fix */
    int software;                 /* perf software events (task-clock...) work */
    char sw_why[512];
    int sampling_hw;              /* cycles sampling works */
    int sampling_sw;              /* cpu-clock sampling works */
    int paranoid;                 /* /proc/sys/kernel/perf_event_paranoid, or -99 unknown */
    pg_backend_fit fit[PG_BACKEND_SLOTS];   /* each backend's own answer (backend.h: pg_backend_probe) */
} pg_probe;

/* Opens `name` on the calling process (counting, or sampling at the default rate when
 * `sample`) and closes it again: 0 when it opened, with the event as libpfm4
 * resolved it in `detail`; else the errno (EINVAL for a bad name), with why
 * and the fix in plain words in `detail`. */
int pg_probe_event(const char *name, int sample, char *detail, size_t len);

/* Empties `p`: nothing probed, every backend absent with the reason "not probed". */
void pg_probe_init(pg_probe *p);

/* Fills perf_event's facts of `p` (once; again is a no-op) by trying to open
 * events on the calling process. Cheap (a few ms). Which backends can work is
 * each backend's own probe's answer: backend.h, pg_backend_probe. */
void pg_probe_perf(pg_probe *p);

#endif
