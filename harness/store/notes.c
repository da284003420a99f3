/* harness/store/notes.c — see notes.h. */
#include "harness/store/notes.h"
#include "harness/store/git2.h"
#include "util/array.h"
#include "util/error.h"
#include "util/pair.h"
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
    const pg_notejudged *judged;    /* judged before the merge, sorted (judged_cmp) */
    size_t njudged;
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
 * with a warning when not; NULL and an error when reading failed. `out`
 * NULL: only whether it is one to merge, 1 when it is. */
static int fetched_note(git_blob **out, const merging *m, const git_oid *blob_id, const git_oid *target,
                        const char *tname)
{
    git_odb *odb = NULL;
    size_t size = 0;
    git_object_t type = GIT_OBJECT_INVALID;
    char got[32], max[32];
    if (out)
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
    if (rc == 0 && !out)
        return 1;                                   /* to merge; not read */
    if (rc == 0 && git_blob_lookup(out, m->repo, blob_id) < 0)
        rc = git_fail("cannot read a fetched note");
    return rc < 0 ? rc : 0;
}

/* A note in a notes tree: the commit it annotates, its blob, and where it is
 * ("1a2b...", or with git's fan-out "1a/2b..."). */
typedef struct note_ent {
    git_oid target, blob;
    char path[64];
    size_t order;           /* in the tree's walk: a commit's notes given twice are merged in this order */
} note_ent;

/* Every note of a notes tree, sorted by commit. */
typedef struct note_tree {
    git_tree *tree;
    note_ent *v;
    size_t n, cap;
    int clean;              /* nothing but notes: each a regular file at a note's path, each commit once */
    int oom;
} note_tree;

/* git_tree_walk's callback: a note is a blob whose path, without its
 * slashes, is 40 hex digits, under fan-out directories of two (where
 * libgit2 and git look notes up); anything else makes the tree unclean. */
static int walk_note(const char *root, const git_tree_entry *e, void *payload)
{
    note_tree *t = payload;
    const char *name = git_tree_entry_name(e);
    size_t rl = strlen(root), nl = strlen(name);
    char hex[GIT_OID_HEXSZ + 1];
    size_t h = 0;
    int ishex = rl + nl < sizeof t->v->path;
    for (const char *p = root; ishex && *p; p++)
        if (*p != '/' && h < GIT_OID_HEXSZ)
            hex[h++] = *p;
    for (const char *p = name; ishex && *p; p++)
        ishex = h < GIT_OID_HEXSZ && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'));
    for (const char *p = name; ishex && *p; p++)
        hex[h++] = *p;
    if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
        if (ishex && nl == 2 && h < GIT_OID_HEXSZ)
            return 0;                               /* a fan-out directory: go in */
        t->clean = 0;
        return 1;
    }
    if (git_tree_entry_type(e) != GIT_OBJECT_BLOB || !ishex || h != GIT_OID_HEXSZ) {
        t->clean = 0;
        return 0;
    }
    if (git_tree_entry_filemode(e) != GIT_FILEMODE_BLOB)
        t->clean = 0;
    if (pg_array_grow(&t->v, &t->cap, t->n, sizeof *t->v, 256) < 0) {
        t->oom = 1;
        return -1;
    }
    note_ent *n = &t->v[t->n];
    hex[h] = '\0';
    git_oid_fromstr(&n->target, hex);
    git_oid_cpy(&n->blob, git_tree_entry_id(e));
    snprintf(n->path, sizeof n->path, "%s%s", root, name);
    n->order = t->n++;
    return 0;
}

static int ent_cmp(const void *a, const void *b)
{
    const note_ent *x = a, *y = b;
    int c = memcmp(x->target.id, y->target.id, GIT_OID_RAWSZ);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

static void note_tree_free(note_tree *t)
{
    git_tree_free(t->tree);
    free(t->v);
}

/* The notes of the notes commit `c`, sorted by the commit they annotate. */
static int note_tree_read(note_tree *t, git_repository *repo, const git_oid *c)
{
    git_commit *commit = NULL;
    memset(t, 0, sizeof *t);
    t->clean = 1;
    int rc = git_commit_lookup(&commit, repo, c) < 0 || git_commit_tree(&t->tree, commit) < 0 ? -1 : 0;
    git_commit_free(commit);
    if (rc == 0 && git_tree_walk(t->tree, GIT_TREEWALK_PRE, walk_note, t) < 0)
        return t->oom ? PG_ENOMEM : git_fail("cannot list the notes");
    if (rc < 0)
        return git_fail("cannot read the notes commit");
    if (t->n > 1)
        qsort(t->v, t->n, sizeof *t->v, ent_cmp);
    for (size_t i = 1; i < t->n; i++)
        if (git_oid_equal(&t->v[i].target, &t->v[i - 1].target))
            t->clean = 0;
    return 0;
}

/* The text of the blob `id`, as a note is read (up to a NUL: git_note_message). */
static int blob_text(char **text, git_repository *repo, const git_oid *id)
{
    git_blob *b = NULL;
    *text = NULL;
    if (git_blob_lookup(&b, repo, id) < 0)
        return git_fail("cannot read a note");
    size_t n = (size_t)git_blob_rawsize(b);
    const char *raw = git_blob_rawcontent(b);
    *text = malloc(n + 1);
    if (*text) {
        n = strnlen(raw, n);
        memcpy(*text, raw, n);
        (*text)[n] = '\0';
    }
    git_blob_free(b);
    return *text ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

/* Whether a fetched note may be kept as it came (pg_notedoc_intact), judged
 * before the merge: 0 not judged, 1 intact, 2 not. */
typedef struct judgement {
    int intact;
    size_t runs;
} judgement;

void pg_notes_judge(pg_notejudged *j, const pg_notekind *kind, size_t max, const void *data, size_t len)
{
    char hex[GIT_OID_HEXSZ + 1];
    git_oid target;
    j->intact = 0;
    j->runs = 0;
    if (len > max)
        return;                                     /* not judged: the merge warns */
    memcpy(target.id, j->target, GIT_OID_RAWSZ);
    git_oid_tostr(hex, sizeof hex, &target);
    pg_notetext a = {data, len, "a fetched note"};
    j->intact = pg_notedoc_intact(&j->runs, &a, hex, kind) ? 1 : 2;
}

static int judged_cmp(const void *a, const void *b)
{
    const pg_notejudged *x = a, *y = b;
    int c = memcmp(x->target, y->target, GIT_OID_RAWSZ);
    return c ? c : memcmp(x->blob, y->blob, GIT_OID_RAWSZ);
}

/* The judgement made before the merge of the note `e`, else NULL. */
static const pg_notejudged *judged_before(const merging *m, const note_ent *e)
{
    pg_notejudged key;
    if (!m->njudged)
        return NULL;
    memcpy(key.target, e->target.id, GIT_OID_RAWSZ);
    memcpy(key.blob, e->blob.id, GIT_OID_RAWSZ);
    return bsearch(&key, m->judged, m->njudged, sizeof key, judged_cmp);
}

/* Half of theirs' notes to judge, on a repository handle of its own (libgit2
 * objects are not shared between threads). */
typedef struct judging {
    const merging *m;
    const char *gitdir;
    const note_tree *t;
    judgement *v;           /* per note of t; v[k].intact -1: a note to judge */
    size_t from, to;
} judging;

static int judge_half(void *arg)
{
    judging *j = arg;
    git_repository *repo = NULL;
    git_odb *odb = NULL;
    if (j->from == j->to || git_repository_open(&repo, j->gitdir) < 0 || git_repository_odb(&odb, repo) < 0) {
        git_repository_free(repo);
        return 0;                                   /* not judged: the merge reads them itself */
    }
    for (size_t k = j->from; k < j->to; k++) {
        judgement *v = &j->v[k];
        size_t size;
        git_object_t type;
        git_odb_object *o = NULL;
        if (v->intact != -1)
            continue;
        v->intact = 0;
        if (git_odb_read_header(&size, &type, odb, &j->t->v[k].blob) < 0 || type != GIT_OBJECT_BLOB ||
            size > j->m->max || git_odb_read(&o, odb, &j->t->v[k].blob) < 0)
            continue;
        pg_notejudged one;
        memcpy(one.blob, j->t->v[k].blob.id, GIT_OID_RAWSZ);
        memcpy(one.target, j->t->v[k].target.id, GIT_OID_RAWSZ);
        pg_notes_judge(&one, j->m->kind, j->m->max, git_odb_object_data(o), git_odb_object_size(o));
        v->intact = one.intact;
        v->runs = one.runs;
        git_odb_object_free(o);
    }
    git_odb_free(odb);
    git_repository_free(repo);
    return 0;
}

/* Judges on two cores the notes of theirs that may be kept as they came:
 * the notes of commits ours has no note of, given once, but for those
 * judged before the merge. */
static int judge(judgement **out, const merging *m, const note_tree *o, const note_tree *t)
{
    judgement *v = calloc(t->n ? t->n : 1, sizeof *v);
    size_t i = 0, n = 0;
    if (!(*out = v))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t k = 0; k < t->n; k++) {
        while (i < o->n && memcmp(o->v[i].target.id, t->v[k].target.id, GIT_OID_RAWSZ) < 0)
            i++;
        int held = i < o->n && git_oid_equal(&o->v[i].target, &t->v[k].target);
        int twice = (k > 0 && git_oid_equal(&t->v[k - 1].target, &t->v[k].target)) ||
                    (k + 1 < t->n && git_oid_equal(&t->v[k + 1].target, &t->v[k].target));
        const pg_notejudged *before = held || twice ? NULL : judged_before(m, &t->v[k]);
        if (before && before->intact) {
            v[k].intact = before->intact;
            v[k].runs = before->runs;
        } else if (!held && !twice) {
            v[k].intact = -1;
            n++;
        }
    }
    judging a = {m, git_repository_path(m->repo), t, v, 0, t->n / 2}, b = a;
    b.from = a.to;
    b.to = t->n;
    return pg_pair_run(judge_half, &a, &b, n >= 16);
}

/* Merges the fetched note `theirs` of `target` into *cur, the note held so
 * far (*have 0: none): *cur becomes theirs itself when nothing is held and
 * the gate passes it whole (pg_notedoc_intact: not parsed, printed and
 * written again), else a new blob with the union when it adds runs. */
static int merge_note(git_oid *cur, int *have, const merging *m, const git_oid *theirs, const git_oid *target,
                      const judgement *judged)
{
    char *mine = NULL, *merged = NULL, tname[200], oname[96], hex[GIT_OID_HEXSZ + 1];
    git_blob *blob = NULL;
    if (*have && git_oid_equal(cur, theirs))
        return 0;                                   /* the very same note */
    git_oid_tostr(hex, sizeof hex, target);
    snprintf(tname, sizeof tname, "the fetched note of %.12s from %.120s", hex, m->from);
    snprintf(oname, sizeof oname, "the note of %.12s in %s", hex, m->kind->ref);
    if (!*have && judged && judged->intact == 1) {
        int rc = fetched_note(NULL, m, theirs, target, tname);
        if (rc == 1) {
            git_oid_cpy(cur, theirs);               /* judged intact on a thread of its own */
            *have = 1;
            m->st->added += judged->runs;
        }
        return rc < 0 ? rc : 0;
    }
    int rc = fetched_note(&blob, m, theirs, target, tname);
    if (rc < 0 || !blob)
        return rc;
    pg_notetext a = {git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), tname};
    size_t runs;
    if (!*have && !(judged && judged->intact == 2) && pg_notedoc_intact(&runs, &a, hex, m->kind)) {
        git_oid_cpy(cur, theirs);
        *have = 1;
        m->st->added += runs;
        git_blob_free(blob);
        return 0;
    }
    if (*have)
        rc = blob_text(&mine, m->repo, cur);
    pg_notestat st = {0};
    pg_notetext o = {mine, mine ? strlen(mine) : 0, oname};
    if (rc == 0 && pg_notedoc_union(&merged, &st, &o, &a, hex, m->kind) < 0) {
        /* Theirs is no note document, or ours is damaged: this note is
         * left as it is here, the others are merged. */
        pg_text_warn("warning: %s not merged: %s", tname, pg_error_last());
        pg_error_clear();
    } else if (rc == 0 && st.added) {
        if (git_blob_create_from_buffer(cur, m->repo, merged, strlen(merged)) < 0)
            rc = git_fail("cannot write a note");
        else
            *have = 1;
    }
    m->st->added += st.added;
    m->st->dropped += st.dropped;
    git_blob_free(blob);
    free(mine);
    free(merged);
    return rc;
}

/* A change to the notes tree: the note at `path` becomes `blob`. */
static int upsert(git_tree_update **u, size_t *n, size_t *cap, const char *path, const git_oid *blob)
{
    if (pg_array_grow(u, cap, *n, sizeof **u, 64) < 0)
        return -1;
    git_tree_update *x = &(*u)[(*n)++];
    memset(x, 0, sizeof *x);
    x->action = GIT_TREE_UPDATE_UPSERT;
    x->filemode = GIT_FILEMODE_BLOB;
    x->path = path;
    git_oid_cpy(&x->id, blob);
    return 0;
}

/* The notes tree of our notes (`ours`, NULL: none) with every note of
 * `theirs` merged in, in *out. Each commit's notes are merged once, ours
 * looked up in one sorted list, not read note by note; the tree is written
 * once. When theirs holds nothing but notes and each of its notes is what
 * the merge keeps (a clone with no note of those commits), the tree is
 * theirs with ours added: what was fetched is not written again. */
static int merge_trees(git_oid *out, const merging *m, const git_oid *ours, const git_oid *theirs)
{
    note_tree o = {0}, t = {0};
    git_tree_update *u = NULL, *ou = NULL;      /* changes to ours; our notes theirs lacks */
    size_t nu = 0, cu = 0, nou = 0, cou = 0;
    char (*paths)[64] = NULL;                   /* the paths of new notes */
    judgement *judged = NULL;
    int rc = ours ? note_tree_read(&o, m->repo, ours) : 0, as_theirs = 1;
    if (rc == 0)
        rc = note_tree_read(&t, m->repo, theirs);
    if (rc == 0 && ours && git_oid_equal(git_tree_id(o.tree), git_tree_id(t.tree))) {
        git_oid_cpy(out, git_tree_id(o.tree));      /* the same notes: nothing to merge */
        goto done;
    }
    if (rc == 0 && t.n && !(paths = calloc(t.n, sizeof *paths)))
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    if (rc == 0)
        rc = judge(&judged, m, &o, &t);
    size_t i = 0, k = 0;
    while (rc == 0 && (i < o.n || k < t.n)) {
        int c = i == o.n ? 1 : k == t.n ? -1 : memcmp(o.v[i].target.id, t.v[k].target.id, GIT_OID_RAWSZ);
        if (c < 0) {                                /* ours alone */
            rc = upsert(&ou, &nou, &cou, o.v[i].path, &o.v[i].blob);
            i++;
            continue;
        }
        git_oid cur, held;
        int have = c == 0, had = have;
        if (have && i + 1 < o.n && git_oid_equal(&o.v[i + 1].target, &o.v[i].target)) {
            /* ours has this commit's note twice: the one libgit2 reads */
            char *unused = NULL;
            rc = note_at(&unused, &held, m->repo, ours, &o.v[i].target);
            free(unused);
        } else if (have) {
            held = o.v[i].blob;
        }
        cur = held;
        size_t first = k;
        for (; rc == 0 && k < t.n && (k == first || git_oid_equal(&t.v[k].target, &t.v[first].target)); k++)
            rc = merge_note(&cur, &have, m, &t.v[k].blob, &t.v[k].target, &judged[k]);
        if (rc == 0 && (k - first != 1 || !have || !git_oid_equal(&cur, &t.v[first].blob)))
            as_theirs = 0;                          /* the tree will not be theirs */
        if (rc == 0 && have && (!had || !git_oid_equal(&cur, &held))) {
            if (had)
                snprintf(paths[first], sizeof paths[first], "%s", o.v[i].path);
            else
                git_oid_tostr(paths[first], sizeof paths[first], &t.v[first].target);
            rc = upsert(&u, &nu, &cu, paths[first], &cur);
        }
        while (had && i < o.n && git_oid_equal(&o.v[i].target, &t.v[first].target))
            i++;
    }
    if (rc < 0)
        goto done;
    git_tree *base = o.tree;
    git_treebuilder *tb = NULL;
    git_oid empty;
    if (as_theirs && t.clean && (!ours || o.clean)) {
        base = t.tree;                              /* theirs, as fetched, with ours added */
        free(u);
        u = ou, nu = nou, ou = NULL;
    }
    if (!base && (git_treebuilder_new(&tb, m->repo, NULL) < 0 || git_treebuilder_write(&empty, tb) < 0 ||
                  git_tree_lookup(&base, m->repo, &empty) < 0))
        rc = git_fail("cannot write the notes tree");
    else if (!nu)
        git_oid_cpy(out, git_tree_id(base));
    else if (git_tree_create_updated(out, m->repo, base, nu, u) < 0)
        rc = git_fail("cannot write the notes tree");
    if (base != o.tree && base != t.tree)
        git_tree_free(base);
    git_treebuilder_free(tb);
done:
    free(u);
    free(ou);
    free(paths);
    free(judged);
    note_tree_free(&o);
    note_tree_free(&t);
    return rc;
}

/* A notes commit with the tree `tree` whose parents are `ours` (NULL: none)
 * and `theirs`. */
static int merge_commit(git_oid *out, git_repository *repo, const git_oid *ours, const git_oid *theirs,
                        const git_oid *tree_id, const git_signature *sig, const char *msg)
{
    git_commit *parents[2] = {NULL, NULL};
    git_tree *tree = NULL;
    size_t np = 0;
    int rc = 0;
    if ((ours && git_commit_lookup(&parents[np++], repo, ours) < 0) || git_commit_lookup(&parents[np++], repo, theirs) < 0 ||
        git_tree_lookup(&tree, repo, tree_id) < 0 ||
        git_commit_create(out, repo, NULL, sig, sig, NULL, msg, tree, np, (const git_commit **)parents) < 0)
        rc = -1;
    git_tree_free(tree);
    git_commit_free(parents[0]);
    git_commit_free(parents[1]);
    return rc < 0 ? git_fail("cannot write the notes merge commit") : 0;
}

/* The tree of the commit `c`, in *out. */
static int tree_of(git_oid *out, git_repository *repo, const git_oid *c)
{
    git_commit *commit = NULL;
    int rc = git_commit_lookup(&commit, repo, c);
    if (rc == 0)
        git_oid_cpy(out, git_commit_tree_id(commit));
    git_commit_free(commit);
    return rc < 0 ? git_fail("cannot read the notes commit") : 0;
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
    return pg_notes_merge_judged(changed, st, r, kind, theirs_hex, from, NULL, 0);
}

int pg_notes_merge_judged(int *changed, pg_notestat *st, pg_repo *r, const pg_notekind *kind, const char *theirs_hex,
                          const char *from, pg_notejudged *judged, size_t njudged)
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
    merging m = {repo, kind, sig, from, pg_notes_config_size(r, kind->max_key, kind->max_default), st,
                 judged, njudged};
    if (njudged > 1)
        qsort(judged, njudged, sizeof *judged, judged_cmp);
    for (int t = 0; rc == 0 && t < CAS_TRIES; t++) {
        git_oid tip, next, merged, theirs_tree;
        int exists;
        char msg[512];
        st->added = st->dropped = 0;
        if ((rc = tip_of(&tip, &exists, repo, kind->ref)) < 0)
            break;
        if (exists && (git_oid_equal(&tip, &theirs) || git_graph_descendant_of(repo, &tip, &theirs) == 1))
            break;                                  /* we have all of theirs */
        if ((rc = merge_trees(&merged, &m, exists ? &tip : NULL, &theirs)) < 0 ||
            (rc = tree_of(&theirs_tree, repo, &theirs)) < 0)
            break;
        int ff = !exists || git_graph_descendant_of(repo, &theirs, &tip) == 1;
        snprintf(msg, sizeof msg, "perfgate: merge %s from %.200s: %zu %s%s added%s", kind->noun, from, st->added,
                 kind->what, st->added == 1 ? "" : "s", st->dropped ? " (and some refused)" : "");
        if (ff && git_oid_equal(&merged, &theirs_tree))
            rc = swap_ref(repo, kind->ref, &theirs, exists ? &tip : NULL, "perfgate: notes fetched (fast-forward)");
        else if ((rc = merge_commit(&next, repo, exists ? &tip : NULL, &theirs, &merged, sig, msg)) == 0)
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
