/* harness/store/notes.h — results kept in git notes (refs/notes/perfgate), through libgit2.
 *
 * The note of a commit is one note document (harness/store/rundoc.h,
 * "perfgate-notes/1"): every run measured on that commit, of every machine
 * and backend, merged by run id. Logs stay in the local store (they are
 * large, and machine-local paths); stacks do too, unless asked for: then
 * they go to a notes ref of their own (harness/store/notes_stacks.h), written and
 * merged by the same code as the results, so that the results note stays
 * small. Every notes commit says what it added ("perfgate: run <id> of
 * <commit> on <host> (...)", "perfgate: merge notes from <remote>: N runs
 * added"), for `git log refs/notes/perfgate`. The notes ref only ever moves
 * forward: every update is a new notes commit whose parent is the old tip,
 * made with a compare-and-swap of the ref (retried when another perfgate won
 * the race), and notes of another clone are merged in by a merge commit,
 * never by replacing the ref. docs/notes.md says how they travel
 * (harness/store/notesync.h).
 */
#ifndef PG_HARNESS_NOTES_H
#define PG_HARNESS_NOTES_H

#include "harness/store/gitrepo.h"
#include "harness/store/notedoc.h"
#include "harness/store/rundoc.h"

/* PG_NOTES_REF, "refs/notes/perfgate": harness/store/notedoc.h */

/* What a measuring command puts in the notes (`notes` of harness/measure/plan.h). */
enum { PG_NOTES_NONE = 0, PG_NOTES_RUNS = 1, PG_NOTES_WITH_STACKS = 2 };

/* The note text of `commit` (full id) in `ref`; *text NULL when there is none.
 * Free with free(). */
int pg_notes_read(char **text, pg_repo *r, const char *ref, const char *commit);

/* Merges the document `doc` into the note of `commit` in `kind`'s ref
 * (harness/store/notedoc.h: through the gate), as a new notes commit saying
 * `msg`, moved onto the ref with a compare-and-swap (another writer first:
 * read its tip and try again). *added counts the runs added; none: the ref
 * does not move. A run the gate refuses is an error. */
int pg_notes_add(size_t *added, pg_repo *r, const pg_notekind *kind, const char *commit, const char *doc,
                 const char *msg);

/* The git configuration `key` as a size in bytes (git's k/m/g suffixes), or
 * `fallback` when it is not set (or not a size > 0: a warning says so). */
size_t pg_notes_config_size(pg_repo *r, const char *key, size_t fallback);

/* Whether `ref` exists in the repository. */
int pg_notes_exist(pg_repo *r, const char *ref);

/* Adds `run` to the note of `commit`. */
int pg_notes_add_run(pg_repo *r, const char *commit, const pg_rundoc *run);

/* Who measured `run` and what of it a notes commit adds (`n` of its
 * benchmarks), for the commit's message: "<host> (machine <id>, <backend>,
 * N benchmarks[, shard I/N])", "N of M benchmarks" when n is not all. */
void pg_notes_describe(char *out, size_t len, const pg_rundoc *run, size_t n);

/* Appends to `runs` the runs of the note of `commit` that pass the gate
 * (harness/store/notedoc.h; the others are left out with a warning) and that
 * `runs` does not hold already (same id, machine and times); *added counts
 * them. A note that is not a note document at all is an error naming it. */
int pg_notes_load(pg_rundoc_list *runs, size_t *added, pg_repo *r, const char *commit);

/* A fetched note judged where its bytes were already in memory (a fetch
 * from a local remote judges each note as it copies it, on two cores):
 * whether the blob `blob` may be kept as it came as the note of `target`
 * (pg_notedoc_intact), so that the merge need not read it again. */
typedef struct pg_notejudged {
    unsigned char blob[20], target[20];
    int intact;             /* 1 intact, 2 not, 0 not judged (over the size limit: the merge says so) */
    size_t runs;            /* intact: its runs */
} pg_notejudged;

/* Judges `data`, the blob j->blob as the note of j->target, for `kind` with
 * the size limit `max`: sets j->intact and j->runs. Safe beside itself on
 * another thread. */
void pg_notes_judge(pg_notejudged *j, const pg_notekind *kind, size_t max, const void *data, size_t len);

/* Merges the notes commit `theirs` (40 hex, present in the repository,
 * fetched from `from`) into `kind`'s ref. Every note of `theirs` goes
 * through the gate (harness/store/notedoc.h) into a union with ours: nothing held
 * here is removed or replaced, whatever `theirs` holds or lacks; a note over
 * the size limit (pg_notes_config_size of kind->max_key), one that annotates
 * something other than a commit, and each run the gate refuses are left out
 * with a warning line naming `from`. The result is a fast-forward to
 * `theirs` when that holds exactly the union, else a notes commit whose
 * parents are ours (when we had notes) and `theirs`, so a push after it is
 * a fast-forward. *changed is set when the ref moved; st counts the runs
 * added and dropped. `theirs` not a commit: PG_EINVAL, nothing changes. */
int pg_notes_merge(int *changed, pg_notestat *st, pg_repo *r, const pg_notekind *kind, const char *theirs,
                   const char *from);

/* pg_notes_merge, taking the judgements of `judged` (n of them, any order:
 * sorted here in place) for the notes they name, blob and commit alike; the
 * others are judged as pg_notes_merge judges them. */
int pg_notes_merge_judged(int *changed, pg_notestat *st, pg_repo *r, const pg_notekind *kind, const char *theirs,
                          const char *from, pg_notejudged *judged, size_t n);

#endif
