/* counters/backend_ops.h — what one backend implements: its properties and
 * a table of functions, as libgit2's git_odb_backend, and the types its
 * callers share with it. backend.c is the registry (the table of tables),
 * --backend auto's choice (a loop over it in falling priority, each table's
 * probe saying whether it works here), the words said of backends elsewhere
 * (pg_backend_expand, pg_backend_events, pg_backend_env_keep) and the thin
 * dispatcher behind pg_meter_* (backend.h); stackrec.c dispatches
 * pg_stackrec_* (stackrec.h); backend_perf.c and backend_valgrind.c each
 * fill one table.
 *
 * Adding a backend takes three files, all in counters/: its own
 * backend_<name>.c, filling one table (props, priority, probe, its meter and
 * recorder structs, each embedding the shared one first, and their sizes,
 * the hooks); its kind and its table's extern below (two lines); its row in
 * backend.c's registry (one line). Nothing outside counters/ names it
 * (tests/lint/backend_names.py): help texts, notes, the environment kept
 * and its own counters' names come from its table.
 *
 * Callers outside counters/ include backend.h or stackrec.h, never this
 * file, and see the meter and the recorder only as opaque types. A
 * backend's state is its own struct (typedef struct { pg_meter parent; ... }
 * perf_meter;) allocated zeroed at its table's meter_size/rec_size; the
 * shared part (below) holds only what the dispatchers use. This header
 * includes no dispatcher's, so that the dispatchers sit above the backends
 * (tests/lint/include_cycles.py). */
#ifndef PG_COUNTERS_BACKEND_OPS_H
#define PG_COUNTERS_BACKEND_OPS_H

#include "counters/control.h"
#include "counters/probe.h"
#include "counters/profile.h"
#include "counters/readings.h"
#include "counters/sampler.h"
#include "util/folded.h"
#include "util/metrics.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- the types backend.h and stackrec.h give their callers ---- */

typedef enum pg_backend_kind {
    PG_BACKEND_AUTO = 0,
    PG_BACKEND_PERF,        /* perf_event: hardware counters when there is a PMU, software events always */
    PG_BACKEND_VALGRIND,    /* cachegrind: exact instructions, simulated caches and branches */
    PG_BACKEND_DHAT,        /* valgrind's DHAT: exact heap allocations, bytes, peak */
} pg_backend_kind;

/* What a backend's measurements are, for everyone who reads or plans them.
 * Outside counters/ nothing tests a backend's name or kind: it asks these
 * (tests/lint/backend_names.py keeps it so). */
typedef struct pg_backend_props {
    const char *name;
    pg_backend_kind kind;
    int exact;              /* its counts (unit "count") are the same on every run: a
                             * threshold alone decides them, and two different values of
                             * one commit are a finding, never pooled */
    int simulated;          /* it runs the program on a model: its times are not the
                             * program's, and its caches and branches are the model's */
    int native_time;        /* time metrics come from native runs beside its own */
    int takes_events;       /* -e EVENT applies to it */
    int max_rss;            /* its measured runs give the program's max-rss */
    int native;             /* it measures the program as it runs on the machine: the backend
                             * of native time beside a simulated one, and of sampled stacks
                             * (pg_backend_native: the first so in the registry) */
    const char *stacks_unit;/* what a stack's count is: "instructions", "samples" */
    const char *stacks_metric;  /* with exact counts: the metric its stacks add up to ("instructions"), or NULL */
    const char *const *events;  /* its own counters beside the shared metrics (NULL-terminated; NULL:
                                 * none): stored, shown with -v only, known to --gate and the manifest */
    const char *const *env_keep;/* environment variables its tools need kept in a measured
                                 * process's fixed environment (NULL-terminated; NULL: none) */
    int repeat, warmup;     /* default measured and unmeasured runs per benchmark */
    const char *chosen_why; /* said when --backend auto chose it, or NULL */
    const char *gives;      /* what its measurements are, in a few words ("exact instruction
                             * counts, simulated caches"), for notes and doctor */
    const char *const *metrics;  /* the registry metrics only it gives, NULL-terminated: asked for
                             * beside another backend, it measures them in a series of its own
                             * (pg_backend_giving); NULL: none */
} pg_backend_props;

typedef void pg_doctor_line(void *ctx, const char *label, int ok, const char *detail);

typedef struct pg_meter pg_meter;

typedef struct pg_meter_opts {
    pg_backend_kind backend;    /* PERF or VALGRIND: already chosen */
    const char *events;         /* perf: comma list, NULL for the defaults */
    int user_only;              /* perf: exclude kernel and hypervisor */
} pg_meter_opts;

/* What one benchmark asks of the meter (docs/markers.md). */
typedef struct pg_meter_target {
    const char *exe;            /* the program exec runs (argv[0] found on PATH) */
    int regions;                /* -1: when the program carries perfgate's marker note; 0 or 1: as told */
    const char *calls;          /* comma-separated functions whose calls are counted ("calls:<fn>"), or NULL */
    const char *ld_library_path;/* the benchmark's LD_LIBRARY_PATH, for finding those functions */
} pg_meter_target;

typedef struct pg_stackrec_opts {
    pg_backend_kind backend;    /* PERF or VALGRIND */
    pg_sampler_opts sampler;    /* perf: how to sample (flush_bytes: 0 is 64 MiB; pinned_cpu: per run) */
} pg_stackrec_opts;

/* What the last run's recording saw (perf; zero with valgrind). */
typedef struct pg_stackrec_stats {
    pg_sampler_stats sampler;   /* samples kept, lost, dropped */
    pg_profile_stats profile;   /* stacks built, truncated */
    char event[96];             /* what was sampled ("cpu-clock") */
    char notice[256];           /* fallback note ("no hardware cycle counter ..."), or "" */
    double unwind_ns;           /* time spent unwinding and symbolizing after the run */
    uint64_t early;             /* stacks unwound before the run ended (flush_bytes passed) */
    double iterations;          /* a timed region's stacks (pg_stackrec_timed): the iterations they hold; 0: none */
} pg_stackrec_stats;

typedef struct pg_stackrec pg_stackrec;

/* ---- what a backend fills ---- */

/* The shared part of a meter: what the dispatcher (backend.c) uses. A
 * backend's own state is in a struct of its own that embeds this one first
 * (typedef struct { pg_meter parent; ... } perf_meter;), allocated zeroed
 * at ops->meter_size by pg_meter_new. */
struct pg_meter {
    const struct pg_backend_ops *ops;
    /* the current benchmark's target, set before ops->target */
    int regions;
    int marked;                 /* the program carries the marker note */
    char **calls;               /* function names, NULL-terminated */
    size_t ncalls;
    /* the region channel with a marked program: served by the dispatcher
     * (pg_meter_readable), opened by a backend that switches counters
     * from outside the child (ops->enable) */
    pg_control ctl;
    int ctl_failed;             /* an enable/disable failed: the run's counts are void */
    char ctl_err[512];
    char version[96];           /* pg_meter_version, filled by ops->meter_open */
};

/* The shared part of a recorder (stackrec.c), embedded first by each
 * backend's own (allocated zeroed at ops->rec_size by pg_stackrec_new). */
struct pg_stackrec {
    const struct pg_backend_ops *ops;
    pg_stackrec_opts o;
    pg_folded *out;             /* the current run's stacks */
    int timed;                  /* a Google Benchmark: only its timed region (pg_stackrec_timed) */
};

typedef struct pg_backend_ops {
    pg_backend_props props;
    /* --backend auto tries the backends in falling priority: the first that
     * works fully wins, else the first that works in part; 0: never chosen
     * by auto, only by name */
    int priority;
    /* whether it can work here, into `out` (the facts of `p` it needs it
     * fills first, e.g. pg_probe_perf) */
    void (*probe)(pg_probe *p, pg_backend_fit *out);
    /* the size of its meter and recorder: each embeds the shared struct
     * first (typedef struct { pg_meter parent; ... } my_meter;), allocated
     * zeroed by the dispatchers */
    size_t meter_size, rec_size;
    /* pg_meter: set-up and release of the backend's part of the meter */
    int (*meter_open)(pg_meter *m, const pg_meter_opts *o);
    void (*meter_close)(pg_meter *m);
    /* a benchmark's target, once m->regions and m->calls are set */
    int (*target)(pg_meter *m, const pg_meter_target *t);
    /* the command to exec; gbench: a Google Benchmark suite printing its report */
    int (*wrap)(pg_meter *m, char ***out, char *const *argv, int gbench);
    int (*attach)(pg_meter *m, pid_t pid);
    /* a region command from the child's channel (NULL: it never opens one) */
    int (*enable)(pg_meter *m, int on);
    /* the run's own readings (wall-time and max-rss are the dispatcher's) */
    int (*collect)(pg_meter *m, pg_readings *out);
    int (*collect_gbench)(pg_meter *m, pg_readings *out, const char *report, size_t len);
    const char *(*geometry)(const pg_meter *m);
    /* optional (NULL: nothing to do, or none): the metrics the next runs
     * must produce (pg_meter_select); a process the runs since the target
     * counted that ran another program (pg_meter_others); the events it
     * could not count in the last run, one line per reason (pg_meter_unavailable) */
    void (*select)(pg_meter *m, pg_metric_set metrics);
    const char *(*others)(const pg_meter *m);
    const char *(*unavailable)(const pg_meter *m, size_t i);
    /* pg_stackrec */
    int (*rec_open)(pg_stackrec *r);
    void (*rec_close)(pg_stackrec *r);
    int (*rec_begin)(pg_stackrec *r, char ***argv_out, char *const *argv, int cpu);
    /* optional (NULL: nothing to attach, nothing to drain while it runs) */
    int (*rec_attach)(pg_stackrec *r, pid_t pid);
    size_t (*rec_pollfds)(pg_stackrec *r, int *fds, size_t max);
    int (*rec_readable)(pg_stackrec *r);
    void (*rec_reset)(pg_stackrec *r);     /* the end of one recording run: what it held released */
    int (*rec_end)(pg_stackrec *r, int ran, pg_stackrec_stats *stats);
    int (*rec_collect_timed)(pg_stackrec *r, pg_folded *out, double *iterations, const char *report, size_t len);
    const char *stacks_note;    /* what is inexact about its stacks, for subtitles */
    /* perfgate doctor: its line, and the tools it needs beyond perf_event */
    void (*doctor)(const pg_probe *p, pg_doctor_line *line, void *ctx);
    void (*doctor_tools)(const pg_probe *p, pg_doctor_line *line, void *ctx);
    /* what auto's choice of it means on this machine */
    const char *(*choice_note)(const pg_probe *p);
} pg_backend_ops;

extern const pg_backend_ops pg_backend_perf_ops;
extern const pg_backend_ops pg_backend_valgrind_ops;
extern const pg_backend_ops pg_backend_dhat_ops;

/* The table of a chosen backend (NULL for AUTO). */
const pg_backend_ops *pg_backend_ops_of(pg_backend_kind k);


#endif
