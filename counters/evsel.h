/* counters/evsel.h — one perf event: its name, its libpfm4 encoding, its fd.
 *
 * Split as in Linux perf: an evsel is one event; an evlist (evlist.h) is the
 * set opened together on one child.
 */
#ifndef PG_COUNTERS_EVSEL_H
#define PG_COUNTERS_EVSEL_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct pg_evsel {
    char name[96];          /* as stored: shared metric name ("instructions") or the user's string */
    char pfm_name[160];     /* fully qualified name libpfm4 resolved it to, e.g. "perf::INSTRUCTIONS" */
    char unit[16];          /* "count" or "ns" (task-clock) */
    struct perf_event_attr attr;
    int is_hardware;        /* counts on the PMU (not a kernel software event) */
    int fd;                 /* -1 when not open */
    int open_errno;         /* errno of the failed open, 0 when it opened */
} pg_evsel;

/* Initializes libpfm4 once per process (thread-safe). PG_ENOTSUP when it cannot. */
int pg_pfm_init(void);

/* Encodes `name` with pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT) into
 * `ev->attr`. Accepts every name libpfm4 accepts plus perfgate's shared metric
 * names ("instructions", "cycles", "cache-misses", "branch-misses", "task-clock",
 * "page-faults", "context-switches", "cpu-migrations"). `user_only` sets
 * exclude_kernel/exclude_hv. An unknown name returns PG_ENOTFOUND with a message
 * that suggests the closest known names ("did you mean ...?"). */
int pg_evsel_init(pg_evsel *ev, const char *name, int user_only);

/* The same, always through libpfm4. pg_evsel_init encodes perf's generic
 * events (pg_evsel_generic_name(i), i = 0.. until NULL) from a table of its
 * own, identical to what libpfm4 gives, so that most runs never pay for
 * pfm_initialize. */
int pg_evsel_init_pfm(pg_evsel *ev, const char *name, int user_only);
const char *pg_evsel_generic_name(size_t i);

/* libpfm4's default PMU for this CPU ("amd64_fam17h_zen2"), "" when none. */
void pg_pfm_default_pmu(char *out, size_t len);

/* perf's scaling of a multiplexed count: value * enabled / running, and the running
 * fraction running/enabled. running == 0 (never scheduled) gives value 0 and
 * fraction 0, which callers must report as "not counted", never as a zero. */
void pg_evsel_scale(uint64_t raw, uint64_t enabled, uint64_t running,
                    double *scaled, double *fraction);

/* Plain-words explanation of why opening a hardware event failed with `err`,
 * with the fix: ENOENT/EOPNOTSUPP (no PMU, VM without vPMU), EACCES/EPERM
 * (perf_event_paranoid = N, with the sysctl to change it), EBUSY (counter in use). */
const char *pg_evsel_strerror(int err, char *buf, size_t len);

#endif
