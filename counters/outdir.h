/* counters/outdir.h — where the tools a program is measured under write
 * their output: every such directory in one private parent.
 *
 * valgrind runs inside the measured process, so its output (cachegrind's,
 * callgrind's and DHAT's files, valgrind's own log) is written where the
 * program itself can write: a benchmark, the code under test, could read or
 * rewrite the output of another measured at the same time (`run --jobs`, or
 * another perfgate). So every output directory a backend makes is made in
 * one parent, "$TMPDIR/perfgate-out.<uid>" (mode 0700, the user's own, never
 * a link), and a measured process that gets a mount namespace of its own
 * (harness/measure/canon.h) sees that parent as an empty, read-only tmpfs in
 * which only the directories its own command names are brought back:
 * nothing of another run's output is in its view of the files (another
 * process's view, /proc/PID/root, still shows it: docs/processes.md says
 * what remains). Where no namespace is made, the parent is an ordinary
 * directory.
 */
#ifndef PG_COUNTERS_OUTDIR_H
#define PG_COUNTERS_OUTDIR_H

#include "util/owned_dir.h"

#include <stddef.h>

/* The parent's name in $TMPDIR, before the user's id. */
#define PG_OUTDIR_PARENT "perfgate-out."

/* The parent's real path into out, made when missing and `make`. PG_EIO
 * naming it when it cannot be made (or is missing, without `make`), or when
 * what is there is a link, not a directory, or not the user's (it is then
 * not used: another user's, or a trap). */
int pg_outdir_parent(char *out, size_t len, int make);

/* A new owned directory "<parent>/<prefix><pid>-XXXXXX" (util/owned_dir.h:
 * swept when its owner died), for a tool's output. PG_EIO naming what could
 * not be made. */
int pg_outdir_make(pg_owned_dir *d, const char *prefix);

/* The prefixes of those directories: cachegrind's (and callgrind's, for
 * counts), callgrind's stacks, DHAT's; NULL-terminated, what the sweep of a
 * killed perfgate's leftovers looks for in the parent. */
#define PG_OUTDIR_COUNTS "perfgate-vg-"
#define PG_OUTDIR_STACKS "perfgate-cg-"
#define PG_OUTDIR_HEAP "perfgate-dhat-"
extern const char *const pg_outdir_prefixes[];

#endif
