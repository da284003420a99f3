/* harness/measure/launch.h — what the launcher (launch/perfgate-launch.c) and the
 * spawner (harness/measure/spawn.c) say to each other.
 *
 * Why a launcher: a forked child starts with a copy of its parent's memory,
 * and the kernel's peak resident set of a process (getrusage's ru_maxrss)
 * counts it from the fork on, across exec. A benchmark forked by perfgate
 * would count perfgate's own memory (its documents, its caches) in max-rss.
 * So the child perfgate forks execs the launcher first, a small program,
 * which forks the benchmark: the benchmark starts from the launcher's few
 * pages, and its max-rss is its own. The launcher reports on the spawner's
 * error pipe, as messages of two ints (a kind and a value):
 *   {PG_LAUNCH_READY, pid}  the benchmark's process is forked and held before
 *                           exec: counters attach to `pid`, then the go pipe
 *                           releases it (said by that process itself, which
 *                           on x86-64 shares the launcher's memory until its
 *                           exec: the launcher sleeps until then);
 *   {stage, errno}          it could not exec (the spawner's stages);
 *   {PG_LAUNCH_DONE, wait status} followed by the benchmark's struct rusage,
 *                           when it was reaped.
 * The launcher then exits 0; the spawner takes the status and usage from the
 * message.
 */
#ifndef PG_HARNESS_LAUNCH_H
#define PG_HARNESS_LAUNCH_H

#include <sys/resource.h>

#define PG_LAUNCH_NAME "perfgate-launch"

enum { PG_LAUNCH_READY = 0, PG_LAUNCH_EXEC = 4, PG_LAUNCH_DONE = 16 };

typedef struct pg_launch_done {
    int kind, status;       /* PG_LAUNCH_DONE and wait(2)'s status */
    struct rusage ru;
} pg_launch_done;

#endif
