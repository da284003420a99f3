/* harness/store/notesync.c — see notesync.h. */
#include "harness/store/notesync.h"
#include "harness/store/git2.h"
#include "harness/store/gittls.h"
#include "harness/store/notes.h"
#include "harness/store/notes_stacks.h"
#include "harness/store/packwrite.h"
#include "util/array.h"
#include "util/error.h"
#include "util/text.h"

#include <git2/sys/odb_backend.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static int git_fail(const char *what, const char *remote)
{
    return pg_error_set(PG_ERROR, "%s %s: %s", what, remote, pg_repo_git_msg());
}

/* The repository path of a local URL (a path or file://), else 0. */
static int local_path(char *out, size_t len, const char *url)
{
    if (!strncmp(url, "file://", 7)) {
        snprintf(out, len, "%s", url + 7);
        return 1;
    }
    const char *colon = strchr(url, ':'), *slash = strchr(url, '/');
    if (strstr(url, "://") || (colon && (!slash || colon < slash)))
        return 0;                       /* a URL, or scp-like host:path */
    snprintf(out, len, "%s", url);
    return 1;
}

/* A remote by name, else a URL or a path as an anonymous remote. Only a
 * remote reached through a transport reads the TLS certificates: parsing the
 * CA bundle (harness/store/gittls.h) cost a local fetch 9 ms and 0.4 MiB of
 * its heap peak. */
static int remote_open(git_remote **out, git_repository *repo, const char *name)
{
    int rc = git_remote_lookup(out, repo, name);
    struct stat st;
    if (rc < 0 && !strchr(name, '/') && !strchr(name, ':') && stat(name, &st) < 0)
        return pg_error_set(PG_ENOTFOUND, "no remote named '%s' ('git remote -v' lists them; a URL or a path works too)",
                            name);
    if (rc < 0 && git_remote_create_anonymous(out, repo, name) < 0)
        return git_fail("cannot use the remote", name);
    char path[4096];
    const char *url = git_remote_url(*out) ? git_remote_url(*out) : name;
    if (!local_path(path, sizeof path, url) && (rc = pg_gittls_load(NULL)) < 0) {
        git_remote_free(*out);
        *out = NULL;
        return rc;
    }
    return 0;
}

/* Credentials: ssh through the agent; https takes them from the URL
 * (libgit2) or from the extra headers below. */
static int credentials(git_credential **out, const char *url, const char *user, unsigned int allowed, void *payload)
{
    (void)url;
    (void)payload;
    if (allowed & GIT_CREDENTIAL_SSH_KEY)
        return git_credential_ssh_key_from_agent(out, user ? user : "git");
    return GIT_PASSTHROUGH;
}

/* `http.<url>.extraheader` of git's configuration whose <url> starts the
 * remote's URL (actions/checkout keeps its token there), or `http.extraheader`. */
typedef struct headers {
    char *v[8];
    size_t n;
} headers;

static void headers_of(headers *h, git_repository *repo, const char *url)
{
    git_config *cfg = NULL;
    git_config_iterator *it = NULL;
    git_config_entry *e;
    h->n = 0;
    if (git_repository_config_snapshot(&cfg, repo) < 0)
        return;
    if (git_config_iterator_glob_new(&it, cfg, "^http\\..*extraheader$") == 0) {
        while (h->n < sizeof h->v / sizeof h->v[0] && git_config_next(&e, it) == 0) {
            const char *sub = e->name + 5;                  /* after "http." */
            size_t sublen = strlen(sub) - strlen(".extraheader");
            if (strcmp(sub, "extraheader") && (sublen > strlen(url) || strncmp(sub, url, sublen)))
                continue;
            if ((h->v[h->n] = strdup(e->value)))
                h->n++;
        }
        git_config_iterator_free(it);
    }
    git_config_free(cfg);
}

static void headers_free(headers *h)
{
    for (size_t i = 0; i < h->n; i++)
        free(h->v[i]);
}

static void ref_delete(git_repository *repo, const char *name)
{
    git_reference *old = NULL;
    if (git_reference_lookup(&old, repo, name) == 0) {
        git_reference_delete(old);
        git_reference_free(old);
    }
}

/* Merges what was fetched to `tmp` (when the remote had the ref) into `kind`'s ref,
 * with the judgements made as it was copied (n of them). */
static int merge_fetched(int *result, pg_repo *r, const pg_notekind *kind, const char *tmp, const char *name,
                         pg_notejudged *judged, size_t n)
{
    git_repository *repo = pg_repo_git(r);
    git_oid theirs;
    *result = PG_FETCH_NONE;
    if (git_reference_name_to_id(&theirs, repo, tmp) < 0)
        return 0;
    char hex[GIT_OID_HEXSZ + 1];
    int changed;
    pg_notestat st;
    git_oid_tostr(hex, sizeof hex, &theirs);
    int rc = pg_notes_merge_judged(&changed, &st, r, kind, hex, name, judged, n);
    *result = changed ? PG_FETCH_MERGED : PG_FETCH_UPTODATE;
    ref_delete(repo, tmp);
    return rc;
}

/* refs/perfgate/fetch-<pid> and fetch-stacks-<pid> of perfgates that are
 * gone (killed during a fetch): the objects they hold are not ours to keep. */
static void sweep_fetch_refs(git_repository *repo)
{
    git_reference_iterator *it = NULL;
    git_reference *ref;
    if (git_reference_iterator_glob_new(&it, repo, "refs/perfgate/fetch-*") < 0)
        return;
    while (git_reference_next(&ref, it) == 0) {
        const char *n = git_reference_name(ref) + strlen("refs/perfgate/fetch-");
        if (!strncmp(n, "stacks-", 7))
            n += 7;
        char *end;
        long pid = strtol(n, &end, 10);
        if (*end || pid <= 0 || pid > INT_MAX || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
            git_reference_delete(ref);
        git_reference_free(ref);
    }
    git_reference_iterator_free(it);
}

/* ---- fetching from a local repository ---- */

/* Whether ours holds `id`. An object not found makes libgit2 list the pack
 * directory again, in case a pack came meanwhile: at each object a fetch
 * brings. Without that, an object packed here by a concurrent repack is at
 * worst copied once more, as a loose object. */
static int held(git_odb *ours, const git_oid *id)
{
    return git_odb_exists_ext(ours, id, GIT_ODB_LOOKUP_NO_REFRESH);
}

/* The objects copied so far, by id (open addressing; ids are hashes). */
typedef struct oidset {
    git_oid *v;
    size_t cap, n;
} oidset;

/* Adds `id`: 1 when it was there already, 0 added, < 0 out of memory. */
static int oidset_add(oidset *s, const git_oid *id)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        git_oid *v = calloc(cap, sizeof *v), zero = {{0}};
        if (!v)
            return pg_error_set(PG_ENOMEM, "out of memory");
        for (size_t i = 0; i < s->cap; i++) {
            if (!memcmp(&s->v[i], &zero, sizeof zero))
                continue;
            size_t h;
            memcpy(&h, s->v[i].id, sizeof h);
            for (h &= cap - 1; memcmp(&v[h], &zero, sizeof zero); h = (h + 1) & (cap - 1))
                ;
            v[h] = s->v[i];
        }
        free(s->v);
        s->v = v;
        s->cap = cap;
    }
    size_t h;
    git_oid zero = {{0}};
    memcpy(&h, id->id, sizeof h);
    for (h &= s->cap - 1; memcmp(&s->v[h], &zero, sizeof zero); h = (h + 1) & (s->cap - 1))
        if (git_oid_equal(&s->v[h], id))
            return 1;
    s->v[h] = *id;
    s->n++;
    return 0;
}

typedef struct copier {
    const char *path;       /* src's, for messages */
    git_repository *src;
    git_odb *from, *to;     /* src's; ours, to look objects up */
    pg_packwrite *pack;     /* ours, to write objects into (copy_deferred) */
    oidset seen;
    const pg_notekind *kind;
    /* The blobs to copy, after the walk (copy_deferred): each note (its
     * path a commit's id: intact -1 until judged) judged as it is copied. */
    pg_notejudged *blobs;
    size_t nblobs, cap;
    git_oid *trees;         /* each after the trees it names */
    size_t ntrees, trees_cap;
    git_oid *commits;       /* newest first, as walked */
    size_t ncommits, commits_cap;
} copier;

/* An object is read from src unverified (see pg_notes_fetch): the id it
 * would be written under here is not the one src named it by. */
static int damaged(const copier *c, const git_oid *written, const git_oid *id)
{
    char want[GIT_OID_HEXSZ + 1];
    git_oid_tostr(want, sizeof want, id);
    return pg_error_set(PG_EINVAL, "%s: object %s is damaged (its content hashes to %s)", c->path, want,
                        git_oid_tostr_s(written));
}

/* The object `id`, read from src as `obj`, written into our pack. */
static int write_raw(const copier *c, git_odb_object *obj, const git_oid *id)
{
    git_oid written;
    int rc = pg_packwrite_add(&written, c->pack, git_odb_object_type(obj), git_odb_object_data(obj),
                              git_odb_object_size(obj), id);
    return rc < 0 ? pg_error_wrap(rc, "cannot copy the notes of %s", c->path) : rc ? damaged(c, &written, id) : 0;
}

/* The object `id` read from src and written into our pack. */
static int copy_raw(const copier *c, const git_oid *id)
{
    git_odb_object *obj = NULL;
    int rc = git_odb_read(&obj, c->from, id) < 0 ? git_fail("cannot read the notes of", c->path) : write_raw(c, obj, id);
    git_odb_object_free(obj);
    return rc;
}

/* A tree or commit to write once the blobs are in (so that whatever we hold,
 * we hold whole: a fetch cut short leaves no tree without its notes, no
 * commit without its tree and parents). */
static int defer_write(git_oid **v, size_t *n, size_t *cap, const git_oid *id)
{
    if (pg_array_grow(v, cap, *n, sizeof **v, 256) < 0)
        return pg_error_set(PG_ENOMEM, "out of memory");
    (*v)[(*n)++] = *id;
    return 0;
}

/* Whether `name` is lowercase hex that, after the `plen` digits of the
 * directories above it, makes `want` digits in all. */
static int hex_name(const char *name, size_t plen, size_t want)
{
    size_t n = strlen(name);
    if (plen + n != want)
        return 0;
    for (; *name; name++)
        if (!((*name >= '0' && *name <= '9') || (*name >= 'a' && *name <= 'f')))
            return 0;
    return 1;
}

/* The blob `id` at `name` in a tree whose directories spell `prefix` (plen
 * hex digits; SIZE_MAX: not a note's path), to copy after the walk: a note
 * when its path is a commit's id (the merge's reading of a notes tree). */
static int defer_blob(copier *c, const git_oid *id, const char *prefix, size_t plen, const char *name)
{
    int rc = oidset_add(&c->seen, id);
    if (rc != 0 || held(c->to, id))
        return rc < 0 ? rc : 0;
    if (pg_array_grow(&c->blobs, &c->cap, c->nblobs, sizeof *c->blobs, 256) < 0)
        return pg_error_set(PG_ENOMEM, "out of memory");
    pg_notejudged *b = &c->blobs[c->nblobs++];
    memset(b, 0, sizeof *b);
    memcpy(b->blob, id->id, GIT_OID_RAWSZ);
    if (plen != SIZE_MAX && hex_name(name, plen, GIT_OID_HEXSZ)) {
        char hex[GIT_OID_HEXSZ + 1];
        git_oid target;
        snprintf(hex, sizeof hex, "%.*s%s", (int)plen, prefix, name);
        if (git_oid_fromstr(&target, hex) == 0) {
            memcpy(b->target, target.id, GIT_OID_RAWSZ);
            b->intact = -1;
        }
    }
    return 0;
}

/* The tree `id` and everything under it that we lack, its blobs deferred
 * (defer_blob). A tree held is held whole (git's rule), so nothing under it
 * is looked at again. `prefix`, `plen`: the hex its directories spell. */
static int copy_tree(copier *c, const git_oid *id, int depth, const char *prefix, size_t plen)
{
    if (depth > 64)
        return pg_error_set(PG_EINVAL, "a notes tree nested over 64 deep");
    int rc = oidset_add(&c->seen, id);
    if (rc != 0 || held(c->to, id))
        return rc < 0 ? rc : 0;
    git_tree *t = NULL;
    if (git_tree_lookup(&t, c->src, id) < 0)
        return git_fail("cannot read the notes of", c->path);
    for (size_t i = 0; rc >= 0 && i < git_tree_entrycount(t); i++) {
        const git_tree_entry *e = git_tree_entry_byindex(t, i);
        const char *name = git_tree_entry_name(e);
        if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
            char sub[GIT_OID_HEXSZ + 1] = "";
            int fanout = plen != SIZE_MAX && hex_name(name, plen, plen + 2) && plen + 2 < GIT_OID_HEXSZ;
            if (fanout)
                snprintf(sub, sizeof sub, "%.*s%s", (int)plen, prefix, name);
            rc = copy_tree(c, git_tree_entry_id(e), depth + 1, sub, fanout ? plen + 2 : SIZE_MAX);
        } else if (git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
            rc = defer_blob(c, git_tree_entry_id(e), prefix, plen, name);
        }
    }
    git_tree_free(t);
    return rc < 0 ? rc : defer_write(&c->trees, &c->ntrees, &c->trees_cap, id);
}

/* The blobs are read on this thread and the notes among them written and
 * judged on another, handed over through a queue of at most 8 notes and
 * 1 MiB (but always one note): memory holds a few notes' bytes and one
 * note's parsed tree, however long the history. (Copied on two threads, half
 * each, a fetch of 1,000 notes had a second malloc arena of its own copies
 * and trees: 9-12 MiB more max RSS.) Of the CPU time of 1,000 notes, reading
 * is 2.5 s, writing 1.5 s (as loose objects; into a pack, less), judging
 * 1.9 s: a note is written on this thread when two wait already, so that
 * neither thread waits for the other long (a queue of two notes stalled
 * whenever either thread waited for a core: wall time 1.2x that of a queue
 * of eight with both cores busy). */
#define QUEUE_NOTES 8
#define QUEUE_BYTES ((size_t)1 << 20)

typedef struct handoff {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    git_odb_object *o[QUEUE_NOTES];
    pg_notejudged *b[QUEUE_NOTES];
    int written[QUEUE_NOTES];
    size_t head, n, bytes;  /* the oldest; notes and their bytes (the one being judged counts) */
    int done;               /* nothing more will come */
    const copier *c;
    int rc;                 /* the checker's first failure, its message in msg */
    char msg[600];
} handoff;

/* Writes the note `o` (unless written) and judges it into *b; frees o. */
static int write_judge(const copier *c, pg_notejudged *b, git_odb_object *o, int written)
{
    git_oid id;
    memcpy(id.id, b->blob, GIT_OID_RAWSZ);
    int rc = written ? 0 : write_raw(c, o, &id);
    b->intact = 0;
    if (rc == 0 && git_odb_object_type(o) == GIT_OBJECT_BLOB)
        pg_notes_judge(b, c->kind, c->kind->max_default, git_odb_object_data(o), git_odb_object_size(o));
    git_odb_object_free(o);
    return rc;
}

static void *checker(void *arg)
{
    handoff *h = arg;
    for (;;) {
        pthread_mutex_lock(&h->mu);
        while (!h->n && !h->done)
            pthread_cond_wait(&h->cv, &h->mu);
        if (!h->n) {
            pthread_mutex_unlock(&h->mu);
            return NULL;
        }
        git_odb_object *o = h->o[h->head];
        pg_notejudged *b = h->b[h->head];
        int written = h->written[h->head];
        size_t size = git_odb_object_size(o);
        pthread_mutex_unlock(&h->mu);
        int rc = write_judge(h->c, b, o, written);
        pthread_mutex_lock(&h->mu);
        if (rc < 0 && h->rc == 0) {
            h->rc = rc;
            snprintf(h->msg, sizeof h->msg, "%s", pg_error_last());
        }
        h->head = (h->head + 1) % QUEUE_NOTES;
        h->n--;
        h->bytes -= size;
        pthread_cond_signal(&h->cv);
        pthread_mutex_unlock(&h->mu);
    }
}

/* The note `o` (its judgement to be made in *b) to the checker, written
 * here first when the checker is behind; else written and judged here. */
static int hand_over(handoff *h, int threaded, pg_notejudged *b, git_odb_object *o)
{
    if (!threaded)
        return write_judge(h->c, b, o, 0);
    size_t size = git_odb_object_size(o);
    pthread_mutex_lock(&h->mu);
    int written = h->n >= 2, rc = 0;
    pthread_mutex_unlock(&h->mu);
    if (written) {
        git_oid id;
        memcpy(id.id, b->blob, GIT_OID_RAWSZ);
        if ((rc = write_raw(h->c, o, &id)) < 0) {
            git_odb_object_free(o);
            return rc;
        }
    }
    pthread_mutex_lock(&h->mu);
    while (!h->rc && (h->n == QUEUE_NOTES || (h->n && h->bytes + size > QUEUE_BYTES)))
        pthread_cond_wait(&h->cv, &h->mu);
    if ((rc = h->rc) < 0) {
        pthread_mutex_unlock(&h->mu);
        git_odb_object_free(o);
        return rc;                      /* said when the checker is joined */
    }
    size_t k = (h->head + h->n) % QUEUE_NOTES;
    h->o[k] = o;
    h->b[k] = b;
    h->written[k] = written;
    h->n++;
    h->bytes += size;
    pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return 0;
}

/* The blobs found by the walk, then the trees that name them, then the
 * commits, oldest first, into one pack (harness/store/packwrite.h): ours
 * holds all of them once it is committed, or none. */
static int copy_deferred(copier *c)
{
    size_t count = c->nblobs + c->ntrees + c->ncommits;
    if (!count)
        return 0;
    int rc = pg_packwrite_new(&c->pack, c->to, count);
    if (rc < 0)
        return pg_error_wrap(rc, "cannot fetch the notes of %s", c->path);
    handoff h = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {NULL}, {NULL}, {0}, 0, 0, 0, 0, c, 0, ""};
    pthread_t thread;
    int threaded = c->kind && c->nblobs >= 16 && pthread_create(&thread, NULL, checker, &h) == 0;
    /* The trees the walk parsed, kept in src's object cache, are not read
     * again: dropped (0.6 MiB of the heap peak of a fetch of 300 notes). */
    git_odb_free(c->from);
    c->from = NULL;
    git_repository__cleanup(c->src);
    if (git_repository_odb(&c->from, c->src) < 0)
        rc = git_fail("cannot read the notes of", c->path);
    for (size_t k = 0; rc == 0 && k < c->nblobs; k++) {
        pg_notejudged *b = &c->blobs[k];
        git_odb_object *o = NULL;
        git_oid id;
        memcpy(id.id, b->blob, GIT_OID_RAWSZ);
        if (b->intact != -1 || !c->kind) {
            rc = copy_raw(c, &id);
            b->intact = 0;
        } else if (git_odb_read(&o, c->from, &id) < 0) {
            rc = git_fail("cannot read the notes of", c->path);
        } else {
            /* The note's bytes are in memory here: judged now, the merge
             * does not read them again. */
            rc = hand_over(&h, threaded, b, o);
        }
    }
    if (threaded) {
        pthread_mutex_lock(&h.mu);
        h.done = 1;
        pthread_cond_signal(&h.cv);
        pthread_mutex_unlock(&h.mu);
        pthread_join(thread, NULL);
        if (h.rc < 0)
            rc = pg_error_set(h.rc, "%s", h.msg);
    }
    for (size_t k = 0; rc == 0 && k < c->ntrees; k++)
        rc = copy_raw(c, &c->trees[k]);
    for (size_t k = c->ncommits; rc == 0 && k > 0; k--)
        rc = copy_raw(c, &c->commits[k - 1]);
    if (rc == 0 && (rc = pg_packwrite_commit(c->pack)) < 0)
        rc = pg_error_wrap(rc, "cannot fetch the notes of %s", c->path);
    /* Ours looks in the pack directory again: the merge reads the notes. */
    if (rc == 0 && git_odb_refresh(c->to) < 0)
        rc = git_fail("cannot fetch the notes of", c->path);
    return rc;
}

/* Hides from `walk` (of src) our tip of `ref` and its parents, those src
 * has: the history held here, not walked again at each fetch. */
static int hide_ours(git_revwalk *walk, const copier *c, git_repository *repo, const char *ref)
{
    git_oid ours;
    git_commit *tip = NULL;
    if (git_reference_name_to_id(&ours, repo, ref) < 0 || git_commit_lookup(&tip, repo, &ours) < 0)
        return 0;
    int rc = git_odb_exists(c->from, &ours) ? git_revwalk_hide(walk, &ours) : 0;
    for (unsigned int i = 0; rc == 0 && i < git_commit_parentcount(tip); i++)
        if (git_odb_exists(c->from, git_commit_parent_id(tip, i)))
            rc = git_revwalk_hide(walk, git_commit_parent_id(tip, i));
    git_commit_free(tip);
    return rc;
}

/* The notes commit `tip` of src, and its history, into ours: the commits we
 * lack, each with its tree. */
static int copy_history(copier *c, const git_oid *tip, git_repository *repo, const char *ref)
{
    git_revwalk *walk = NULL;
    git_oid id;
    int rc = git_revwalk_new(&walk, c->src) < 0 || git_revwalk_push(walk, tip) < 0 ||
             hide_ours(walk, c, repo, ref) < 0 ? 1 : 0, next = 0;
    while (rc == 0 && (next = git_revwalk_next(&id, walk)) == 0) {
        if (held(c->to, &id))
            continue;                       /* held, and all it names */
        git_commit *commit = NULL;
        if (git_commit_lookup(&commit, c->src, &id) < 0)
            rc = 1;
        else if ((rc = copy_tree(c, git_commit_tree_id(commit), 0, "", 0)) == 0 &&
                 (rc = oidset_add(&c->seen, &id)) >= 0)
            rc = defer_write(&c->commits, &c->ncommits, &c->commits_cap, &id);
        git_commit_free(commit);
    }
    git_revwalk_free(walk);
    if (rc == 1 || (rc == 0 && next != GIT_ITEROVER))
        return git_fail("cannot read the notes of", c->path);
    return rc;
}

/* Fetches `ref` of the local repository `src` to `tmp`: libgit2's local
 * transport packs what it sends, searching each object for a delta against
 * ten others and compressing it, and then indexes that pack again; on notes
 * (a hundred kilobytes of similar JSON each) that was most of a fetch
 * (bench/tools/notes-scale.sh). Here each object we lack is read from src
 * and written here, once. A ref that is not there: nothing (not an error). */
static int fetch_local_ref(pg_notejudged **judged, size_t *njudged, git_repository *repo, git_repository *src,
                           const char *path, const char *ref, const char *tmp, const pg_notekind *kind)
{
    git_oid tip;
    git_object_t type = GIT_OBJECT_INVALID;
    size_t size;
    *judged = NULL;
    *njudged = 0;
    int rc = git_reference_name_to_id(&tip, src, ref);
    if (rc == GIT_ENOTFOUND)
        return 0;
    copier c = {path, src, NULL, NULL, NULL, {NULL, 0, 0}, kind, NULL, 0, 0, NULL, 0, 0, NULL, 0, 0};
    if (rc < 0 || git_repository_odb(&c.from, src) < 0 || git_repository_odb(&c.to, repo) < 0 ||
        (!held(c.to, &tip) && git_odb_read_header(&size, &type, c.from, &tip) < 0))
        rc = git_fail("cannot read the notes of", path);
    else if (type == GIT_OBJECT_COMMIT)
        rc = copy_history(&c, &tip, repo, ref);
    else if (type == GIT_OBJECT_TREE)
        rc = copy_tree(&c, &tip, 0, "", SIZE_MAX);
    else if (type != GIT_OBJECT_INVALID)
        rc = defer_blob(&c, &tip, "", SIZE_MAX, "");   /* the merge refuses it, by name */
    if (rc == 0)
        rc = copy_deferred(&c);
    git_reference *made = NULL;
    if (rc == 0 && git_reference_create(&made, repo, tmp, &tip, 1, "perfgate fetch") < 0)
        rc = git_fail("cannot fetch the notes of", path);
    git_reference_free(made);
    free(c.seen.v);
    free(c.trees);
    free(c.commits);
    *judged = c.blobs;
    *njudged = rc == 0 ? c.nblobs : 0;
    git_odb_free(c.from);
    git_odb_free(c.to);
    pg_packwrite_free(c.pack);
    return rc;
}

/* The notes fetched from a local remote, with the judgement of each note
 * copied, per ref. */
typedef struct local_fetch {
    pg_notejudged *judged[2];
    size_t n[2];
} local_fetch;

static int fetch_local(local_fetch *f, git_repository *repo, const char *path, char *const refs[2][2])
{
    static const pg_notekind *const kinds[2] = {&pg_notekind_runs, &pg_notekind_stacks};
    git_repository *src = NULL;
    if (git_repository_open(&src, path) < 0)
        return git_fail("cannot open the remote repository", path);
    int rc = 0;
    for (int i = 0; rc == 0 && i < 2; i++)
        rc = fetch_local_ref(&f->judged[i], &f->n[i], repo, src, path, refs[i][0], refs[i][1], kinds[i]);
    git_repository_free(src);
    return rc;
}

/* A fetch through libgit2's transport of both notes refs to the refspecs given. */
static int fetch_remote(git_repository *repo, git_remote *remote, const char *name, char *spec, char *spec_stacks)
{
    headers h;
    headers_of(&h, repo, git_remote_url(remote) ? git_remote_url(remote) : "");
    git_fetch_options fo;
    git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
    fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
    fo.update_fetchhead = 0;
    fo.callbacks.credentials = credentials;
    fo.custom_headers = (git_strarray){h.v, h.n};
    char *specs[] = {spec, spec_stacks};
    git_strarray refspecs = {specs, 2};
    int rc = git_remote_fetch(remote, &refspecs, &fo, "perfgate fetch") < 0 ? git_fail("cannot fetch the notes of", name) : 0;
    headers_free(&h);
    return rc;
}

int pg_notes_fetch(int *result, int *stacks, pg_repo *r, const char *name)
{
    git_repository *repo = pg_repo_git(r);
    git_remote *remote = NULL;
    *result = *stacks = PG_FETCH_NONE;
    int rc = remote_open(&remote, repo, name);
    if (rc < 0)
        return rc;
    /* The fetched tips land on refs of this process's own, then are merged:
     * the notes refs themselves are never overwritten. A remote without the
     * stacks ref (or without any) fetches nothing for it. */
    char tmp[64], tmp_stacks[64], spec[128], spec_stacks[128];
    snprintf(tmp, sizeof tmp, "refs/perfgate/fetch-%d", (int)getpid());
    snprintf(tmp_stacks, sizeof tmp_stacks, "refs/perfgate/fetch-stacks-%d", (int)getpid());
    snprintf(spec, sizeof spec, "+%s:%s", PG_NOTES_REF, tmp);
    snprintf(spec_stacks, sizeof spec_stacks, "+%s:%s", PG_NOTES_STACKS_REF, tmp_stacks);
    sweep_fetch_refs(repo);
    /* Objects are hashed once, when they come: the indexer names each object
     * of a fetched pack by its content, and a local copy checks the id each
     * is written under. Reading them again, from src or from here, libgit2
     * would hash each again (SHA-1 with collision detection: a sixth of a
     * fetch of notes). */
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    /* Packs are read through windows of 1 MiB, at most 2 MiB of them mapped:
     * libgit2 maps a pack whole (windows of 1 GiB, 8 GiB mapped), and every
     * page of it read stays in max RSS, which so grew with the remote's
     * history (a fetch of 1,000 notes: a 10 MiB pack, 8 MiB more max RSS;
     * the same CPU time). */
    size_t mw_size = 0, mw_limit = 0;
    git_libgit2_opts(GIT_OPT_GET_MWINDOW_SIZE, &mw_size);
    git_libgit2_opts(GIT_OPT_GET_MWINDOW_MAPPED_LIMIT, &mw_limit);
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, (size_t)1 << 20);
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, (size_t)2 << 20);
    ref_delete(repo, tmp);
    ref_delete(repo, tmp_stacks);
    char *const refs[2][2] = {{PG_NOTES_REF, tmp}, {PG_NOTES_STACKS_REF, tmp_stacks}}, path[4096];
    const char *url = git_remote_url(remote) ? git_remote_url(remote) : name;
    local_fetch f = {{NULL, NULL}, {0, 0}};
    if (local_path(path, sizeof path, url)) {
        git_remote_free(remote);        /* its configuration's regex state: 0.4 MiB */
        remote = NULL;
        rc = fetch_local(&f, repo, path, refs);
    } else {
        rc = fetch_remote(repo, remote, name, spec, spec_stacks);
    }
    git_remote_free(remote);
    /* Each ref on its own: a remote ref that cannot be merged (not a notes
     * commit) does not keep the other from being merged; it is said last. */
    int rc_stacks = 0;
    if (rc == 0 && (rc = merge_fetched(result, r, &pg_notekind_runs, tmp, name, f.judged[0], f.n[0])) == PG_EINVAL) {
        char first[600];
        snprintf(first, sizeof first, "%s", pg_error_last());
        if ((rc_stacks = merge_fetched(stacks, r, &pg_notekind_stacks, tmp_stacks, name, f.judged[1], f.n[1])) < 0)
            pg_text_warn("error: %s", pg_error_last());
        pg_error_set(rc, "%s", first);
    } else if (rc == 0) {
        rc = merge_fetched(stacks, r, &pg_notekind_stacks, tmp_stacks, name, f.judged[1], f.n[1]);
    }
    free(f.judged[0]);
    free(f.judged[1]);
    ref_delete(repo, tmp);
    ref_delete(repo, tmp_stacks);
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, mw_size);
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, mw_limit);
    return rc;
}

/* The indexer counts the objects it received in `stats`: one for the whole pack. */
typedef struct pack_sink {
    git_odb_writepack *wp;
    git_indexer_progress stats;
} pack_sink;

static int pack_append(void *buf, size_t size, void *payload)
{
    pack_sink *s = payload;
    return s->wp->append(s->wp, buf, size, &s->stats);
}

/* Our notes commits the remote lacks, written into its object database as one pack. */
static int send_objects(git_repository *repo, git_repository *dst, const git_oid *ours, const git_oid *theirs)
{
    git_packbuilder *pb = NULL;
    git_revwalk *walk = NULL;
    git_odb *odb = NULL;
    pack_sink sink = {0};
    int rc = git_packbuilder_new(&pb, repo);
    if (rc == 0)
        rc = git_revwalk_new(&walk, repo);
    if (rc == 0)
        rc = git_revwalk_push(walk, ours);
    if (rc == 0 && theirs)
        rc = git_revwalk_hide(walk, theirs);
    if (rc == 0)
        rc = git_packbuilder_insert_walk(pb, walk);
    if (rc == 0)
        rc = git_repository_odb(&odb, dst);
    if (rc == 0)
        rc = git_odb_write_pack(&sink.wp, odb, NULL, NULL);
    if (rc == 0)
        rc = git_packbuilder_foreach(pb, pack_append, &sink);
    if (rc == 0)
        rc = sink.wp->commit(sink.wp, &sink.stats);
    if (sink.wp)
        sink.wp->free(sink.wp);
    git_odb_free(odb);
    git_revwalk_free(walk);
    git_packbuilder_free(pb);
    return rc;
}

/* One push to a local repository: 0 done, 1 rejected (the remote has notes we lack). */
static int push_local(int *uptodate, git_repository *repo, const char *path, const char *ref, const git_oid *ours)
{
    git_repository *dst = NULL;
    if (git_repository_open(&dst, path) < 0)
        return git_fail("cannot open the remote repository", path);
    git_oid theirs;
    int rc = git_reference_name_to_id(&theirs, dst, ref), exists = rc == 0;
    if (rc < 0 && rc != GIT_ENOTFOUND) {
        git_repository_free(dst);
        return git_fail("cannot read the notes of", path);
    }
    rc = 0;
    if (exists && git_oid_equal(&theirs, ours)) {
        *uptodate = 1;
    } else if (exists && git_graph_descendant_of(repo, ours, &theirs) != 1) {
        rc = 1;                                     /* not ours to overwrite: fetch and merge first */
    } else if (send_objects(repo, dst, ours, exists ? &theirs : NULL) < 0) {
        rc = git_fail("cannot copy the notes into", path);
    } else {
        git_reference *moved = NULL;
        int c = exists ? git_reference_create_matching(&moved, dst, ref, ours, 1, &theirs, "perfgate push")
                       : git_reference_create(&moved, dst, ref, ours, 0, "perfgate push");
        git_reference_free(moved);
        if (c == GIT_EMODIFIED || c == GIT_EEXISTS || c == GIT_ELOCKED)
            rc = 1;                                 /* another pusher moved it meanwhile */
        else if (c < 0)
            rc = git_fail("cannot update the notes of", path);
    }
    git_repository_free(dst);
    return rc;
}

static int on_update_ref(const char *refname, const char *status, void *payload)
{
    (void)refname;
    if (status)
        *(int *)payload = 1;
    return 0;
}

/* One push through libgit2's transports: the server refuses what is not a
 * fast-forward of its current value. */
static int push_remote(git_repository *repo, git_remote *remote, const char *name, const char *ref)
{
    int rejected = 0;
    headers h;
    headers_of(&h, repo, git_remote_url(remote) ? git_remote_url(remote) : "");
    git_push_options po;
    git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
    po.callbacks.credentials = credentials;
    po.callbacks.push_update_reference = on_update_ref;
    po.callbacks.payload = &rejected;
    po.custom_headers = (git_strarray){h.v, h.n};
    char spec[256];
    snprintf(spec, sizeof spec, "%s:%s", ref, ref);  /* no '+': never forced */
    char *specs[] = {spec};
    git_strarray refspecs = {specs, 1};
    int rc = git_remote_push(remote, &refspecs, &po);
    headers_free(&h);
    if (rc == GIT_ENONFASTFORWARD)
        return 1;
    if (rc < 0)
        return git_fail("cannot push the notes to", name);
    return rejected;
}

static int push_once(int *uptodate, git_repository *repo, const char *name, const char *ref, const git_oid *ours)
{
    git_remote *remote = NULL;
    int rc = remote_open(&remote, repo, name);
    if (rc < 0)
        return rc;
    char path[4096];
    const char *url = git_remote_url(remote) ? git_remote_url(remote) : name;
    if (local_path(path, sizeof path, url))
        rc = push_local(uptodate, repo, path, ref, ours);
    else
        rc = push_remote(repo, remote, name, ref);
    git_remote_free(remote);
    return rc;
}

int pg_notes_push(int *used, int *uptodate, pg_repo *r, const char *name, const char *ref, int tries)
{
    git_repository *repo = pg_repo_git(r);
    *used = 0;
    *uptodate = 0;
    for (int t = 0; t < tries; t++) {
        git_oid ours;
        if (git_reference_name_to_id(&ours, repo, ref) < 0)
            return pg_error_set(PG_ENOTFOUND, "nothing to push: this repository has no perfgate notes (%s); "
                                "'perfgate run' writes them", ref);
        (*used)++;
        int rc = push_once(uptodate, repo, name, ref, &ours);
        if (rc <= 0)
            return rc;
        /* Rejected: another job pushed first. Take its notes, merge, try again
         * after a random pause, so that two jobs do not keep colliding. */
        fprintf(stderr, "perfgate: push rejected: %s has notes this repository lacks%s%s; fetching and merging them "
                "(push %d of at most %d)\n", name, strcmp(ref, PG_NOTES_REF) ? " in " : "",
                strcmp(ref, PG_NOTES_REF) ? ref : "", t + 1, tries);
        int fetched, fetched_stacks;
        if ((rc = pg_notes_fetch(&fetched, &fetched_stacks, r, name)) < 0)
            return rc;
        unsigned int rnd = 0;
        if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
            rnd = (unsigned int)getpid();
        usleep((useconds_t)(10000 + rnd % (50000u * (unsigned)(t + 1))));
    }
    return pg_error_set(PG_EIO, "push to %s rejected %d times (other jobs kept pushing); nothing is lost: the merged "
                        "notes are here, run 'perfgate push' again", name, tries);
}
