/* harness/measure/build.h — the manifest's build command, contained and timed.
 *
 * `run`, `compare --run-missing`, `bisect` and `calibrate` run the
 * manifest's "build" (`sh -c CMD`) before measuring. It is code from the
 * repository, as untrusted as a benchmark, so it runs as a benchmark does
 * (harness/measure/spawn.h, harness/measure/contain.h): in its own process group and cgroup,
 * dying with perfgate, and when it ends nothing it started is left running
 * (a daemon, a forgotten background job). It has a timeout: --build-timeout,
 * else the manifest's "build_timeout", else PG_BUILD_TIMEOUT; at the
 * timeout everything it started is killed.
 *
 * Quiet by default: stderr gets one line per build ("building: CMD (log:
 * PATH)"); the build's output, stdout and stderr as written, goes to the
 * log file, and only when the build fails does its tail come to stderr.
 */
#ifndef PG_HARNESS_BUILD_H
#define PG_HARNESS_BUILD_H

#include <stddef.h>

#define PG_BUILD_TIMEOUT 1800.0     /* seconds: half an hour */

typedef struct pg_build {
    const char *cmd;        /* the manifest's "build"; NULL: none */
    const char *dir;        /* where it runs (a work tree root, a checkout) */
    int checkout;           /* `dir` is a revision's temporary checkout: what cargo builds stays in it */
    double timeout;         /* seconds; <= 0: PG_BUILD_TIMEOUT */
    const char *log;        /* where its output goes; NULL: a new file in $TMPDIR (kept) */
} pg_build;

/* Runs the build command. 0 when it exited 0; else PG_ERROR naming the exit status
 * or signal, the timeout (with the options that set it) or the log, after
 * the log's last lines went to stderr; PG_EINTR when interrupted. */
int pg_build_run(const pg_build *b);

/* Runs argv, a build step, as pg_build_run runs the command: in b->dir with
 * b's timeout, its output in the log `log` (NULL: a new file in $TMPDIR).
 * `shown` is the command line stderr's "building:" line and the log show;
 * `what` names it in errors ("cargo failed (exit status 101): ..."). With
 * `out`, its stdout is returned there (out_len bytes, NUL-terminated; more
 * than `out_cap` bytes is an error) and only stderr is logged. */
int pg_build_exec(char **out, size_t *out_len, size_t out_cap, const pg_build *b, char *const *argv, const char *what,
                  const char *shown, const char *log);

/* The timeout a build gets: `cli` (--build-timeout) when > 0, else
 * `manifest` ("build_timeout") when > 0, else PG_BUILD_TIMEOUT. */
double pg_build_timeout(double cli, double manifest);

#endif
