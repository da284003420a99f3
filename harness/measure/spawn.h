/* harness/measure/spawn.h — run one child the way a measurement needs it.
 *
 * The child is forked, put in its own process group, pinned (sched_setaffinity),
 * has ASLR turned off (personality ADDR_NO_RANDOMIZE), stdin from /dev/null and
 * stdout/stderr captured through pipes into bounded logs; then, when a hook
 * attaches (hooks.attach), it WAITS before exec while the parent attaches
 * counters or samplers to its pid; else it execs at once, sharing perfgate's
 * memory until then where it can (harness/measure/contain.h).
 * The parent then releases it, and polls: the child's exit (pidfd), the timeout,
 * SIGINT, the log pipes and any fds the hooks want watched (sampler ring buffers).
 * On timeout or SIGINT every process of the run is killed, and when the child
 * has exited whatever it left running (a daemonized grandchild, even one that
 * left the process group with setsid()) is killed too: harness/measure/contain.h says how.
 */
#ifndef PG_HARNESS_SPAWN_H
#define PG_HARNESS_SPAWN_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

typedef struct pg_spawn_hooks {
    void *ctx;
    /* Parent side, child stopped before exec. Non-zero aborts the run (child killed). */
    int (*attach)(void *ctx, pid_t pid);
    /* fds to poll while the child runs (e.g. sampler ring buffers). */
    size_t (*pollfds)(void *ctx, int *fds, size_t max);
    /* Called when any of those fds is readable, and once more after the child exited. */
    int (*readable)(void *ctx);
} pg_spawn_hooks;

typedef struct pg_spawn_opts {
    char *const *argv;          /* argv[0] is looked up in PATH when it has no '/' */
    const char *cwd;            /* NULL: inherit */
    const char *tree;           /* the tree `cwd` (NULL: perfgate's) is in, PG_CANON_OWN_CWD for none: the
                                   child runs in it at PG_CANON_TREE (harness/measure/canon.h)
                                   where it can; NULL: as is */
    char *const *envp;          /* NULL: inherit environ */
    int cpu;                    /* CPU to pin to, -1: do not pin */
    int aslr_off;               /* personality(ADDR_NO_RANDOMIZE) */
    double timeout_sec;         /* <= 0: none */
    size_t log_cap;             /* bytes kept of each of stdout/stderr (head and tail); 0: 64 KiB */
    int quiet_stdout;           /* discard stdout entirely (to /dev/null) */
    int stdout_to_stderr;       /* stdout into the stderr log, interleaved as written (a build's) */
    int own_rss;                /* fork the program from the launcher (harness/measure/launch.h), so that its
                                   max-rss is its own, not perfgate's: where max-rss is measured */
    const pg_spawn_hooks *hooks;/* may be NULL */
    const int *keep_fds;        /* perfgate's fds the program keeps open across exec */
    size_t nkeep;
} pg_spawn_opts;

typedef struct pg_spawn_result {
    int started;                /* exec succeeded */
    int exit_code;              /* valid when signal == 0 and !timed_out */
    int signal;                 /* terminating signal, 0 when it exited */
    int timed_out;
    int interrupted;            /* SIGINT reached perfgate while it ran */
    int exec_errno;             /* exec failed with this errno */
    double wall_ns;             /* release to exit */
    struct rusage ru;           /* of the child and its reaped descendants */
    char *out_log;              /* captured stdout (bounded; head + "..." + tail), malloc'd */
    int out_cut;                /* stdout was longer than the bound: out_log is not all of it */
    size_t out_len;
    char *err_log;              /* captured stderr, same */
    size_t err_len;
} pg_spawn_result;

/* Runs the child to completion. Returns 0 when the run happened (whatever the
 * child's fate: look at the result), negative when it could not (fork failed,
 * hook failed). Free the result's logs with pg_spawn_result_free. */
int pg_spawn_run(pg_spawn_result *res, const pg_spawn_opts *opts);
void pg_spawn_result_free(pg_spawn_result *res);

/* Installs perfgate's SIGINT/SIGTERM handler (once); pg_spawn_interrupted() tells
 * whether one arrived. Runs stop cleanly rather than dying mid-write. */
void pg_spawn_install_sigint(void);
int pg_spawn_interrupted(void);

/* The last `max` bytes of a log, starting at a line boundary when there is one. */
const char *pg_spawn_tail(const char *log, size_t len, size_t max);

#endif
