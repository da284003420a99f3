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

#define PG_BUILD_TIMEOUT 1800.0     /* seconds: half an hour */

typedef struct pg_build {
    const char *cmd;        /* the manifest's "build" */
    const char *dir;        /* where it runs (a work tree root, a checkout) */
    double timeout;         /* seconds; <= 0: PG_BUILD_TIMEOUT */
    const char *log;        /* where its output goes; NULL: a new file in $TMPDIR (kept) */
} pg_build;

/* Runs the build. 0 when it exited 0; else PG_ERROR naming the exit status
 * or signal, the timeout (with the options that set it) or the log, after
 * the log's last lines went to stderr; PG_EINTR when interrupted. */
int pg_build_run(const pg_build *b);

/* The timeout a build gets: `cli` (--build-timeout) when > 0, else
 * `manifest` ("build_timeout") when > 0, else PG_BUILD_TIMEOUT. */
double pg_build_timeout(double cli, double manifest);

#endif
