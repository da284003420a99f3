/* Spawning: exit codes, signals, timeouts that kill the whole group, bounded
 * logs, pinning, ASLR off, stdin from /dev/null, and a hook that sees the
 * child before it execs. */
#include "harness/measure/spawn.h"
#include "tests/check.h"

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static int run_sh(pg_spawn_result *r, const char *script, double timeout, int cpu)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    pg_spawn_opts o = {.argv = argv, .cpu = cpu, .aslr_off = 1, .timeout_sec = timeout, .log_cap = 1000};
    return pg_spawn_run(r, &o);
}

/* Gone, or a zombie waiting for a reaper that is not us. */
static int alive(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static pid_t seen;
static int attach(void *ctx, pid_t pid)
{
    (void)ctx;
    seen = pid;
    return 0;
}

int main(void)
{
    pg_spawn_result r;
    CHECK_EQ_INT(run_sh(&r, "echo out; echo err >&2; exit 7", 0, -1), 0);
    CHECK(r.started);
    CHECK_EQ_INT(r.exit_code, 7);
    CHECK_EQ_INT(r.signal, 0);
    CHECK_STR(r.out_log, "out\n");
    CHECK_STR(r.err_log, "err\n");
    CHECK(r.wall_ns > 0);
    pg_spawn_result_free(&r);

    CHECK_EQ_INT(run_sh(&r, "kill -SEGV $$", 0, -1), 0);
    CHECK_EQ_INT(r.signal, SIGSEGV);
    pg_spawn_result_free(&r);

    /* stdin is /dev/null: read gets EOF at once rather than waiting. */
    CHECK_EQ_INT(run_sh(&r, "cat; echo done", 5, -1), 0);
    CHECK_STR(r.out_log, "done\n");
    CHECK(!r.timed_out);
    pg_spawn_result_free(&r);

    /* Timeout kills the group: the background sleeper must die too. */
    CHECK_EQ_INT(run_sh(&r, "sleep 1000 & echo $! ; wait", 0.3, -1), 0);
    CHECK(r.timed_out);
    int bg = atoi(r.out_log);
    CHECK(bg > 0);
    usleep(100000);
    CHECK(bg > 0 && !alive(bg));
    pg_spawn_result_free(&r);

    /* Logs are bounded: head and tail kept, the middle counted. */
    CHECK_EQ_INT(run_sh(&r, "i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done", 0, -1), 0);
    CHECK(r.out_len < 1100);
    CHECK(strncmp(r.out_log, "line0\n", 6) == 0);
    CHECK_CONTAINS(r.out_log, "bytes omitted");
    CHECK_CONTAINS(r.out_log, "line1999\n");
    CHECK_STR(pg_spawn_tail(r.out_log, r.out_len, 20), "line1998\nline1999\n");
    pg_spawn_result_free(&r);

    /* Pinned: the child's affinity is exactly the CPU asked for. */
    CHECK_EQ_INT(run_sh(&r, "grep Cpus_allowed_list /proc/self/status", 0, 0), 0);
    CHECK_CONTAINS(r.out_log, "Cpus_allowed_list:\t0\n");
    pg_spawn_result_free(&r);

    /* ASLR off: personality flag 0x0040000 is set in the child. */
    CHECK_EQ_INT(run_sh(&r, "cat /proc/self/personality", 0, -1), 0);
    CHECK(r.out_log && (strtoul(r.out_log, NULL, 16) & 0x0040000));
    pg_spawn_result_free(&r);

    /* A daemon that left the process group (setsid) is gone when the run is
     * over, after a clean exit and after a timeout kill. */
    for (int timed = 0; timed < 2; timed++) {
        CHECK_EQ_INT(run_sh(&r, timed ? "setsid sleep 1000 & echo $!; wait" : "setsid sleep 1000 & echo $!",
                            timed ? 0.5 : 0, -1), 0);
        pid_t daemon = r.out_log ? (pid_t)atoi(r.out_log) : 0;
        CHECK(daemon > 0);
        CHECK_EQ_INT(r.timed_out, timed);
        CHECK(!alive(daemon));
        pg_spawn_result_free(&r);
    }

    /* A missing program: not started, errno kept, message in the log. */
    char *argv[] = {"/nonexistent/prog", NULL};
    pg_spawn_hooks h = {.attach = attach};
    pg_spawn_opts o = {.argv = argv, .cpu = -1, .hooks = &h};
    CHECK_EQ_INT(pg_spawn_run(&r, &o), 0);
    CHECK(!r.started);
    CHECK_EQ_INT(r.exec_errno, 2);
    CHECK_CONTAINS(r.err_log, "cannot execute /nonexistent/prog");
    CHECK(seen > 0);
    pg_spawn_result_free(&r);

    return pg_check_done();
}
