/* harness/measure/canon.h — the canonical execution context of a measured process.
 *
 * Same program, same count: what a benchmark sees of where and how perfgate
 * started it must not depend on where its checkout lives, who started
 * perfgate, or from which shell. Programs pay for what they are handed: the
 * C start-up code walks the environment, Rust's std copies every argument,
 * and the kernel lays argv, the environment and the executable's name out
 * on the initial stack. So every measured process (run, --run-missing,
 * bisect, calibrate, the confirmation round) gets
 *
 *   argv[0]: the command as the manifest wrote it, relative to the
 *            benchmark's working directory (never the resolved absolute
 *            path, whose length is the checkout's); the program is also
 *            executed by that name, so the kernel's copy of it is the same;
 *   environment: only the variables listed in docs/metrics.md ("The
 *            execution context": PATH, HOME, LANG, LC_*, TZ, ...), those
 *            named by --pass-env, the manifest's "env", and what the meter
 *            adds; PWD, OLDPWD, CI and shell variables are not passed.
 *
 *   paths:   the same bytes for the working directory, /proc/self/exe and
 *            the lines of /proc/self/maps (which glibc's pthread_getattr_np
 *            on the main thread and Rust's std at start-up parse), in a work
 *            tree of any path, a git worktree, another clone and a temporary
 *            checkout. The measured process runs in a private mount
 *            namespace (with a user namespace mapping the user to itself
 *            when perfgate is not root) where a tmpfs is mounted on
 *            PG_CANON_ROOT, and
 *              - its tree T at PG_CANON_TREE. T is the work tree or checkout
 *                its working directory is in; with no repository (or a
 *                working directory outside it) the working directory itself,
 *                which is perfgate's own for `perfgate run -- CMD`;
 *              - each sibling of T that a relative path of its argv reaches
 *                (argv[0] always, an argument when that file exists:
 *                "../bench-crate/target/release/x" written from T's root, a
 *                cargo workspace beside the repository) at PG_CANON_ROOT/NAME,
 *                which is where the same relative path leads from inside
 *                PG_CANON_TREE;
 *            and it runs in its working directory's place under
 *            PG_CANON_TREE. argv is not rewritten: its relative names reach
 *            the same files in the namespace as outside, and only the
 *            layout relative to T is seen, never where T is. The mounts go
 *            with the process; the tmpfs is read-only, so nothing can be
 *            left in it. The parent of every tool's output directory
 *            (counters/outdir.h: valgrind writes where the program can) is
 *            covered by an empty, read-only tmpfs, in which only the
 *            directories the command names are brought back, at their
 *            paths: what another measured at the same time (run --jobs,
 *            another perfgate with the same TMPDIR) writes there is not in
 *            the benchmark's view of the files. Left as they are (the host's paths): an absolute
 *            path (argv as written), and a benchmark whose relative argv[0]
 *            (or an existing relative argument) leaves T by more than one
 *            level, or reaches a sibling named "tree": it runs where it is
 *            (as does a tree already under PG_CANON_ROOT: a perfgate measured
 *            by perfgate, whose paths are the outer one's).
 *            Where no namespace can be made (not root and no user
 *            namespaces, or no /run/perfgate, which only root can make; or
 *            PERFGATE_NO_CANON_TREE=1), a checkout is made at a path as long
 *            as the work tree's where it can be (util/owned_dir.h), and
 *            `perfgate doctor` says why.
 */
#ifndef PG_HARNESS_CANON_H
#define PG_HARNESS_CANON_H

#include "harness/bench/bench.h"

#include <stddef.h>

/* Where a measured process sees its tree, and the tmpfs its siblings are
 * mounted in. /run is root's: no other user can put a link there for the
 * mounts to follow. */
#define PG_CANON_ROOT "/run/perfgate"
#define PG_CANON_TREE PG_CANON_ROOT "/tree"

/* `tree` for a benchmark outside any repository: its working directory is its tree. */
#define PG_CANON_OWN_CWD ""

/* Whether measured processes can get their tree at PG_CANON_TREE here (root,
 * or a user namespace; PG_CANON_ROOT a real directory), decided once: not as
 * root, by one child that makes the namespace. */
int pg_canon_tree_ready(void);

/* How (ready) or why not, one line for `perfgate doctor`. */
const char *pg_canon_tree_how(void);

enum { PG_CANON_MAX_MOUNTS = 4, PG_CANON_MAX_OUTS = 4 };

/* A measured process's namespace: made by the parent before the fork, so
 * that the child, entering it, allocates nothing. */
typedef struct pg_canon_layout {
    char from[PG_CANON_MAX_MOUNTS][4096];   /* [0] T, then the siblings, on the host */
    char at[PG_CANON_MAX_MOUNTS][4096];     /* where each is mounted */
    size_t n;
    char cwd[4096];                         /* the working directory in the namespace */
    /* The tools' output (counters/outdir.h): their parent, covered by an
     * empty read-only tmpfs ("" when there is none), and the directories
     * in it that the command names (an argument holding "<parent>/NAME"),
     * brought back at their paths; no other run's output is in view. */
    char outs_parent[4096];
    char outs[PG_CANON_MAX_OUTS][4096];
    size_t nouts;
    int userns;                             /* not root: a user namespace, these maps */
    char uid_map[32], gid_map[32];
} pg_canon_layout;

/* The layout of a process running argv in `cwd` (NULL: perfgate's own) of
 * `tree` (a work tree or checkout; PG_CANON_OWN_CWD: none): 1 with *out
 * filled, 0 when it runs as it is (no namespace here, or a path that cannot
 * be placed; see above). */
int pg_canon_layout_make(pg_canon_layout *out, const char *tree, const char *cwd, char *const *argv);

/* In the child, before exec: makes the namespace and moves there. 0, or -1
 * with errno (the process may then be in a namespace of its own, with
 * nothing of it seen outside; it stays in its working directory). Only
 * system calls: safe in a child that shares its parent's memory. */
int pg_canon_enter(const pg_canon_layout *l);

/* Checks a --pass-env list (NAME,...): each a variable name, or a prefix
 * ending in '*' ("MYAPP_*"). PG_EINVAL, naming the first that is not one. */
int pg_canon_pass_env_check(const char *list);

/* The environment of a measured process: the variables kept from perfgate's
 * own (above), those the comma list `pass` names (--pass-env, checked by
 * pg_canon_pass_env_check; NULL: none), plus `extra`'s "KEY=VALUE" entries
 * (which win), in a fixed order, built once per benchmark so every run of it
 * sees exactly the same bytes; one slot is left free at the end (*nused, when not NULL, the
 * entries used) for the meter's entry of each run. perfgate's own control
 * variables are never passed on from its environment. Free the vector (not
 * its strings) with free(); NULL when out of memory. */
char **pg_canon_env(char **extra, const char *pass, size_t *nused);

/* `b`'s argv with argv[0] as above: a new vector sharing b's strings but
 * argv[0] (free with pg_canon_argv_free). PG_ENOMEM. */
int pg_canon_argv(char ***out, const pg_bench *b);
void pg_canon_argv_free(char **argv);

/* The path of `path` relative to the directory `dir` (both absolute), into
 * `out`, always with a '/' ("./prog", "../build/prog") so that exec never
 * looks it up in PATH. */
void pg_canon_relpath(char *out, size_t len, const char *path, const char *dir);

#endif
