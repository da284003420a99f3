/* harness/store/notes_record.h — a run just stored, into the notes of its commit:
 * the runs note (notes.h) and, when asked, the stacks note (notes_stacks.h).
 * Above both, so that neither needs the other: notes.c is the writer of
 * every notes ref, notes_stacks.c one of its users. */
#ifndef PG_HARNESS_NOTES_RECORD_H
#define PG_HARNESS_NOTES_RECORD_H

#include "harness/store/gitrepo.h"
#include "harness/store/rundoc.h"

/* After `run` was stored locally (in the store at `store_root`): adds it to
 * the note of its commit and says so on stderr ("notes: ..."), unless its
 * work tree was dirty (it did not measure the commit). With `stacks`, or
 * the git configuration perfgate.notesStacks true, its stacks go to the
 * stacks note too (pg_notes_stacks_record). A failure is a warning, not an
 * error: the local store has the run, which then stays there only, as the
 * warning says. */
void pg_notes_record(pg_repo *r, const pg_rundoc *run, const char *store_root, int stacks);

#endif
