/* harness/measure/reuse.h — never measure what cannot have changed
 * (`--reuse-unchanged`, docs/metrics.md "Reusing exact counts").
 *
 * An exact count (the valgrind backend's) is a function of what the program
 * is handed and what it reads: when all of that is byte for byte what a
 * stored result of the same machine and backend was measured with, the
 * stored counts are the counts, and running valgrind again would only
 * repeat them. The key of a benchmark is a SHA-1 (libgit2's) over:
 *   - the command as it is executed (argv, argv[0] as written) and its
 *     fixed environment (harness/measure/canon.h), its working directory
 *     relative to the tree, its stdin;
 *   - the bytes of its executable and of every shared object the dynamic
 *     loader maps for it (the loader's own --list, run without running the
 *     program; a static executable has none);
 *   - the bytes of every argument that names a regular file, from its
 *     working directory (the manifest's input files);
 *   - what perfgate measures it with: the metrics chosen (valgrind's
 *     simulations), its markers setting and the functions whose calls it
 *     counts;
 *   - the option files valgrind would read (~/.valgrindrc, ./.valgrindrc),
 *     which perfgate's valgrind ignores (counters/valgrind.c): a committed
 *     one is measured again, not trusted.
 * The machine and backend (and so valgrind's version and the simulated
 * cache geometry) are matched by the machine id of the stored run.
 *
 * The key holds one program: a shell, an interpreter or a script gets none
 * (pg_reuse_key), nor a benchmark whose measured run exec()ed another
 * program (pg_reuse_forget).
 *
 * It is NOT sound for a program whose count depends on anything else: the
 * clock, random numbers, its pid, files it opens that its arguments do not
 * name, libraries it dlopen()s, the network. Hence opt-in.
 */
#ifndef PG_HARNESS_REUSE_H
#define PG_HARNESS_REUSE_H

#include "counters/backend.h"
#include "harness/bench/bench.h"
#include "harness/store/gitrepo.h"
#include "harness/store/rundoc.h"

#define PG_REUSE_KEY_SIZE 41

/* The key of `bench`, run as argv/env (canonical) from `tree` with these
 * measuring choices (a text that names them: metrics, markers, calls);
 * 40 hex digits. PG_ENOTFOUND when its executable cannot be found,
 * PG_ENOTSUP when it is a shell, an interpreter or a script (then nothing
 * is reused; the message says why). */
int pg_reuse_key(char key[PG_REUSE_KEY_SIZE], const pg_bench *bench, char *const *argv, char *const *env,
                 const char *tree, const char *choices);

/* After `b`'s measured runs with `meter`: when a process of them ran another
 * program than the command (pg_meter_others: a wrapper, a launcher, a
 * program calling system()), its counts are partly that program's, whose
 * bytes the key does not hold: the key is dropped from its entry, so that
 * they are never reused, and when `say` (--reuse-unchanged) one line names
 * the benchmark and the program. */
void pg_reuse_forget(pg_rundoc_bench *b, const pg_meter *meter, int say);

/* A stored, successful benchmark named `name` with `key`, measured on
 * `machine_id` by `backend`, among `runs`; NULL when none. *run is set to
 * the run it is in. */
const pg_rundoc_bench *pg_reuse_find(const pg_rundoc **run, const pg_rundoc_list *runs, const char *name,
                                     const char *key, const char *machine_id, const char *backend);

/* The runs a revision may reuse from: those stored for `commit` itself (a
 * run again) and for its nearest first-parent ancestor that has some (the
 * base of a change), from the local store only (never a fetched note),
 * appended to `runs`. */
int pg_reuse_candidates(pg_rundoc_list *runs, pg_repo *repo, const char *store, const char *commit);

#endif
