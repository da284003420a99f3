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
 *   working directory: where perfgate may (as root), the tree the benchmark
 *            runs from is bind-mounted at PG_CANON_TREE in a private mount
 *            namespace of the measured process, which runs there: the same
 *            path, byte for byte, for the work tree and every checkout (what
 *            the program reads of its own path, /proc/self/exe, getcwd).
 *            Elsewhere a checkout is made at a path as long as the work
 *            tree's where it can be (util/owned_dir.h).
 */
#ifndef PG_HARNESS_CANON_H
#define PG_HARNESS_CANON_H

#include "harness/bench/bench.h"

#include <stddef.h>

/* Where a measured process sees its tree. /run is root's: no other user can
 * put a link there for the mount to follow. */
#define PG_CANON_TREE "/run/perfgate/tree"

/* Whether measured processes can get their tree at PG_CANON_TREE here (root,
 * the directory made and a real directory), decided once. */
int pg_canon_tree_ready(void);

/* The working directory `cwd` as seen under PG_CANON_TREE when it is inside
 * `tree` (both absolute) and pg_canon_tree_ready(): 1 with `out` set, else 0. */
int pg_canon_cwd(char *out, size_t len, const char *cwd, const char *tree);

/* The variables the benchmarks get from perfgate's environment besides the
 * fixed list (--pass-env NAME,...; repeatable): a name, or a prefix ending
 * in '*' ("MYAPP_*"). PG_EINVAL for a name that is not one. */
int pg_canon_pass_env(const char *list);

/* The fixed list and the --pass-env names, one comma list, for messages and
 * the run document. */
const char *pg_canon_env_names(void);

/* The environment of a measured process: the variables kept from perfgate's
 * own (above) plus `extra`'s "KEY=VALUE" entries (which win), in a fixed
 * order, built once per benchmark so every run of it sees exactly the same
 * bytes; one slot is left free at the end (*nused, when not NULL, the
 * entries used) for the meter's entry of each run. perfgate's own control
 * variables are never passed on from its environment. Free the vector (not
 * its strings) with free(); NULL when out of memory. */
char **pg_canon_env(char **extra, size_t *nused);

/* `b`'s argv with argv[0] as above: a new vector sharing b's strings but
 * argv[0] (free with pg_canon_argv_free). PG_ENOMEM. */
int pg_canon_argv(char ***out, const pg_bench *b);
void pg_canon_argv_free(char **argv);

/* The path of `path` relative to the directory `dir` (both absolute), into
 * `out`, always with a '/' ("./prog", "../build/prog") so that exec never
 * looks it up in PATH. */
void pg_canon_relpath(char *out, size_t len, const char *path, const char *dir);

#endif
