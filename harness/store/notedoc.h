/* harness/store/notedoc.h — note documents, and the gate every note passes.
 *
 * A commit's note (harness/store/notes.h) is one JSON document: {"schema",
 * "commit", "runs": [...]}, each run an object with an "id". Two kinds exist,
 * the results note (run documents, "perfgate-notes/1") and the stacks note
 * (harness/store/notes_stacks.h, "perfgate-stacks/1"); each is described by a
 * pg_notekind, and everything here works on any kind.
 *
 * Notes come from anyone who can push to a shared remote, so what a note
 * brings is checked run by run before it is merged (docs/notes.md, "Trust"):
 * strict JSON (valid UTF-8, no key given twice), the kind's schema, the
 * commit it annotates, values and names as the reader allows them, stacks
 * paths relative and inside the store. A run that fails is dropped with one line
 * naming the note and the run; the rest of the note is kept.
 *
 * Merging is a union by run id, and nothing held is ever removed or
 * replaced: a run already held (same id, same content) is not added again;
 * a run with a held id but other content is dropped as a conflict.
 */
#ifndef PG_HARNESS_NOTEDOC_H
#define PG_HARNESS_NOTEDOC_H

#include "harness/store/rundoc.h"

#include <cjson/cJSON.h>
#include <stddef.h>

#define PG_NOTES_REF "refs/notes/perfgate"

typedef struct pg_notekind {
    const char *ref;        /* "refs/notes/perfgate" */
    const char *schema;     /* "perfgate-notes/1": of a new document; a note of another major version is refused */
    const char *noun;       /* what the ref holds, in messages: "notes", "stacks notes" */
    const char *what;       /* what one run of it is called in messages: "run", "run's stacks" */
    const char *max_key;    /* the git configuration of the largest note accepted, "perfgate.notesMax" */
    size_t max_default;     /* ... when not set, in bytes */
    /* Checks run `run`, at `index` in the note `name` of `commit` (full
     * hex); PG_EINVAL naming `name`, where and why. */
    int (*check_run)(const cJSON *run, size_t index, const char *name, const char *commit);
} pg_notekind;

/* The results note, refs/notes/perfgate. */
extern const pg_notekind pg_notekind_runs;

/* A note's text and what messages call it ("the note of 1a2b3c4d5e6f in
 * refs/notes/perfgate", "the fetched note of 1a2b3c4d5e6f from origin"). */
typedef struct pg_notetext {
    const char *text;       /* NULL: no note */
    size_t len;
    const char *name;
} pg_notetext;

typedef struct pg_notestat {
    size_t added;           /* runs added */
    size_t dropped;         /* runs refused (each said on stderr) */
} pg_notestat;

/* The note of `commit` holding the runs of `old` and the valid new runs of
 * `add`, as new text in *text. `old` is what is held (kept as it is,
 * unknown keys included, even runs this perfgate would not accept); it must
 * be a note document of `kind`, else PG_EINVAL (it is damaged). `add` is a
 * note document of `kind` or, for the results note, a run document or an
 * array of runs; text that is not one is PG_EINVAL, and its runs that fail
 * the gate are dropped, each with a warning line. *text is set, possibly
 * equal to `old`, whenever the return is 0. */
int pg_notedoc_union(char **text, pg_notestat *st, const pg_notetext *old, const pg_notetext *add,
                     const char *commit, const pg_notekind *kind);

/* Whether `note` is a note of `kind` for `commit` whose every run passes
 * the gate and whose run ids are distinct: what any merge writes. */
int pg_notedoc_check(const pg_notetext *note, const char *commit, const pg_notekind *kind);

/* Whether the fetched note `note` of `commit` may be kept byte for byte as
 * it came, the note of a commit that has none here: one JSON value with
 * nothing after it, strict throughout (valid UTF-8, no key twice, outside
 * the runs too), `kind`'s own schema, and pg_notedoc_check's: every run
 * through the gate, ids distinct. *runs counts its runs. 0 says nothing:
 * pg_notedoc_union then says what it drops and writes the rest anew. */
int pg_notedoc_intact(size_t *runs, const pg_notetext *note, const char *commit, const pg_notekind *kind);

/* Appends to `out` the runs of the results note `note` of `commit` that pass
 * the gate; each other run is left out with a warning line ("run <id>
 * ignored: ..."), so a note damaged before this gate existed still gives
 * its good runs. PG_EINVAL when `note` is not a note document at all. */
int pg_notedoc_read_runs(pg_rundoc_list *out, const pg_notetext *note, const char *commit);

/* The gate's checks of a run shared by every kind: an object with an "id"
 * of 1 to 128 printable ASCII characters, and no "commit" other than
 * `commit`. `what` and `index` place it for the message. */
int pg_notedoc_check_id(const cJSON *run, size_t index, const char *name, const char *commit);

/* Whether `path`, a path taken from a document, may name a file in the
 * store: relative, not empty, no "." or ".." component, no empty component. */
int pg_notedoc_path_ok(const char *path);

#endif
