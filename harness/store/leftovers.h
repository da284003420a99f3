/* harness/store/leftovers.h — what a killed perfgate left behind goes at the next run.
 *
 * A perfgate that is SIGKILLed cannot clean up after itself. What it may leave:
 *   - the temporary checkouts of `compare --run-missing`, $TMPDIR/perfgate-rev-<pid>-*;
 *   - valgrind's output directories, perfgate-vg-<pid>-*, perfgate-cg-<pid>-* and
 *     perfgate-dhat-<pid>-* in $TMPDIR/perfgate-out.<uid> (counters/outdir.h), and
 *     in $TMPDIR itself (where perfgate made them before);
 *   - the run logs of `perfgate calibrate`, $TMPDIR/perfgate-calibrate-<pid>-*,
 *     and of `perfgate run --no-store`, $TMPDIR/perfgate-logs-<pid>-* (kept, no
 *     longer owned, when a benchmark failed: the user reads them);
 *   - the workers' results of `run --jobs`, $TMPDIR/perfgate-jobs-<pid>-*;
 *   - the stacks and logs directories of a run it never stored,
 *     <store>/stacks/<commit>/<machine>/<run> and <store>/logs/<commit>/<machine>/<run>;
 *   - a half-written store document, <store>/results/<commit>/<machine>.json.tmp.*,
 *     and the probe of storecheck.h, <store>/results/.probe.*;
 *   - the refs a fetch brings notes to, refs/perfgate/fetch-<pid>: those go at
 *     the next fetch (or push), whose business they are (harness/store/notesync.c).
 * Each directory is an owned one (util/owned_dir.h), so the sweep removes only
 * those whose owner is dead, never a concurrent run's. A stacks directory whose
 * run was stored after all (perfgate killed between storing the result and
 * letting the directory go) stays: only its lock file goes; so do logs. A half-written
 * document goes only while the store's lock for it can be taken. The processes
 * a killed perfgate left are harness/measure/contain.h's business.
 */
#ifndef PG_HARNESS_LEFTOVERS_H
#define PG_HARNESS_LEFTOVERS_H

/* The prefixes of calibrate's and of an unstored run's logs directory in $TMPDIR. */
#define PG_LEFTOVERS_CALIBRATE_PREFIX "perfgate-calibrate-"
#define PG_LEFTOVERS_LOGS_PREFIX "perfgate-logs-"

/* Sweeps $TMPDIR, and the store at `store_root` when it is not NULL. Says on
 * stderr what it removed, when it removed anything; returns how many. */
int pg_leftovers_sweep(const char *store_root);

#endif
