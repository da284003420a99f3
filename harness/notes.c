/* harness/notes.c — see notes.h. */
#include "harness/notes.h"
#include "harness/notes_stacks.h"
#include "util/error.h"
#include "util/text.h"

#include <git2.h>
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

/* The note of `target` in the notes commit `tip` (NULL: no notes): *text NULL when none. */
static int note_at(char **text, git_repository *repo, const git_oid *tip, const git_oid *target)
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
    return rc < 0 ? rc : note_at(text, repo, exists ? &tip : NULL, &target);
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

int pg_notes_add(size_t *added, pg_repo *r, const char *ref, const char *commit, const char *doc,
                 pg_notes_merge_fn merge, const char *msg)
{
    git_repository *repo = pg_repo_git(r);
    git_oid target;
    *added = 0;
    if (git_oid_fromstr(&target, commit) < 0)
        return pg_error_set(PG_EINVAL, "'%s' is not a commit id", commit);
    char name[96];
    snprintf(name, sizeof name, "the note of %.12s in %s", commit, ref);
    git_signature *sig = NULL;
    int rc = signature(&sig, repo);
    for (int t = 0; rc == 0 && t < CAS_TRIES; t++) {
        git_oid tip, next;
        int exists;
        char *old = NULL, *text = NULL;
        if ((rc = tip_of(&tip, &exists, repo, ref)) == 0 &&
            (rc = note_at(&old, repo, exists ? &tip : NULL, &target)) == 0)
            rc = merge(&text, added, old, old ? strlen(old) : 0, name, doc, strlen(doc), "the new document", commit);
        if (rc == 0 && *added)
            rc = note_commit(&next, repo, exists ? &tip : NULL, &target, text, sig, msg);
        if (rc == 0 && *added)
            rc = swap_ref(repo, ref, &next, exists ? &tip : NULL, msg);
        free(old);
        free(text);
        if (rc == 0)
            break;
        rc = lost_race(rc, t, ref);
    }
    git_signature_free(sig);
    return rc;
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
        rc = pg_notes_add(&added, r, PG_NOTES_REF, commit, doc, pg_notedoc_merge, msg);
    free(doc);
    return rc;
}

void pg_notes_record(pg_repo *r, const pg_rundoc *run, const char *store_root, int stacks)
{
    if (!r || !run->commit)
        return;
    if (run->dirty) {
        pg_text_warn("note: not added to %s: the work tree was dirty, so the run did not measure %.12s", PG_NOTES_REF,
                     run->commit);
        return;
    }
    stacks = stacks || pg_notes_stacks_configured(r);
    if (pg_notes_add_run(r, run->commit, run) < 0) {
        pg_text_warn("warning: the run is in the local store only, not in %s: %s", PG_NOTES_REF, pg_error_last());
        return;
    }
    pg_text_warn("notes: run added to %s on %.12s (logs %sstay in the local store; 'perfgate push' shares the notes)",
                 PG_NOTES_REF, run->commit, stacks ? "" : "and stacks ");
    if (stacks)
        pg_notes_stacks_record(r, run, store_root);
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
    rc = pg_rundoc_parse(&l, text, strlen(text), name);
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

/* Our notes (`ours`) with every note of `theirs` merged in, as a chain of
 * notes commits on `ours`; *out is its last commit (`ours` when nothing changed). */
static int merge_trees(git_oid *out, size_t *total, git_repository *repo, const git_oid *ours, const git_oid *theirs,
                       const git_signature *sig, pg_notes_merge_fn merge)
{
    git_commit *tc = NULL;
    git_note_iterator *it = NULL;
    *out = *ours;
    if (git_commit_lookup(&tc, repo, theirs) < 0)
        return git_fail("cannot read the fetched notes commit");
    int rc = git_note_commit_iterator_new(&it, tc);
    if (rc < 0) {
        git_commit_free(tc);
        return git_fail("cannot list the fetched notes");
    }
    git_oid blob_id, target;
    int next = 0;
    while (rc == 0 && (next = git_note_next(&blob_id, &target, it)) == 0) {
        char *mine = NULL, *merged = NULL, tname[64], oname[64], hex[GIT_OID_HEXSZ + 1];
        git_blob *blob = NULL;
        size_t added = 0;
        git_oid_tostr(hex, sizeof hex, &target);
        snprintf(tname, sizeof tname, "the fetched note of %.12s", hex);
        snprintf(oname, sizeof oname, "the note of %.12s", hex);
        if ((rc = note_at(&mine, repo, ours, &target)) == 0 && git_blob_lookup(&blob, repo, &blob_id) < 0)
            rc = git_fail("cannot read a fetched note");
        if (rc == 0)
            rc = merge(&merged, &added, mine, mine ? strlen(mine) : 0, oname, git_blob_rawcontent(blob),
                       (size_t)git_blob_rawsize(blob), tname, hex);
        if (rc == 0 && added)
            rc = note_commit(out, repo, out, &target, merged, sig, NULL);
        *total += added;
        git_blob_free(blob);
        free(mine);
        free(merged);
    }
    if (rc == 0 && next < 0 && next != GIT_ITEROVER)
        rc = git_fail("cannot list the fetched notes");
    git_note_iterator_free(it);
    git_commit_free(tc);
    return rc;
}

/* A merge commit of `ours` and `theirs` with the tree of `merged`. */
static int merge_commit(git_oid *out, git_repository *repo, const git_oid *ours, const git_oid *theirs,
                        const git_oid *merged, const git_signature *sig, const char *msg)
{
    git_commit *parents[2] = {NULL, NULL}, *m = NULL;
    git_tree *tree = NULL;
    int rc = 0;
    if (git_commit_lookup(&parents[0], repo, ours) < 0 || git_commit_lookup(&parents[1], repo, theirs) < 0 ||
        git_commit_lookup(&m, repo, merged) < 0 || git_commit_tree(&tree, m) < 0 ||
        git_commit_create(out, repo, NULL, sig, sig, NULL, msg, tree, 2,
                          (const git_commit **)parents) < 0)
        rc = git_fail("cannot write the notes merge commit");
    git_tree_free(tree);
    git_commit_free(m);
    git_commit_free(parents[0]);
    git_commit_free(parents[1]);
    return rc;
}

int pg_notes_merge(int *changed, size_t *added, pg_repo *r, const char *ref, const char *theirs_hex, const char *from)
{
    git_repository *repo = pg_repo_git(r);
    git_oid theirs;
    git_signature *sig = NULL;
    pg_notes_merge_fn merge = strcmp(ref, PG_NOTES_STACKS_REF) ? pg_notedoc_merge : pg_stacksdoc_merge;
    *changed = 0;
    *added = 0;
    if (git_oid_fromstr(&theirs, theirs_hex) < 0)
        return pg_error_set(PG_EINVAL, "'%s' is not a commit id", theirs_hex);
    int rc = signature(&sig, repo);
    for (int t = 0; rc == 0 && t < CAS_TRIES; t++) {
        git_oid tip, next, merged;
        int exists;
        char msg[512];
        *added = 0;
        if ((rc = tip_of(&tip, &exists, repo, ref)) < 0)
            break;
        if (!exists) {
            rc = swap_ref(repo, ref, &theirs, NULL, "perfgate: notes fetched");
        } else if (git_oid_equal(&tip, &theirs) || git_graph_descendant_of(repo, &tip, &theirs) == 1) {
            break;                                  /* we have all of theirs */
        } else if (git_graph_descendant_of(repo, &theirs, &tip) == 1) {
            rc = swap_ref(repo, ref, &theirs, &tip, "perfgate: notes fetched (fast-forward)");
        } else if ((rc = merge_trees(&merged, added, repo, &tip, &theirs, sig, merge)) == 0) {
            int st = merge != pg_notedoc_merge;
            snprintf(msg, sizeof msg, "perfgate: merge %snotes from %s: %s%zu run%s added", st ? "stacks " : "", from,
                     st ? "the stacks of " : "", *added, *added == 1 ? "" : "s");
            if ((rc = merge_commit(&next, repo, &tip, &theirs, &merged, sig, msg)) == 0)
                rc = swap_ref(repo, ref, &next, &tip, msg);
        }
        if (rc == 0) {
            *changed = 1;
            break;
        }
        rc = lost_race(rc, t, ref);
    }
    git_signature_free(sig);
    return rc;
}
