/* harness/notes.h — results kept in git notes (refs/notes/perfgate), through libgit2.
 *
 * The note of a commit is one note document (harness/rundoc.h,
 * "perfgate-notes/1"): every run measured on that commit, of every machine
 * and backend, merged by run id. Logs stay in the local store (they are
 * large, and machine-local paths); stacks do too, unless asked for: then
 * they go to a notes ref of their own (harness/notes_stacks.h), written and
 * merged by the same code as the results, so that the results note stays
 * small. Every notes commit says what it added ("perfgate: run <id> of
 * <commit> on <host> (...)", "perfgate: merge notes from <remote>: N runs
 * added"), for `git log refs/notes/perfgate`. The notes ref only ever moves
 * forward: every update is a new notes commit whose parent is the old tip,
 * made with a compare-and-swap of the ref (retried when another perfgate won
 * the race), and notes of another clone are merged in by a merge commit,
 * never by replacing the ref. docs/notes.md says how they travel
 * (harness/notesync.h).
 */
#ifndef PG_HARNESS_NOTES_H
#define PG_HARNESS_NOTES_H

#include "harness/gitrepo.h"
#include "harness/rundoc.h"

#define PG_NOTES_REF "refs/notes/perfgate"

/* What a measuring command puts in the notes (`notes` of harness/revisions.h). */
enum { PG_NOTES_NONE = 0, PG_NOTES_RUNS = 1, PG_NOTES_WITH_STACKS = 2 };

/* The note text of `commit` (full id) in `ref`; *text NULL when there is none.
 * Free with free(). */
int pg_notes_read(char **text, pg_repo *r, const char *ref, const char *commit);

/* Merges the document `add` into the note `old` of `commit` (pg_notedoc_merge
 * for results, pg_stacksdoc_merge for stacks); *added counts the runs added. */
typedef int (*pg_notes_merge_fn)(char **text, size_t *added, const char *old, size_t old_len, const char *old_name,
                                 const char *add, size_t add_len, const char *add_name, const char *commit);

/* Merges the document `doc` into the note of `commit` in `ref`, as a new
 * notes commit saying `msg`, moved onto the ref with a compare-and-swap
 * (another writer first: read its tip and try again). *added counts the runs
 * added; none: the ref does not move. */
int pg_notes_add(size_t *added, pg_repo *r, const char *ref, const char *commit, const char *doc,
                 pg_notes_merge_fn merge, const char *msg);

/* Whether `ref` exists in the repository. */
int pg_notes_exist(pg_repo *r, const char *ref);

/* Adds `run` to the note of `commit`. */
int pg_notes_add_run(pg_repo *r, const char *commit, const pg_rundoc *run);

/* Who measured `run` and what of it a notes commit adds (`n` of its
 * benchmarks), for the commit's message: "<host> (machine <id>, <backend>,
 * N benchmarks[, shard I/N])", "N of M benchmarks" when n is not all. */
void pg_notes_describe(char *out, size_t len, const pg_rundoc *run, size_t n);

/* After `run` was stored locally (in the store at `store_root`): adds it to
 * the note of its commit and says so on stderr ("notes: ..."), unless its
 * work tree was dirty (it did not measure the commit). With `stacks`, or
 * the git configuration perfgate.notesStacks true, its stacks go to the
 * stacks note too (pg_notes_stacks_record). A failure is a warning, not an
 * error: the local store has the run, which then stays there only, as the
 * warning says. */
void pg_notes_record(pg_repo *r, const pg_rundoc *run, const char *store_root, int stacks);

/* Appends to `runs` the runs of the note of `commit` that `runs` does not
 * hold already (same id, machine and times); *added counts them. A note that
 * is not a valid document is an error naming it. */
int pg_notes_load(pg_rundoc_list *runs, size_t *added, pg_repo *r, const char *commit);

/* Merges the notes commit `theirs` (40 hex, present in the repository,
 * fetched from `from`) into `ref` (PG_NOTES_REF or PG_NOTES_STACKS_REF):
 * fast-forward when one contains the other, else a merge commit whose notes
 * are the union by run id. *changed is set when `ref` moved; *added counts
 * the runs a merge commit added (0 for a fast-forward). */
int pg_notes_merge(int *changed, size_t *added, pg_repo *r, const char *ref, const char *theirs, const char *from);

#endif
