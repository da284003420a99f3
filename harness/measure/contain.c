/* harness/measure/contain.c — see contain.h.
 *
 * The cgroup helpers below run in the watchdog too, a child forked from a
 * process that may have threads: they use system calls only (no malloc, no
 * stdio), which is all that is safe there. */
#include "harness/measure/contain.h"
#include "harness/measure/launcher.h"
#include "harness/measure/watchdog.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <linux/sched.h>    /* struct clone_args, CLONE_INTO_CGROUP */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>     /* memfd_create */
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The cgroup helpers are harness/measure/watchdog.h's, which the watchdog
 * program shares: system calls only. */
/* ---- where cgroups can be made: the cgroup v2 perfgate itself is in ---- */

static struct {
    int probed, usable;
    int made;               /* a cgroup was made here: usable for sure, and stale ones swept */
    char base[400];         /* <cgroup2 mount><perfgate's own cgroup> */
    char why[600];          /* why not usable */
    unsigned seq;
    int clone3;             /* children born inside their cgroup: 1 works, -1 not here, 0 not tried */
    int share;              /* children sharing perfgate's memory until exec: the same */
} cg;

/* perfgate's own cgroup v2 path ("0::/a/b" in /proc/self/cgroup) into out. */
static int own_cgroup(char *out, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    char line[1024];
    int rc = -1;
    while (rc < 0 && fgets(line, sizeof line, f))
        if (!strncmp(line, "0::", 3)) {
            line[strcspn(line, "\n")] = '\0';
            rc = snprintf(out, len, "%s", line + 3) < (int)len ? 0 : -1;
        }
    fclose(f);
    return rc;
}

/* The cgroup2 mount point and the hierarchy path at its root (mountinfo fields 5 and 4). */
static int cgroup2_mount(char *mnt, size_t mlen, char *root, size_t rlen)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -1;
    char line[4096];
    int rc = -1;
    while (rc < 0 && fgets(line, sizeof line, f)) {
        const char *dash = strstr(line, " - cgroup2 ");
        char r[1024], m[1024];
        if (dash && sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) == 2 &&
            snprintf(mnt, mlen, "%s", m) < (int)mlen && snprintf(root, rlen, "%s", r) < (int)rlen)
            rc = 0;
    }
    fclose(f);
    return rc;
}

static void sweep_stale_cgroups(void);

static void probe_cgroup(void)
{
    cg.probed = 1;
    const char *no = getenv("PERFGATE_NO_CGROUP");
    if (no && *no && strcmp(no, "0")) {
        /* to test (and use) the way it works where no cgroup can be made */
        snprintf(cg.why, sizeof cg.why, "PERFGATE_NO_CGROUP is set");
        return;
    }
    char own[512], mnt[256], root[512];
    snprintf(cg.why, sizeof cg.why, "no cgroup v2 hierarchy is mounted, or perfgate is not in one");
    if (own_cgroup(own, sizeof own) < 0 || cgroup2_mount(mnt, sizeof mnt, root, sizeof root) < 0)
        return;
    size_t rl = strlen(root);
    const char *rel = own;
    if (strcmp(root, "/")) {    /* the mount shows a subtree (a cgroup namespace's view) */
        if (strncmp(own, root, rl) || (own[rl] && own[rl] != '/'))
            return;
        rel = own + rl;
    }
    if (snprintf(cg.base, sizeof cg.base, "%s%s", mnt, strcmp(rel, "/") ? rel : "") >= (int)sizeof cg.base)
        return;
    cg.usable = 1;      /* until a cgroup cannot be made: the first run's is the trial (cg_made) */
}

/* Makes a cgroup in cg.base: whether it could, and the first time it did, the sweep of what killed perfgates left there (not before:
 * where perfgate may not write, their removal would only wait in vain). */
static int cg_made(const char *dir)
{
    if (mkdir(dir, 0755) < 0) {
        snprintf(cg.why, sizeof cg.why, "cannot create a cgroup in %s: %s (not root, and no delegated cgroup)",
                 cg.base, strerror(errno));
        cg.usable = 0;
        return 0;
    }
    if (!cg.made) {
        cg.made = 1;
        sweep_stale_cgroups();
    }
    return 1;
}

/* perfgate-<pid>-<n> cgroups whose perfgate is gone: what a killed perfgate's
 * run left when its watchdog died with it. */
static void sweep_stale_cgroups(void)
{
    DIR *d = opendir(cg.base);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        int owner = 0, used = 0;
        unsigned n;
        if (sscanf(e->d_name, "perfgate-%d-%u%n", &owner, &n, &used) != 2 || e->d_name[used] || owner <= 0)
            continue;
        if (owner == getpid() || kill(owner, 0) == 0 || errno != ESRCH)
            continue;
        char dir[700];
        snprintf(dir, sizeof dir, "%s/%s", cg.base, e->d_name);
        pg_watch_cg_remove(dir);
    }
    closedir(d);
}

/* ---- the watchdog (harness/measure/watchdog.h) ---- */

static int wd_pipe = -1, wd_state = -1, wd_started;
static pid_t wd_pid;

typedef struct wd_child {
    int pipe, state;        /* the pipe's read end, the state's memfd */
    int report;             /* exec's errno goes here when it fails (close-on-exec) */
    const char *via;        /* the launcher to exec, NULL: run the loop here (a fork) */
} wd_child;

/* The watchdog's process from its birth to its exec, or to its loop where
 * there is no launcher (then it is a fork: shared is 0). */
static void watchdog_child(void *arg, int shared)
{
    const wd_child *w = arg;
    setsid();       /* a kill of perfgate's process group or session must not take it too */
    static const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE};
    for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
        signal(ignored[i], SIG_IGN);    /* kept across exec */
    /* Its descriptors out of 0..4 first: perfgate may have started with a
     * standard stream closed, and the dup2s below would replace them. */
    int in = fcntl(w->pipe, F_DUPFD, 10), state = fcntl(w->state, F_DUPFD, 10);
    int report = w->via ? fcntl(w->report, F_DUPFD_CLOEXEC, 10) : -1;
    if (in < 0 || state < 0 || (w->via && report < 0))
        _exit(1);
    /* Hold none of perfgate's files: a pipe a caller waits on must close when perfgate exits. */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
    }
    if (dup2(in, PG_WATCH_FD) < 0 || dup2(state, PG_WATCH_STATE_FD) < 0)
        _exit(1);
    if (w->via) {
        /* All but 0..4 close at the exec (the report too: its EOF says the exec worked). */
        if (syscall(SYS_close_range, PG_WATCH_STATE_FD + 1u, ~0u, CLOSE_RANGE_CLOEXEC) < 0)
            for (int fd = PG_WATCH_STATE_FD + 1; fd < 4096; fd++)
                fcntl(fd, F_SETFD, FD_CLOEXEC);
        char *argv[] = {(char *)w->via, PG_WATCH_ARG, NULL}, *envp[] = {NULL};
        execve(w->via, argv, envp);
        int err = errno;
        ssize_t wr = write(report, &err, sizeof err);
        (void)wr;
        _exit(127);
    }
    (void)shared;
    if (syscall(SYS_close_range, PG_WATCH_STATE_FD + 1u, ~0u, 0u) < 0)
        for (int fd = PG_WATCH_STATE_FD + 1; fd < 4096; fd++)
            close(fd);
    pg_watch_loop();
}

/* Starts the watchdog: the launcher in its watch mode, started as a run's
 * child is (sharing perfgate's memory until its exec, where it can), else,
 * when there is none or it cannot be executed, a fork of perfgate. */
static pid_t watchdog_spawn(int in, int state)
{
    wd_child w = {in, state, -1, pg_launcher_path()};
    int rep[2];
    if (w.via && pipe2(rep, O_CLOEXEC) < 0)
        w.via = NULL;
    pg_contain none;
    memset(&none, 0, sizeof none);
    if (w.via) {
        w.report = rep[1];
        pid_t pid = pg_contain_spawn(&none, watchdog_child, &w, 1);
        close(rep[1]);
        int err;
        ssize_t r = pid > 0 ? read(rep[0], &err, sizeof err) : -1;
        while (r < 0 && pid > 0 && errno == EINTR)
            r = read(rep[0], &err, sizeof err);
        close(rep[0]);
        if (pid > 0 && r == 0)
            return pid;     /* exec'd: the report closed */
        if (pid > 0)
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        w.via = NULL;
    }
    return pg_contain_spawn(&none, watchdog_child, &w, 0);
}

/* At a normal exit, the watchdog is told (EOF) and waited for, so nothing of
 * perfgate is running once it has returned. */
static void watchdog_stop(void)
{
    if (wd_pipe < 0)
        return;
    close(wd_pipe);
    wd_pipe = -1;
    while (waitpid(wd_pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

static void watchdog_start(void)
{
    int p[2];
    pg_watch_msg none = {0};
    int state = memfd_create("perfgate-watch", MFD_CLOEXEC);
    if (state < 0 || pwrite(state, &none, sizeof none, 0) != (ssize_t)sizeof none || pipe2(p, O_CLOEXEC) < 0) {
        if (state >= 0)
            close(state);
        return;
    }
    fflush(NULL);
    pid_t pid = watchdog_spawn(p[0], state);
    close(p[0]);
    if (pid < 0) {
        close(p[1]);
        close(state);
        return;
    }
    wd_pipe = p[1];
    wd_state = state;
    wd_pid = pid;
    atexit(watchdog_stop);
}

/* The run the watchdog ends should perfgate die: written where it reads it
 * then, not sent, so that it sleeps through every run (a message woke it
 * twice a run). A write to a file is whole when perfgate dies after it. */
static void watchdog_tell(pid_t pgid, const char *cgroup)
{
    if (wd_state < 0)
        return;
    pg_watch_msg m = {.pgid = pgid};
    snprintf(m.cgroup, sizeof m.cgroup, "%s", cgroup);
    ssize_t w = pwrite(wd_state, &m, sizeof m, 0);
    (void)w;
}

/* ---- perfgate's descendants, from /proc (what the subreaper collected) ---- */

typedef struct proc_ent {
    pid_t pid, ppid;
    char state;
} proc_ent;

static size_t list_procs(proc_ent **out)
{
    *out = NULL;
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    size_t n = 0, cap = 0;
    proc_ent *v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t r = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (r <= 0)
            continue;
        buf[r] = '\0';
        const char *p = strrchr(buf, ')');     /* the name may hold ')' and spaces */
        int ppid;
        char st;
        if (!p || sscanf(p + 1, " %c %d", &st, &ppid) != 2)
            continue;
        if (n == cap) {
            proc_ent *nv = realloc(v, (cap = cap ? cap * 2 : 256) * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[n++] = (proc_ent){(pid_t)atoi(e->d_name), (pid_t)ppid, st};
    }
    closedir(d);
    *out = v;
    return n;
}

/* Marks the descendants of `root` in v (ppid set to 0 for the others); returns how many. */
static size_t mark_descendants(proc_ent *v, size_t n, pid_t root)
{
    /* A process is a descendant when its parent chain reaches root; chains are
     * short, so walking up from each is cheap enough (n is a few hundred). */
    size_t found = 0;
    char *mark = calloc(n ? n : 1, 1);
    if (!mark)
        return 0;
    for (size_t i = 0; i < n; i++) {
        pid_t p = v[i].ppid;
        for (int depth = 0; p > 0 && depth < 64; depth++) {
            if (p == root) {    /* tested first: perfgate may itself be PID 1 (a container) */
                mark[i] = v[i].pid != wd_pid;
                break;
            }
            if (p == 1)
                break;
            size_t j = 0;
            while (j < n && v[j].pid != p)
                j++;
            if (j == n)
                break;
            p = v[j].ppid;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (!mark[i])
            v[i].ppid = 0;
        found += mark[i];
    }
    free(mark);
    return found;
}

/* Signals every live descendant of perfgate but the watchdog, and reaps
 * those that are perfgate's zombie children, except `keep` (the run's first
 * process, whose status the caller waits for). Returns how many descendants
 * there were, *live how many of them were alive. */
static int signal_descendants(int sig, pid_t keep, int *live)
{
    proc_ent *v;
    size_t n = list_procs(&v);
    int found = (int)mark_descendants(v, n, getpid());
    *live = 0;
    for (size_t i = 0; i < n; i++) {
        if (!v[i].ppid)
            continue;
        if (v[i].state != 'Z') {
            kill(v[i].pid, sig);
            ++*live;
        }
        if (v[i].ppid == getpid() && v[i].pid != keep)
            waitpid(v[i].pid, NULL, WNOHANG);
    }
    free(v);
    return found;
}

/* Whether perfgate surely has no descendant but the watchdog: every thread's
 * children file (/proc/self/task/TID/children, CONFIG_PROC_CHILDREN) lists
 * none other. Then there is none anywhere below: perfgate is a subreaper,
 * so an orphan below it becomes its child. 0 when it has, or when the files
 * cannot say (then /proc is scanned whole). Reading perfgate's own few files
 * instead of every process's stat spares each run a scan of /proc. */
static int surely_childless(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 0;
    int none = 1;
    struct dirent *e;
    while (none && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t r = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
        if (fd >= 0)
            close(fd);
        if (r < 0 || r == (ssize_t)sizeof buf - 1) {
            none = 0;       /* no such file here, or more than a few children */
            break;
        }
        buf[r] = '\0';
        for (char *p = buf, *end; none && *p; p = end) {
            long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            none = wd_pid > 0 && pid == wd_pid;
        }
    }
    closedir(d);
    return none;
}

/* Kills and reaps every descendant until none is left, zombies included
 * (bounded: a fork bomb outpacing it is left to the cgroup, where there is
 * one). Returns how many were alive at first. */
static int sweep_descendants(void)
{
    int killed = 0, live;
    if (surely_childless())
        return 0;
    for (int round = 0; round < 500; round++) {
        int found = signal_descendants(SIGKILL, 0, &live);
        if (round == 0)
            killed = live;
        if (!found)
            break;
        if (round > 0)
            pg_watch_nap_ms(1);
    }
    return killed;
}

/* ---- the run ---- */

void pg_contain_prepare(void)
{
    if (!cg.probed)
        probe_cgroup();
    if (!wd_started) {
        wd_started = 1;
        watchdog_start();
    }
}

void pg_contain_begin(pg_contain *c)
{
    memset(c, 0, sizeof *c);
    pg_contain_prepare();
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (!cg.usable)
        return;
    char name[64];
    snprintf(name, sizeof name, "/perfgate-%d-%u", (int)getpid(), cg.seq++);
    if (pg_watch_join(c->cgroup, sizeof c->cgroup, cg.base, name, NULL) < 0 ||
        !cg_made(c->cgroup)) {
        cg.usable = 0;      /* not here, then: the rest still contains the run */
        c->cgroup[0] = '\0';
    }
}

/* A child that shares perfgate's memory until it execs, as posix_spawn's:
 * clone3 with CLONE_VM | CLONE_VFORK, the child on a stack of its own. Only
 * where the stack switch is written (x86-64), and never under ASan, whose
 * interceptors keep per-thread state that such a child would share. */
#if defined(LSYS_HAVE_CLONE3_ON) && defined(CLONE_INTO_CGROUP) && !defined(__SANITIZE_ADDRESS__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PG_NO_SHARE 1
#endif
#endif
#ifndef PG_NO_SHARE
#define PG_CAN_SHARE 1
#endif
#endif

#ifdef PG_CAN_SHARE
typedef struct trampoline {
    pg_contain_fn *fn;
    void *arg;
} trampoline;

static void shared_child(void *arg)
{
    const trampoline *t = arg;
    t->fn(t->arg, 1);
    _exit(127);
}
#endif

/* errno values that say the kernel (or a seccomp filter) will not do it. */
static int unsupported(int err)
{
    return err == ENOSYS || err == E2BIG || err == EINVAL || err == EPERM || err == EOPNOTSUPP;
}

pid_t pg_contain_spawn(pg_contain *c, pg_contain_fn *fn, void *arg, int may_share)
{
    c->born_inside = c->shared = 0;
    int dirfd = -1;
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
    if (c->cgroup[0] && cg.clone3 >= 0)
        dirfd = open(c->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#endif
#ifdef PG_CAN_SHARE
    if (may_share && cg.share >= 0 && (dirfd >= 0 || !c->cgroup[0])) {
        /* The child's stack: this frame's, which the parent leaves alone until the child has exec'd. */
        _Alignas(64) char stack[64 * 1024];
        trampoline t = {fn, arg};
        struct clone_args args;
        memset(&args, 0, sizeof args);
        args.flags = CLONE_VM | CLONE_VFORK | (dirfd >= 0 ? CLONE_INTO_CGROUP : 0);
        args.exit_signal = SIGCHLD;
        args.stack = (uint64_t)(uintptr_t)stack;
        args.stack_size = sizeof stack;
        args.cgroup = dirfd >= 0 ? (uint64_t)dirfd : 0;
        long pid = lsys_clone3_on(&args, shared_child, &t);
        if (pid > 0) {
            c->shared = 1;
            if (dirfd >= 0) {
                close(dirfd);
                cg.clone3 = 1;
                c->born_inside = 1;
            }
            cg.share = 1;
            return (pid_t)pid;
        }
        if (!unsupported((int)-pid)) {
            if (dirfd >= 0)
                close(dirfd);
            errno = (int)-pid;
            return -1;
        }
        cg.share = -1;      /* e.g. under valgrind: the ways below, from now on */
    }
#else
    (void)may_share;
#endif
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
    if (dirfd >= 0) {
        struct clone_args args;
        memset(&args, 0, sizeof args);
        args.flags = CLONE_INTO_CGROUP;
        args.exit_signal = SIGCHLD;
        args.cgroup = (uint64_t)dirfd;
        long pid = syscall(SYS_clone3, &args, sizeof args);
        if (pid == 0) {
            fn(arg, 0);     /* its copy of dirfd closes at exec */
            _exit(127);
        }
        int err = errno;
        close(dirfd);
        if (pid > 0) {
            cg.clone3 = 1;
            c->born_inside = 1;
            return (pid_t)pid;
        }
        /* An older kernel, or a seccomp filter: fork, and never try again. */
        if (unsupported(err))
            cg.clone3 = -1;
    }
#endif
    pid_t pid = fork();
    if (pid == 0) {
        fn(arg, 0);
        _exit(127);
    }
    return pid;
}

void pg_contain_child(pid_t parent)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* perfgate may have died before the line above: then nothing would kill us later. */
    if (getppid() != parent)
        _exit(127);
    /* Nothing of perfgate's past its exec but what the spawner hands on by
     * name (the standard streams, its pipes, a meter's descriptors): a
     * descriptor opened without O_CLOEXEC (by perfgate or a library) would
     * give the benchmark, the code under test, a way into perfgate (a --jobs
     * worker's pipes, the store's lock). */
    if (syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) < 0)
        for (int fd = 3; fd < 4096; fd++)
            fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* The directory measured processes may not write, as an absolute path; "" when none. */
static char protected_dir[PATH_MAX];

void pg_contain_protect(const char *dir)
{
    char cwd[PATH_MAX];
    protected_dir[0] = '\0';
    if (dir && *dir && (dir[0] == '/' || getcwd(cwd, sizeof cwd)) &&
        pg_watch_join(protected_dir, sizeof protected_dir, dir[0] == '/' ? "" : cwd, dir[0] == '/' ? "" : "/", dir) < 0)
        protected_dir[0] = '\0';
}

int pg_contain_protect_apply(void)
{
    if (!protected_dir[0])
        return 0;
    if (mount(protected_dir, protected_dir, NULL, MS_BIND | MS_REC, NULL) < 0)
        return errno == ENOENT ? 0 : -1;
    /* The file system's own flags kept: a remount may not clear them in a
     * user namespace (EPERM), and should not anywhere. */
    struct statfs st;
    unsigned long keep = 0;
    if (statfs(protected_dir, &st) == 0)
        keep = (unsigned long)st.f_flags & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME);
    return mount(NULL, protected_dir, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | keep, NULL);
}

void pg_contain_adopt(pg_contain *c, pid_t pid)
{
    c->pid = pid;
    setpgid(pid, pid);  /* also in the child: whichever runs first wins the race */
    if (c->cgroup[0] && !c->born_inside) {
        char text[32];
        snprintf(text, sizeof text, "%d", (int)pid);
        if (pg_watch_write(c->cgroup, "/cgroup.procs", text) < 0) {
            /* e.g. a cgroup with controllers that forbid it: do without, from now on */
            rmdir(c->cgroup);
            c->cgroup[0] = '\0';
            cg.usable = 0;
        }
    }
    watchdog_tell(pid, c->cgroup);
}

void pg_contain_signal(const pg_contain *c, int sig)
{
    if (c->pid <= 0)
        return;
    if (kill(-c->pid, sig) < 0)
        kill(c->pid, sig);
    if (c->cgroup[0] && sig == SIGKILL)
        pg_watch_cg_kill(c->cgroup);
    else if (c->cgroup[0])
        pg_watch_each_pid(c->cgroup, pg_watch_signal, sig);
    else {
        int live;
        signal_descendants(sig, c->pid, &live);    /* those that left the group (setsid) */
    }
}

int pg_contain_end(pg_contain *c)
{
    int killed = 0;
    if (c->cgroup[0]) {
        killed = pg_watch_each_pid(c->cgroup, pg_watch_signal, 0);   /* signal 0: only counted */
        pg_watch_cg_kill(c->cgroup);
    }
    if (c->pid > 0)
        kill(-c->pid, SIGKILL);
    int swept = sweep_descendants();
    killed = swept > killed ? swept : killed;
    if (c->cgroup[0])
        pg_watch_cg_remove(c->cgroup);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    watchdog_tell(0, "");
    memset(c, 0, sizeof *c);
    return killed;
}

int pg_contain_cgroup(char *detail, size_t len)
{
    if (!cg.probed)
        probe_cgroup();
    if (cg.usable && !cg.made) {    /* a trial, as no run has made one yet */
        char trial[512];
        snprintf(trial, sizeof trial, "%s/perfgate-%d-%u", cg.base, (int)getpid(), cg.seq++);
        if (cg_made(trial))
            rmdir(trial);
    }
    snprintf(detail, len, "%s", cg.usable ? cg.base : cg.why);
    return cg.usable;
}
