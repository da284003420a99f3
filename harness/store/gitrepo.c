/* harness/store/gitrepo.c — libgit2 behind the few questions perfgate asks of git. */
#include "harness/store/gitrepo.h"
#include "harness/store/git2.h"
#include "harness/store/gittls.h"
#include "harness/store/worktree.h"
#include "util/error.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pg_repo {
    git_repository *repo;
};

/* git_libgit2_init without the TLS certificate bundle, which notes push and
 * fetch read when they connect (gittls.h): the bundle was most of libgit2's
 * start-up. Once per process, on whichever thread first needs git: `run`
 * finds its facts on a thread of its own (gitfacts.h). */
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void lib_start(void)
{
    if (pg_git2_load() < 0)
        return;     /* said again by lib_init, on its caller's thread */
    pg_gittls_defer_begin();
    git_libgit2_init();
    pg_gittls_defer_end();
}

static int lib_init(void)
{
    pthread_once(&lib_once, lib_start);
    return pg_git2_load();
}

const char *pg_repo_git_msg(void)
{
    const git_error *e = git_error_last();
    return e && e->message ? e->message : "unknown libgit2 error";
}

#define git_msg pg_repo_git_msg

git_repository *pg_repo_git(pg_repo *r) { return r->repo; }

int pg_repo_open(pg_repo **out, const char *path)
{
    /* Outside every repository (a benchmark run in /tmp), the file system
     * says so in microseconds; loading libgit2 and its libraries to hear the
     * same costs milliseconds of every such command (bench/tools/fixed-costs.sh). */
    char abs[4096], root[4096];
    if (realpath(path, abs) && pg_worktree_find(root, sizeof root, abs) == PG_WORKTREE_NONE)
        return pg_error_set(PG_ENOTFOUND, "%s is not inside a git repository", path);
    return pg_repo_open_git(out, path);
}

int pg_repo_open_git(pg_repo **out, const char *path)
{
    int rc = lib_init();
    if (rc < 0)
        return rc;
    git_repository *repo = NULL;
    rc = git_repository_open_ext(&repo, path, 0, NULL);
    if (rc == GIT_ENOTFOUND)
        return pg_error_set(PG_ENOTFOUND, "%s is not inside a git repository", path);
    if (rc < 0)
        return pg_error_set(PG_ERROR, "cannot open the git repository at %s: %s", path, git_msg());
    pg_repo *r = calloc(1, sizeof *r);
    if (!r) {
        git_repository_free(repo);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    r->repo = repo;
    *out = r;
    return 0;
}

void pg_repo_free(pg_repo *r)
{
    if (!r)
        return;
    git_repository_free(r->repo);
    free(r);
}

const char *pg_repo_workdir(const pg_repo *r) { return git_repository_workdir(r->repo); }

/* Whether tracked files differ from HEAD (untracked files are not "dirty",
 * as for `git describe --dirty`); 0 also when the walk fails. */
static int work_tree_dirty(git_repository *repo)
{
    git_status_options so;
    git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
    so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    git_status_list *st = NULL;
    int dirty = 0;
    if (git_status_list_new(&st, repo, &so) == 0) {
        dirty = git_status_list_entrycount(st) > 0;
        git_status_list_free(st);
    }
    return dirty;
}

int pg_repo_head_commit(char out[PG_OID_HEXSZ + 1], pg_repo *r)
{
    git_oid oid;
    if (git_reference_name_to_id(&oid, r->repo, "HEAD") < 0)
        return pg_error_set(PG_ENOTFOUND, "the repository has no commit yet (HEAD is unborn)");
    git_oid_tostr(out, PG_OID_HEXSZ + 1, &oid);
    return 0;
}

int pg_repo_head(char out[PG_OID_HEXSZ + 1], int *dirty, pg_repo *r)
{
    *dirty = 0;
    int rc = pg_repo_head_commit(out, r);
    if (rc == 0)
        *dirty = work_tree_dirty(r->repo);
    return rc;
}

int pg_repo_resolve(char out[PG_OID_HEXSZ + 1], pg_repo *r, const char *rev)
{
    git_object *obj = NULL, *commit = NULL;
    if (git_revparse_single(&obj, r->repo, rev) < 0)
        return pg_error_set(PG_ENOTFOUND, "unknown revision '%s'", rev);
    int rc = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
    git_object_free(obj);
    if (rc < 0)
        return pg_error_set(PG_ENOTFOUND, "revision '%s' does not name a commit", rev);
    git_oid_tostr(out, PG_OID_HEXSZ + 1, git_object_id(commit));
    git_object_free(commit);
    return 0;
}

int pg_repo_first_parent(char out[PG_OID_HEXSZ + 1], pg_repo *r, const char *commit)
{
    git_oid oid;
    git_commit *c = NULL;
    if (git_oid_fromstr(&oid, commit) < 0 || git_commit_lookup(&c, r->repo, &oid) < 0)
        return pg_error_set(PG_ENOTFOUND, "commit %.12s not found", commit);
    const git_oid *p = git_commit_parentcount(c) ? git_commit_parent_id(c, 0) : NULL;
    if (p)
        git_oid_tostr(out, PG_OID_HEXSZ + 1, p);
    git_commit_free(c);
    return p ? 0 : pg_error_set(PG_ENOTFOUND, "%.12s has no parent", commit);
}

void pg_repo_summary(char *buf, unsigned long len, pg_repo *r, const char *commit)
{
    buf[0] = '\0';
    git_oid oid;
    git_commit *c = NULL;
    if (git_oid_fromstr(&oid, commit) < 0 || git_commit_lookup(&c, r->repo, &oid) < 0)
        return;
    const char *s = git_commit_summary(c);
    snprintf(buf, len, "%s", s ? s : "");
    git_commit_free(c);
}

/* The first-parent line from `to` back to `stop` (excluded; NULL: the root)
 * or `max` commits (0: no limit), oldest first. */
static int walk_first_parents(char (**out)[PG_OID_HEXSZ + 1], unsigned long *n, pg_repo *r, const char *stop_id,
                              const char *to, unsigned long max)
{
    *out = NULL;
    *n = 0;
    git_oid stop, oid;
    if ((stop_id && git_oid_fromstr(&stop, stop_id) < 0) || git_oid_fromstr(&oid, to) < 0)
        return pg_error_set(PG_EINVAL, "not commit ids: %s, %s", stop_id ? stop_id : "-", to);
    char (*v)[PG_OID_HEXSZ + 1] = NULL;
    unsigned long len = 0, cap = 0;
    int rc = 0;
    /* Walked from `to` backwards, reversed at the end. */
    while ((!stop_id || !git_oid_equal(&oid, &stop)) && (!max || len < max)) {
        git_commit *c = NULL;
        if (git_commit_lookup(&c, r->repo, &oid) < 0) {
            rc = pg_error_set(PG_ENOTFOUND, "commit %s not found: %s", git_oid_tostr_s(&oid), git_msg());
            break;
        }
        if (len == cap) {
            cap = cap ? 2 * cap : 64;
            void *nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                git_commit_free(c);
                rc = pg_error_set(PG_ENOMEM, "out of memory");
                break;
            }
            v = nv;
        }
        git_oid_tostr(v[len++], PG_OID_HEXSZ + 1, &oid);
        const git_oid *parent = git_commit_parentcount(c) ? git_commit_parent_id(c, 0) : NULL;
        if (parent)
            oid = *parent;
        git_commit_free(c);
        if (!parent) {
            if (stop_id)
                rc = pg_error_set(PG_EINVAL, "%.12s is not a first-parent ancestor of %.12s", stop_id, to);
            break;
        }
    }
    if (rc < 0) {
        free(v);
        return rc;
    }
    for (unsigned long i = 0; i < len / 2; i++) {
        char t[PG_OID_HEXSZ + 1];
        memcpy(t, v[i], sizeof t);
        memcpy(v[i], v[len - 1 - i], sizeof t);
        memcpy(v[len - 1 - i], t, sizeof t);
    }
    *out = v;
    *n = len;
    return 0;
}

int pg_repo_first_parents(char (**out)[PG_OID_HEXSZ + 1], unsigned long *n, pg_repo *r, const char *from,
                          const char *to)
{
    return walk_first_parents(out, n, r, from, to, 0);
}

int pg_repo_last_first_parents(char (**out)[PG_OID_HEXSZ + 1], unsigned long *n, pg_repo *r, const char *to,
                               unsigned long max)
{
    return walk_first_parents(out, n, r, NULL, to, max);
}

long long pg_repo_commit_time(pg_repo *r, const char *commit)
{
    git_oid oid;
    git_commit *c = NULL;
    if (git_oid_fromstr(&oid, commit) < 0 || git_commit_lookup(&c, r->repo, &oid) < 0)
        return 0;
    long long t = (long long)git_commit_time(c);
    git_commit_free(c);
    return t;
}

int pg_repo_remote_url(char *buf, unsigned long len, pg_repo *r, const char *remote)
{
    git_remote *rem = NULL;
    buf[0] = '\0';
    if (git_remote_lookup(&rem, r->repo, remote) < 0)
        return PG_ENOTFOUND;
    const char *url = git_remote_url(rem);
    snprintf(buf, len, "%s", url ? url : "");
    git_remote_free(rem);
    return url ? 0 : PG_ENOTFOUND;
}

int pg_repo_export(pg_repo *r, const char *commit, const char *dir)
{
    git_oid oid;
    git_commit *c = NULL;
    git_tree *tree = NULL;
    if (git_oid_fromstr(&oid, commit) < 0 || git_commit_lookup(&c, r->repo, &oid) < 0)
        return pg_error_set(PG_ENOTFOUND, "commit %s not found", commit);
    int rc = git_commit_tree(&tree, c);
    git_commit_free(c);
    if (rc < 0)
        return pg_error_set(PG_ERROR, "cannot read the tree of %s: %s", commit, git_msg());
    git_checkout_options co;
    git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
    co.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX;
    co.target_directory = dir;
    rc = git_checkout_tree(r->repo, (git_object *)tree, &co);
    git_tree_free(tree);
    if (rc < 0)
        return pg_error_set(PG_EIO, "cannot check out %s into %s: %s", commit, dir, git_msg());
    return 0;
}
