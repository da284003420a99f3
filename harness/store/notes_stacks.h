/* harness/store/notes_stacks.h — stacks in git notes (refs/notes/perfgate-stacks).
 *
 * Opt-in (`run --notes-stacks`, `compare --run-missing --notes-stacks`, or
 * the git configuration perfgate.notesStacks true): a run's folded stacks
 * go to a notes ref of their own, so that refs/notes/perfgate, which every
 * `show` and `compare` reads, stays small. The note of a commit is one
 * stacks document ("perfgate-stacks/1", docs/result-schema.md): per run id,
 * each benchmark's folded text. It is written and merged by harness/store/notes.h
 * (the same compare-and-swap, the same union by run id) and travels with
 * `perfgate push`/`fetch` (harness/store/notesync.h).
 *
 * A benchmark's stacks over PG_NOTES_STACKS_MAX bytes of folded text
 * (pg_notes_stacks_max) stay in
 * the local store only, and perfgate says so, naming them and their size.
 *
 * Reading: a run from another clone's note names stacks under that clone's
 * store. pg_notes_stacks_fill writes the ones the stacks note holds into
 * <store>/notes-stacks/<commit>/<run id>/<benchmark>.folded and points the
 * run at them, so compare's function tables and differential flamegraphs
 * read them like any stacks of the store.
 */
#ifndef PG_HARNESS_NOTES_STACKS_H
#define PG_HARNESS_NOTES_STACKS_H

#include "harness/store/gitrepo.h"
#include "harness/store/notedoc.h"
#include "harness/store/rundoc.h"

#include <stddef.h>

#define PG_NOTES_STACKS_REF "refs/notes/perfgate-stacks"
#define PG_STACKSDOC_SCHEMA "perfgate-stacks/1"
/* Per benchmark, by default: 1 MiB of folded text (tens of thousands of
 * distinct stacks). The git configuration perfgate.notesStacksMax (bytes,
 * with git's k/m/g suffixes) sets another. */
#define PG_NOTES_STACKS_MAX (1024 * 1024)

/* Whether the git configuration says perfgate.notesStacks true. */
int pg_notes_stacks_configured(pg_repo *r);

/* The limit per benchmark: perfgate.notesStacksMax when set (> 0), else
 * PG_NOTES_STACKS_MAX. */
size_t pg_notes_stacks_max(pg_repo *r);

/* The stacks document made of `run`'s benchmarks' stacks (paths relative to
 * `store_root`, or absolute). Those over `max` bytes are left out and
 * listed in `big` ("'name' (1.3 MiB)", comma separated; "" when none), those
 * that cannot be read in `unreadable`. *n counts the benchmarks in it (0:
 * *doc is NULL). */
int pg_stacksdoc_make(char **doc, size_t *n, char *big, size_t biglen, char *unreadable, size_t unreadlen,
                      const pg_rundoc *run, const char *store_root, size_t max);

/* The stacks note, refs/notes/perfgate-stacks, for harness/store/notedoc.h. */
extern const pg_notekind pg_notekind_stacks;

/* Adds the stacks of `run` (stored in the store at `store_root`) to the
 * stacks note of its commit and says so on stderr, naming the benchmarks
 * whose stacks stay local (too large, or unreadable). A failure is a warning. */
void pg_notes_stacks_record(pg_repo *r, const pg_rundoc *run, const char *store_root);

/* For every run of `runs` (of `commit`) whose benchmark's stacks do not
 * resolve under `store_root`: when the stacks note holds them (same run id
 * and benchmark), writes them under <store_root>/notes-stacks/ and points the
 * benchmark's "stacks" there (relative to `store_root`). No stacks note, or
 * one without them: the run is left as it is. A damaged note or a file that
 * cannot be written is a warning, never an error. */
void pg_notes_stacks_fill(pg_rundoc_list *runs, const char *store_root, pg_repo *r, const char *commit);

#endif
