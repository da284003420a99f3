/* counters/backend_ops.h — what one backend implements: its properties and
 * a table of functions, as libgit2's git_odb_backend, and the types its
 * callers share with it. backend.c is the registry (the table of tables) and
 * the thin dispatcher behind pg_meter_* (backend.h); stackrec.c dispatches
 * pg_stackrec_* (stackrec.h); backend_perf.c and backend_valgrind.c each
 * fill one table. Adding a backend is one more file filling one more table,
 * its row in backend.c's registry and its kind below.
 *
 * Callers outside counters/ include backend.h or stackrec.h, never this
 * file, and see the meter and the recorder only as opaque types: their
 * state (below) is shared by the dispatchers and the backends, each backend
 * keeping what it needs in it. This header includes no dispatcher's, so
 * that the dispatchers sit above the backends (tests/lint/include_cycles.py). */
#ifndef PG_COUNTERS_BACKEND_OPS_H
#define PG_COUNTERS_BACKEND_OPS_H

#include "counters/control.h"
#include "counters/evlist.h"
#include "counters/probe.h"
#include "counters/profile.h"
#include "counters/readings.h"
#include "counters/sampler.h"
#include "counters/valgrind.h"
#include "util/folded.h"
#include "util/owned_dir.h"

#include <pthread.h>
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
    const char *stacks_unit;/* what a stack's count is: "instructions", "samples" */
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

struct pg_meter {
    const struct pg_backend_ops *ops;
    pg_evlist *evlist;          /* perf */
    pg_valgrind *vg;            /* valgrind */
    pg_owned_dir outdir;        /* valgrind: its tools' output, swept if perfgate is killed */
    char **wrapped;             /* valgrind: the command of the current run */
    char others[512];           /* valgrind: pg_meter_others, "" when none */
    unsigned sims;              /* valgrind: PG_VALGRIND_*_SIM of the next runs */
    /* the current benchmark's target */
    int regions;
    int marked;                 /* the program carries the marker note */
    char **calls;               /* function names, NULL-terminated */
    size_t ncalls;
    pg_control ctl;             /* perf with regions: the channel of the current run */
    int ctl_failed;             /* an enable/disable failed: the run's counts are void */
    char ctl_err[512];
    char version[96];
    char unav[8][640];          /* perf: pg_meter_unavailable's lines */
    size_t nunav;
};

/* The thread that unwinds a perf recording's samples while it runs (backend_perf.c). */
typedef struct pg_stackrec_unwinder {
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pg_sampler_batch *todo;     /* handed to the thread */
    pg_sampler_batch *done;     /* replayed, for the poll loop to release */
    int stop;
    int rc;                     /* the first error of a replay, its message in err */
    char err[512];
} pg_stackrec_unwinder;

struct pg_stackrec {
    const struct pg_backend_ops *ops;
    pg_stackrec_opts o;
    pg_folded *out;             /* the current run's stacks */
    int timed;                  /* a Google Benchmark: only its timed region (pg_stackrec_timed) */
    /* valgrind */
    pg_valgrind *vg;
    pg_owned_dir tmp;           /* callgrind's output directory: a killed perfgate's is swept by the next */
    char **argv;                /* the callgrind command of the current run */
    /* perf, per run */
    pg_sampler *s;
    pg_profile *p;
    int rc;                     /* the first error while the child ran */
    int rc_unwinder;            /* rc came from the unwinding thread (message in u.err) */
    pg_stackrec_unwinder u;
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
    /* pg_stackrec */
    int (*rec_open)(pg_stackrec *r);
    void (*rec_close)(pg_stackrec *r);
    int (*rec_begin)(pg_stackrec *r, char ***argv_out, char *const *argv, int cpu);
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
