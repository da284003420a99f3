/* harness/measure/build.c — see build.h. */
#include "harness/measure/build.h"
#include "harness/measure/spawn.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/text.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What of a build's output is kept: its head and its tail, as for a benchmark. */
#define BUILD_LOG_CAP (4u << 20)
/* What of it is shown when it fails. */
#define BUILD_TAIL 2000

double pg_build_timeout(double cli, double manifest)
{
    return cli > 0 ? cli : manifest > 0 ? manifest : PG_BUILD_TIMEOUT;
}

/* A new log file in $TMPDIR, into `path`. */
static int temp_log(char *path, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(path, len, "%s/perfgate-build-%d-XXXXXX", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    int fd = mkstemp(path);
    if (fd < 0)
        return pg_error_errno(PG_EIO, "cannot create a log for the build in %s", tmp && *tmp ? tmp : "/tmp");
    close(fd);
    return 0;
}

static int write_log(const char *path, const char *shown, const char *dir, const pg_spawn_result *res)
{
    size_t n = strlen(shown) + (dir ? strlen(dir) : 0) + 64;
    char *head = malloc(n);
    if (!head)
        return pg_error_set(PG_ENOMEM, "out of memory");
    snprintf(head, n, "$ %s\n(in %s)\n", shown, dir ? dir : ".");
    size_t hl = strlen(head), ll = res->err_len;
    char *all = malloc(hl + ll + 1);
    int rc = all ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    if (rc == 0) {
        memcpy(all, head, hl);
        if (ll)
            memcpy(all + hl, res->err_log, ll);
        rc = pg_file_write_atomic(path, all, hl + ll);
    }
    free(all);
    free(head);
    return rc;
}

int pg_build_exec(char **out, size_t *out_len, size_t out_cap, const pg_build *b, char *const *argv, const char *what,
                  const char *shown, const char *log)
{
    char path[PATH_MAX];
    int rc = 0;
    if (log) {
        snprintf(path, sizeof path, "%s", log);
        char dir[PATH_MAX];
        pg_path_dirname(dir, sizeof dir, path);
        rc = pg_mkdirs(dir);
    } else {
        rc = temp_log(path, sizeof path);
    }
    if (rc < 0)
        return rc;
    double timeout = b->timeout > 0 ? b->timeout : PG_BUILD_TIMEOUT;
    pg_text_warn("building: %s (log: %s)", shown, path);
    /* The user's own environment: a build needs its compilers' settings. */
    pg_spawn_opts so = {.argv = argv, .cwd = b->dir, .cpu = -1, .timeout_sec = timeout,
                        .log_cap = out ? out_cap : BUILD_LOG_CAP, .stdout_to_stderr = !out};
    pg_spawn_result res;
    if ((rc = pg_spawn_run(&res, &so)) < 0)
        return pg_error_wrap(rc, "cannot run %s", what);
    if ((rc = write_log(path, shown, b->dir, &res)) < 0)
        pg_text_warn("warning: the build's log could not be written: %s", pg_error_last());
    int ok = res.started && !res.timed_out && !res.signal && res.exit_code == 0;
    if (res.interrupted) {
        rc = pg_error_set(PG_EINTR, "interrupted during the build");
    } else if (!ok) {
        /* What went wrong is at the end of the output: that much on stderr. */
        const char *tail = pg_spawn_tail(res.err_log ? res.err_log : "", res.err_len, BUILD_TAIL);
        if (*tail)
            fprintf(stderr, "%s%s", tail, tail[strlen(tail) - 1] == '\n' ? "" : "\n");
        if (res.timed_out)
            rc = pg_error_set(PG_ERROR, "%s timed out after %g s (--build-timeout, or "
                              "\"build_timeout\" in the manifest); everything it started was killed: %s (log: %s)",
                              what, timeout, shown, path);
        else if (!res.started)
            rc = pg_error_set(PG_ERROR, "%s could not start in %s: %s", what, b->dir ? b->dir : ".", shown);
        else
            rc = pg_error_set(PG_ERROR, "%s failed (%s %d): %s (log: %s)", what,
                              res.signal ? "signal" : "exit status", res.signal ? res.signal : res.exit_code, shown,
                              path);
    } else if (out && res.out_cut) {
        rc = pg_error_set(PG_ERROR, "%s printed more than %zu MiB on stdout: %s (log: %s)", what, out_cap >> 20, shown,
                          path);
    } else if (out) {
        *out = res.out_log ? res.out_log : strdup("");
        *out_len = res.out_log ? res.out_len : 0;
        res.out_log = NULL;
        if (!*out)
            rc = pg_error_set(PG_ENOMEM, "out of memory");
    }
    pg_spawn_result_free(&res);
    return rc;
}

int pg_build_run(const pg_build *b)
{
    char *argv[] = {"/bin/sh", "-c", (char *)b->cmd, NULL};
    return pg_build_exec(NULL, NULL, 0, b, argv, "the manifest's build command", b->cmd, b->log);
}
