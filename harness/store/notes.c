/* harness/store/notes.c — see notes.h. */
#include "harness/store/notes.h"
#include "harness/store/git2.h"
#include "util/error.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Another perfgate moving the ref between our read and our write: try again
 * from its new tip. Each try is a few milliseconds; a hundred racing writers
 * would be needed to exhaust this. */
#define CAS_TRIES 100

static int git_fail(const char *what)
{
    return pg_error_set(PG_ERROR, "%s: %s", what, pg_repo_git_msg());
}

/* Notes are signed by the user git would use, else by perfgate. */
static int signature(git_signature **out, git_repository *repo)
{
    if (git_signature_default(out, repo) == 0)
        return 0;
    if (git_signature_now(out, "perfgate", "perfgate@localhost") == 0)
        return 0;
    return git_fail("cannot make a signature for the notes commit");
}

/* The tip of `ref`: *exists 0 when the ref is not there yet. */
static int tip_of(git_oid *tip, int *exists, git_repository *repo, const char *ref)
{
    int rc = git_reference_name_to_id(tip, repo, ref);
    *exists = rc == 0;
    if (rc == GIT_ENOTFOUND)
        return 0;
    return rc < 0 ? git_fail(ref) : 0;
}

/* Moves `ref` from `old` (NULL: it did not exist) to `new`. 1 when another
 * writer moved it first (the caller starts over), 0 done, < 0 an error. */
static int swap_ref(git_repository *repo, const char *ref, const git_oid *new, const git_oid *old, const char *msg)
{
    git_reference *out = NULL;
    int rc = old ? git_reference_create_matching(&out, repo, ref, new, 1, old, msg)
                 : git_reference_create(&out, repo, ref, new, 0, msg);
    git_reference_free(out);
    if (rc == GIT_EMODIFIED || rc == GIT_EEXISTS || rc == GIT_ELOCKED)
        return 1;
    return rc < 0 ? git_fail(ref) : 0;
}

/* After try `t` of a compare-and-swap loop ended in `rc`: 1 (another writer
 * moved the ref first) becomes 0, to read the new tip and try again after a
 * short wait, or the final error once CAS_TRIES are spent; anything else is
 * returned as it is. */
static int lost_race(int rc, int t, const char *ref)
{
    if (rc != 1)
        return rc;
    usleep(1000u * (unsigned)(1 + t % 10));
    return t + 1 < CAS_TRIES ? 0 : pg_error_set(PG_EIO, "cannot update %s: other writers kept moving it", ref);
}

/* The note of `target` in the notes commit `tip` (NULL: no notes): *text NULL
 * when none; its blob's id in *id when `id` is not NULL. */
static int note_at(char **text, git_oid *id, git_repository *repo, const git_oid *tip, const git_oid *target)
{
    *text = NULL;
    if (!tip)
        return 0;
    git_commit *c = NULL;
    git_note *n = NULL;
    if (git_commit_lookup(&c, repo, tip) < 0)
        return git_fail("cannot read the notes commit");
    int rc = git_note_commit_read(&n, repo, c, target);
    git_commit_free(c);
    if (rc == GIT_ENOTFOUND)
        return 0;
    if (rc < 0)
        return git_fail("cannot read a note");
    if (id)
        git_oid_cpy(id, git_note_id(n));
    *text = strdup(git_note_message(n));
    git_note_free(n);
    return *text ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

int pg_notes_exist(pg_repo *r, const char *ref)
{
    git_oid tip;
    return git_reference_name_to_id(&tip, pg_repo_git(r), ref) == 0;
}

int pg_notes_read(char **text, pg_repo *r, const char *ref, const char *commit)
{
    git_repository *repo = pg_repo_git(r);
    git_oid tip, target;
    int exists;
    *text = NULL;
    if (git_oid_fromstr(&target, commit) < 0)
        return pg_error_set(PG_EINVAL, "'%s' is not a commit id", commit);
    int rc = tip_of(&tip, &exists, repo, ref);
    return rc < 0 ? rc : note_at(text, NULL, repo, exists ? &tip : NULL, &target);
}

/* A new notes commit on `parent` (NULL: a first one) with the note of
 * `target` set to `text`, saying `msg` (NULL: libgit2's own words, for the
 * intermediate commits of a merge, which no ref ever names). */
static int note_commit(git_oid *out, git_repository *repo, const git_oid *parent, const git_oid *target,
                       const char *text, const git_signature *sig, const char *msg)
{
    git_commit *pc = NULL, *made = NULL;
    git_tree *tree = NULL;
    git_oid id;
    if (parent && git_commit_lookup(&pc, repo, parent) < 0)
        return git_fail("cannot read the notes commit");
    int rc = git_note_commit_create(msg ? &id : out, NULL, repo, pc, sig, sig, target, text, 1);
    /* git_note_commit_create takes no message and words every commit alike:
     * the same tree is committed again, saying what was added, for
     * `git log refs/notes/perfgate` (the first commit is left unreferenced). */
    if (rc == 0 && msg &&
        ((rc = git_commit_lookup(&made, repo, &id)) < 0 || (rc = git_commit_tree(&tree, made)) < 0 ||
         (rc = git_commit_create(out, repo, NULL, sig, sig, NULL, msg, tree, pc ? 1 : 0, (const git_commit **)&pc)) < 0))
        rc = -1;
    git_tree_free(tree);
    git_commit_free(made);
    git_commit_free(pc);
    return rc < 0 ? git_fail("cannot write a note") : 0;
}

int pg_notes_add(size_t *added, pg_repo *r, const pg_notekind *kind, const char *commit, const char *doc,
                 const char *msg)
{
    git_repository *repo = pg_repo_git(r);
    git_oid target;
    *added = 0;
    if (git_oid_fromstr(&target, commit) < 0)
        return pg_error_set(PG_EINVAL, "'%s' is not a commit id", commit);
    char name[96];
    snprintf(name, sizeof name, "the note of %.12s in %s", commit, kind->ref);
    git_signature *sig = NULL;
    int rc = signature(&sig, repo);
    for (int t = 0; rc == 0 && t < CAS_TRIES; t++) {
        git_oid tip, next;
        int exists;
        char *old = NULL, *text = NULL;
        pg_notestat st = {0};
        if ((rc = tip_of(&tip, &exists, repo, kind->ref)) == 0 &&
            (rc = note_at(&old, NULL, repo, exists ? &tip : NULL, &target)) == 0) {
            pg_notetext o = {old, old ? strlen(old) : 0, name}, a = {doc, strlen(doc), "the new document"};
            rc = pg_notedoc_union(&text, &st, &o, &a, commit, kind);
        }
        if (rc == 0 && st.dropped)
            rc = pg_error_set(PG_EINVAL, "%s: not added: the notes' gate refused it (said above)", name);
        *added = st.added;
        if (rc == 0 && *added)
            rc = note_commit(&next, repo, exists ? &tip : NULL, &target, text, sig, msg);
        if (rc == 0 && *added)
            rc = swap_ref(repo, kind->ref, &next, exists ? &tip : NULL, msg);
        free(old);
        free(text);
        if (rc == 0)
            break;
        rc = lost_race(rc, t, kind->ref);
    }
    git_signature_free(sig);
    return rc;
}

size_t pg_notes_config_size(pg_repo *r, const char *key, size_t fallback)
{
    git_config *cfg = NULL;
    int64_t v = 0;
    int rc = !r || git_repository_config_snapshot(&cfg, pg_repo_git(r)) < 0 ? GIT_ENOTFOUND
                                                                           : git_config_get_int64(&v, cfg, key);
    if ((rc < 0 && rc != GIT_ENOTFOUND) || (rc == 0 && v <= 0))
        pg_text_warn("warning: git config %s is not a size in bytes > 0 (such as 512k); using %zu", key, fallback);
    git_config_free(cfg);
    return rc < 0 || v <= 0 ? fallback : (size_t)v;
}

void pg_notes_describe(char *out, size_t len, const pg_rundoc *run, size_t n)
{
    char shard[48] = "", of[32] = "";
    if (run->shard_count)
        snprintf(shard, sizeof shard, ", shard %d/%d", run->shard_index, run->shard_count);
    if (n != run->nbench)
        snprintf(of, sizeof of, " of %zu", run->nbench);
    snprintf(out, len, "%s (machine %s, %s, %zu%s benchmark%s%s)", run->machine.hostname[0] ? run->machine.hostname : "?",
             run->machine.id, run->backend ? run->backend : "?", n, of, run->nbench == 1 ? "" : "s", shard);
}

int pg_notes_add_run(pg_repo *r, const char *commit, const pg_rundoc *run)
{
    char *doc = NULL, who[400], msg[600];
    size_t added;
    pg_notes_describe(who, sizeof who, run, run->nbench);
    snprintf(msg, sizeof msg, "perfgate: run %s of %.12s on %s", run->id ? run->id : "?", commit, who);
    int rc = pg_rundoc_write(&doc, run);
    if (rc == 0)
        rc = pg_notes_add(&added, r, &pg_notekind_runs, commit, doc, msg);
    free(doc);
    return rc;
}

static int same_run(const pg_rundoc *a, const pg_rundoc *b)
{
#define EQ(x, y) ((!(x) && !(y)) || ((x) && (y) && !strcmp((x), (y))))
    return EQ(a->id, b->id) && !strcmp(a->machine.id, b->machine.id) && EQ(a->start_time, b->start_time) &&
           EQ(a->end_time, b->end_time);
#undef EQ
}

int pg_notes_load(pg_rundoc_list *runs, size_t *added, pg_repo *r, const char *commit)
{
    char *text = NULL, name[96];
    *added = 0;
    int rc = pg_notes_read(&text, r, PG_NOTES_REF, commit);
    if (rc < 0 || !text)
        return rc;
    snprintf(name, sizeof name, "the note of %.12s in %s", commit, PG_NOTES_REF);
    pg_rundoc_list l = {0};
    pg_notetext note = {text, strlen(text), name};
    rc = pg_notedoc_read_runs(&l, &note, commit);
    free(text);
    size_t before = runs->n;
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        int dup = 0;
        for (size_t k = 0; k < before && !dup; k++)
            dup = same_run(&runs->v[k], &l.v[i]);
        if (dup)
            continue;
        if (runs->n == runs->cap) {
            size_t cap = runs->cap ? 2 * runs->cap : 4;
            pg_rundoc *v = realloc(runs->v, cap * sizeof *v);
            if (!v) {
                rc = pg_error_set(PG_ENOMEM, "out of memory");
                break;
            }
            runs->v = v;
            runs->cap = cap;
        }
        runs->v[runs->n++] = l.v[i];             /* moved */
        memset(&l.v[i], 0, sizeof l.v[i]);
        (*added)++;
    }
    pg_rundoc_list_free(&l);
    return rc;
}

/* ---- merging fetched notes ---- */

typedef struct merging {
    git_repository *repo;
    const pg_notekind *kind;
    const git_signature *sig;
    const char *from;
    size_t max;             /* the largest note taken */
    pg_notestat *st;
} merging;

static void size_text(char *out, size_t len, size_t bytes)
{
    if (bytes >= 1024 * 1024)
        snprintf(out, len, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
    else
        snprintf(out, len, "%.1f KiB", (double)bytes / 1024.0);
}

/* The fetched note `blob_id` of `target`, when it is one to merge: a blob
 * within the limit annotating a commit (or an object not here yet). NULL
 * with a warning when not; NULL and an error when reading failed. */
static int fetched_note(git_blob **out, const merging *m, const git_oid *blob_id, const git_oid *target,
                        const char *tname)
{
    git_odb *odb = NULL;
    size_t size = 0;
    git_object_t type = GIT_OBJECT_INVALID;
    char got[32], max[32];
    *out = NULL;
    if (git_repository_odb(&odb, m->repo) < 0)
        return git_fail("cannot read the fetched notes");
    int rc = git_odb_read_header(&size, &type, odb, target) == 0 && type != GIT_OBJECT_COMMIT ? 1 : 0;
    if (rc == 1)
        pg_text_warn("warning: %s annotates a %s, not a commit: not merged", tname, git_object_type2string(type));
    else if (git_odb_read_header(&size, &type, odb, blob_id) < 0 || type != GIT_OBJECT_BLOB)
        rc = git_fail("cannot read a fetched note");
    else if (size > m->max) {
        size_text(got, sizeof got, size);
        size_text(max, sizeof max, m->max);
        pg_text_warn("warning: %s is %s, over the %s limit for notes (git config %s): not merged", tname, got, max,
                     m->kind->max_key);
        rc = 1;
    }
    git_odb_free(odb);
    if (rc == 0 && git_blob_lookup(out, m->repo, blob_id) < 0)
        rc = git_fail("cannot read a fetched note");
    return rc < 0 ? rc : 0;
}

/* Merges one fetched note into the notes commit *out (NULL: none yet). */
static int merge_note(git_oid *out, int *have, const merging *m, const git_oid *blob_id, const git_oid *target)
{
    char *mine = NULL, *merged = NULL, tname[200], oname[96], hex[GIT_OID_HEXSZ + 1];
    git_blob *blob = NULL;
    git_oid mine_id;
    git_oid_tostr(hex, sizeof hex, target);
    snprintf(tname, sizeof tname, "the fetched note of %.12s from %.120s", hex, m->from);
    snprintf(oname, sizeof oname, "the note of %.12s in %s", hex, m->kind->ref);
    int rc = note_at(&mine, &mine_id, m->repo, *have ? out : NULL, target);
    if (rc == 0 && mine && git_oid_equal(&mine_id, blob_id))
        goto done;                                  /* the very same note */
    if (rc == 0)
        rc = fetched_note(&blob, m, blob_id, target, tname);
    if (rc == 0 && blob) {
        pg_notestat st = {0};
        pg_notetext o = {mine, mine ? strlen(mine) : 0, oname},
                    a = {git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), tname};
        if (pg_notedoc_union(&merged, &st, &o, &a, hex, m->kind) < 0) {
            /* Theirs is no note document, or ours is damaged: this note is
             * left as it is here, the others are merged. */
            pg_text_warn("warning: %s not merged: %s", tname, pg_error_last());
            pg_error_clear();
        } else if (st.added && (rc = note_commit(out, m->repo, *have ? out : NULL, target, merged, m->sig, NULL)) == 0) {
            *have = 1;
        }
        m->st->added += st.added;
        m->st->dropped += st.dropped;
    }
done:
    git_blob_free(blob);
    free(mine);
    free(merged);
    return rc;
}

/* Our notes (`ours`, NULL: none) with every note of `theirs` merged in, as a
 * chain of notes commits; *out is its last commit (`ours` when nothing was
 * added; *have 0 when there is none at all). */
static int merge_trees(git_oid *out, int *have, const merging *m, const git_oid *ours, const git_oid *theirs)
{
    git_commit *tc = NULL;
    git_note_iterator *it = NULL;
    *have = ours != NULL;
    if (ours)
        *out = *ours;
    if (git_commit_lookup(&tc, m->repo, theirs) < 0)
        return git_fail("cannot read the fetched notes commit");
    int rc = git_note_commit_iterator_new(&it, tc), next = 0;
    if (rc == GIT_ENOTFOUND)
        rc = next = GIT_ITEROVER;                   /* a notes commit without notes */
    else if (rc < 0)
        rc = git_fail("cannot list the fetched notes");
    git_oid blob_id, target;
    while (rc == 0 && (next = git_note_next(&blob_id, &target, it)) == 0)
        rc = merge_note(out, have, m, &blob_id, &target);
    if (rc == GIT_ITEROVER)
        rc = 0;
    else if (rc == 0 && next < 0 && next != GIT_ITEROVER)
        rc = git_fail("cannot list the fetched notes");
    git_note_iterator_free(it);
    git_commit_free(tc);
    return rc;
}

/* A notes commit with the tree of `merged` (NULL: an empty one) whose
 * parents are `ours` (NULL: none) and `theirs`. */
static int merge_commit(git_oid *out, git_repository *repo, const git_oid *ours, const git_oid *theirs,
                        const git_oid *merged, const git_signature *sig, const char *msg)
{
    git_commit *parents[2] = {NULL, NULL}, *m = NULL;
    git_tree *tree = NULL;
    git_treebuilder *tb = NULL;
    git_oid empty;
    size_t np = 0;
    int rc = 0;
    if ((ours && git_commit_lookup(&parents[np++], repo, ours) < 0) || git_commit_lookup(&parents[np++], repo, theirs) < 0)
        rc = -1;
    else if (merged)
        rc = git_commit_lookup(&m, repo, merged) < 0 || git_commit_tree(&tree, m) < 0 ? -1 : 0;
    else
        rc = git_treebuilder_new(&tb, repo, NULL) < 0 || git_treebuilder_write(&empty, tb) < 0 ||
                     git_tree_lookup(&tree, repo, &empty) < 0 ? -1 : 0;
    if (rc == 0 && git_commit_create(out, repo, NULL, sig, sig, NULL, msg, tree, np, (const git_commit **)parents) < 0)
        rc = -1;
    git_treebuilder_free(tb);
    git_tree_free(tree);
    git_commit_free(m);
    git_commit_free(parents[0]);
    git_commit_free(parents[1]);
    return rc < 0 ? git_fail("cannot write the notes merge commit") : 0;
}

/* Whether the notes commits `a` and `b` have the same tree. */
static int same_tree(git_repository *repo, const git_oid *a, const git_oid *b)
{
    git_commit *ca = NULL, *cb = NULL;
    int same = git_commit_lookup(&ca, repo, a) == 0 && git_commit_lookup(&cb, repo, b) == 0 &&
               git_oid_equal(git_commit_tree_id(ca), git_commit_tree_id(cb));
    git_commit_free(ca);
    git_commit_free(cb);
    return same;
}

/* `theirs` must be a commit: a ref pointing at a tree or a blob is refused. */
static int check_commit(git_repository *repo, const git_oid *theirs, const char *ref, const char *from)
{
    git_odb *odb = NULL;
    size_t size;
    git_object_t type = GIT_OBJECT_INVALID;
    int rc = git_repository_odb(&odb, repo) < 0 || git_odb_read_header(&size, &type, odb, theirs) < 0 ? -1 : 0;
    git_odb_free(odb);
    if (rc < 0)
        return git_fail("cannot read the fetched notes");
    if (type != GIT_OBJECT_COMMIT)
        return pg_error_set(PG_EINVAL, "%.120s's %s is a %s, not a notes commit: not merged (whoever can push there "
                            "must delete or fix that ref)", from, ref, git_object_type2string(type));
    return 0;
}

int pg_notes_merge(int *changed, pg_notestat *st, pg_repo *r, const pg_notekind *kind, const char *theirs_hex,
                   const char *from)
{
    git_repository *repo = pg_repo_git(r);
    git_oid theirs;
    git_signature *sig = NULL;
    *changed = 0;
    st->added = st->dropped = 0;
    if (git_oid_fromstr(&theirs, theirs_hex) < 0)
        return pg_error_set(PG_EINVAL, "'%s' is not a commit id", theirs_hex);
    int rc = check_commit(repo, &theirs, kind->ref, from);
    if (rc == 0)
        rc = signature(&sig, repo);
    merging m = {repo, kind, sig, from, pg_notes_config_size(r, kind->max_key, kind->max_default), st};
    for (int t = 0; rc == 0 && t < CAS_TRIES; t++) {
        git_oid tip, next, merged;
        int exists, have;
        char msg[512];
        st->added = st->dropped = 0;
        if ((rc = tip_of(&tip, &exists, repo, kind->ref)) < 0)
            break;
        if (exists && (git_oid_equal(&tip, &theirs) || git_graph_descendant_of(repo, &tip, &theirs) == 1))
            break;                                  /* we have all of theirs */
        if ((rc = merge_trees(&merged, &have, &m, exists ? &tip : NULL, &theirs)) < 0)
            break;
        int ff = !exists || git_graph_descendant_of(repo, &theirs, &tip) == 1;
        snprintf(msg, sizeof msg, "perfgate: merge %s from %.200s: %zu %s%s added%s", kind->noun, from, st->added,
                 kind->what, st->added == 1 ? "" : "s", st->dropped ? " (and some refused)" : "");
        if (ff && have && same_tree(repo, &merged, &theirs))
            rc = swap_ref(repo, kind->ref, &theirs, exists ? &tip : NULL, "perfgate: notes fetched (fast-forward)");
        else if ((rc = merge_commit(&next, repo, exists ? &tip : NULL, &theirs, have ? &merged : NULL, sig, msg)) == 0)
            rc = swap_ref(repo, kind->ref, &next, exists ? &tip : NULL, msg);
        if (rc == 0) {
            *changed = 1;
            break;
        }
        rc = lost_race(rc, t, kind->ref);
    }
    git_signature_free(sig);
    return rc;
}
