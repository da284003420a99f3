/* harness/store/notesync.h — sharing the notes (harness/store/notes.h) through git remotes.
 *
 * `perfgate fetch` and `perfgate push`, with libgit2. Nothing is ever forced:
 * a push the remote rejects (it has notes we lack: another CI job pushed
 * first) is followed by a fetch that merges them by run id, and the push is
 * tried again, a bounded number of times.
 *
 * libgit2's own push to a local repository (a path or file:// URL) moves the
 * remote ref without checking that it is still what it advertised, so two
 * concurrent pushers could lose one's notes. A local remote is therefore
 * pushed to by opening it with libgit2 directly: the objects go into its
 * object database as a pack, then its ref moves with a compare-and-swap.
 * Every other transport (ssh, https) is libgit2's git_remote_push, where the
 * server checks the old value.
 */
#ifndef PG_HARNESS_NOTESYNC_H
#define PG_HARNESS_NOTESYNC_H

#include "harness/store/gitrepo.h"

enum { PG_FETCH_NONE, PG_FETCH_UPTODATE, PG_FETCH_MERGED };

/* Fetches `remote`'s notes (a remote's name, a URL or a path), results and
 * stacks (harness/store/notes_stacks.h), and merges them into ours. *result for
 * the results, *stacks for the stacks: PG_FETCH_NONE when the remote has no
 * such notes (not an error), PG_FETCH_UPTODATE when we had them all,
 * PG_FETCH_MERGED when ours moved. */
int pg_notes_fetch(int *result, int *stacks, pg_repo *r, const char *remote);

/* Pushes our notes ref `ref` (PG_NOTES_REF or PG_NOTES_STACKS_REF) to
 * `remote`, retrying a rejected push up to `tries` times in all (fetch and
 * merge both refs, push). *used counts the pushes made; *uptodate is set when
 * the remote had them all already. */
int pg_notes_push(int *used, int *uptodate, pg_repo *r, const char *remote, const char *ref, int tries);

#endif
