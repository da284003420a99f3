/* harness/measure/contain.h — a benchmark's processes stay under perfgate's control.
 *
 * A benchmark may fork, and a child may leave the process group with setsid()
 * (a daemon): a kill of the group misses it. Each run is therefore contained by
 * every means the machine allows, so that nothing of it outlives the run, or
 * perfgate, even when perfgate is SIGKILLed:
 *   - its own process group, so the timeout's SIGTERM reaches the usual tree;
 *   - PR_SET_PDEATHSIG(SIGKILL) in the benchmark's first process: it dies with
 *     perfgate (checked against the race of perfgate dying before it was set);
 *   - a cgroup v2 of its own where perfgate may create one (root, or a
 *     delegated subtree): no descendant can leave it, whatever it does with
 *     sessions, and the run ends with cgroup.kill;
 *   - PR_SET_CHILD_SUBREAPER on perfgate while the run lasts: a descendant
 *     whose parent dies is re-parented to perfgate rather than to init, so a
 *     sweep of perfgate's descendants after the run finds and kills it. This
 *     needs no privilege, so it is what contains runs where no cgroup can be made;
 *   - a watchdog process, started once (the launcher in its watch mode,
 *     harness/measure/watchdog.h; a fork of perfgate where there is none),
 *     which outlives a SIGKILLed perfgate just long enough to kill the run
 *     in progress (its cgroup and process group).
 * A cgroup whose perfgate died together with its watchdog (a kill of the whole
 * session) is named perfgate-<pid>-<n>: the next perfgate that runs a
 * benchmark kills what is in it and removes it. PERFGATE_NO_CGROUP=1 makes
 * perfgate do without the cgroup, as where none can be made (tests use it).
 */
#ifndef PG_HARNESS_CONTAIN_H
#define PG_HARNESS_CONTAIN_H

#include <stddef.h>
#include <sys/types.h>

typedef struct pg_contain {
    pid_t pid;              /* the run's first process and process group; 0 before adopt */
    char cgroup[512];       /* the run's cgroup directory, "" when none */
    int born_inside;        /* pg_contain_spawn started the child in it: nothing to move */
    int shared;             /* pg_contain_spawn's child shared perfgate's memory until its exec */
} pg_contain;

/* What the first run needs once: where cgroups can be made, and the watchdog.
 * Done by the first pg_contain_begin; earlier when the caller has other work
 * waiting on another thread meanwhile. */
void pg_contain_prepare(void);

/* Parent, before fork: makes the run's cgroup when the machine allows, and
 * makes perfgate the subreaper of what it forks. Never fails: what cannot be
 * had here is done without. */
void pg_contain_begin(pg_contain *c);

/* The child's side of pg_contain_spawn: it execs or _exits, never returns.
 * `shared`: it runs in perfgate's memory, with perfgate's thread stopped
 * until it execs (so it must not wait for its parent, and writes nothing
 * that is perfgate's); else in a copy, as after fork. Either way it may
 * allocate nothing (no fork handlers ran). */
typedef void pg_contain_fn(void *arg, int shared);

/* Starts fn(arg) in a new process, born inside the run's cgroup where the
 * kernel can (clone3 with CLONE_INTO_CGROUP, Linux 5.7): moving a running
 * process into a cgroup (a write to cgroup.procs) waits for the whole
 * system's RCU grace period, some milliseconds on every run, while a birth
 * inside costs nothing more. With `may_share`, where it can (x86-64, clone3),
 * the child shares perfgate's memory until its exec, as posix_spawn's does:
 * no copy of perfgate's page tables, and none of the copy-on-write faults
 * perfgate would take after a fork, on every run; c->shared says so. Else a
 * plain fork, and pg_contain_adopt moves the child. The pid, or -1 with errno. */
pid_t pg_contain_spawn(pg_contain *c, pg_contain_fn *fn, void *arg, int may_share);

/* Child, right after fork (async-signal-safe): its own process group, and
 * death with `parent`; every descriptor past 0..2 close-on-exec (the caller
 * clears the flag on those it hands on). Exits the child at once when
 * `parent` already died. */
void pg_contain_child(pid_t parent);

/* The directory the measured processes may read but not write: the result
 * store, which a benchmark (the code under test) could otherwise rewrite.
 * Where a measured process gets a mount namespace of its own (its tree at
 * PG_CANON_TREE: canon.c, pg_canon_enter; as root, or not in a user
 * namespace of its own), pg_contain_protect_apply, called in the child
 * inside that namespace before the tree is bind-mounted, binds it read-only
 * over itself, so the tree's view of it is read-only too. Without such a
 * namespace nothing is done: docs/processes.md says what remains. `dir` NULL: none; one that does not exist when a child starts is
 * skipped. */
void pg_contain_protect(const char *dir);
/* 0 when done (or nothing to do), -1 with errno. Async-signal-safe. */
int pg_contain_protect_apply(void);

/* Parent, the child held before exec: puts it into the run's cgroup (unless
 * it was born there) and tells the watchdog what to kill should perfgate die. */
void pg_contain_adopt(pg_contain *c, pid_t pid);

/* Sends `sig` to every process of the run. */
void pg_contain_signal(const pg_contain *c, int sig);

/* After the first process was reaped: kills and reaps whatever of the run is
 * left, removes its cgroup, stops being a subreaper. Returns how many
 * processes it killed (daemons the benchmark left). */
int pg_contain_end(pg_contain *c);

/* 1 when runs get a cgroup here (detail: where they are made), 0 when not
 * (detail: why), for `perfgate doctor`. */
int pg_contain_cgroup(char *detail, size_t len);

#endif
