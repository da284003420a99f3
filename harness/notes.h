/* harness/notes.h — results kept in git notes (refs/notes/perfgate), through libgit2.
 *
 * The note of a commit is one note document (harness/rundoc.h,
 * "perfgate-notes/1"): every run measured on that commit, of every machine
 * and backend, merged by run id. Logs and stacks stay in the local store
 * (they are large, and machine-local paths). The notes ref only ever moves
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

/* The note text of `commit` (full id) in `ref`; *text NULL when there is none.
 * Free with free(). */
int pg_notes_read(char **text, pg_repo *r, const char *ref, const char *commit);

/* Adds `run` to the note of `commit`. */
int pg_notes_add_run(pg_repo *r, const char *commit, const pg_rundoc *run);

/* After `run` was stored locally: adds it to the note of its commit and says
 * so on stderr ("notes: ..."), unless its work tree was dirty (it did not
 * measure the commit). A failure is a warning, not an error: the local store
 * has the run, which then stays there only, as the warning says. */
void pg_notes_record(pg_repo *r, const pg_rundoc *run);

/* Appends to `runs` the runs of the note of `commit` that `runs` does not
 * hold already (same id, machine and times); *added counts them. A note that
 * is not a valid document is an error naming it. */
int pg_notes_load(pg_rundoc_list *runs, size_t *added, pg_repo *r, const char *commit);

/* Merges the notes commit `theirs` (40 hex, present in the repository) into
 * `ref`: fast-forward when one contains the other, else a merge commit whose
 * notes are the union by run id. *changed is set when `ref` moved. */
int pg_notes_merge(int *changed, pg_repo *r, const char *ref, const char *theirs);

#endif
