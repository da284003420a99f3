/* harness/store/notesync.c — see notesync.h. */
#include "harness/store/notesync.h"
#include "harness/store/git2.h"
#include "harness/store/gittls.h"
#include "harness/store/notes.h"
#include "harness/store/notes_stacks.h"
#include "util/error.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>

static int git_fail(const char *what, const char *remote)
{
    return pg_error_set(PG_ERROR, "%s %s: %s", what, remote, pg_repo_git_msg());
}

/* A remote by name, else a URL or a path as an anonymous remote. */
static int remote_open(git_remote **out, git_repository *repo, const char *name)
{
    int rc = pg_gittls_load(NULL);      /* an https remote checks its certificate */
    if (rc < 0)
        return rc;
    rc = git_remote_lookup(out, repo, name);
    if (rc == 0)
        return 0;
    struct stat st;
    if (strchr(name, '/') || strchr(name, ':') || stat(name, &st) == 0) {
        if (git_remote_create_anonymous(out, repo, name) == 0)
            return 0;
        return git_fail("cannot use the remote", name);
    }
    return pg_error_set(PG_ENOTFOUND, "no remote named '%s' ('git remote -v' lists them; a URL or a path works too)", name);
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

/* Merges what was fetched to `tmp` (when the remote had the ref) into `kind`'s ref. */
static int merge_fetched(int *result, pg_repo *r, const pg_notekind *kind, const char *tmp, const char *name)
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
    int rc = pg_notes_merge(&changed, &st, r, kind, hex, name);
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
    ref_delete(repo, tmp);
    ref_delete(repo, tmp_stacks);
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
    if (git_remote_fetch(remote, &refspecs, &fo, "perfgate fetch") < 0)
        rc = git_fail("cannot fetch the notes of", name);
    headers_free(&h);
    git_remote_free(remote);
    /* Each ref on its own: a remote ref that cannot be merged (not a notes
     * commit) does not keep the other from being merged; it is said last. */
    int rc_stacks = 0;
    if (rc == 0 && (rc = merge_fetched(result, r, &pg_notekind_runs, tmp, name)) == PG_EINVAL) {
        char first[600];
        snprintf(first, sizeof first, "%s", pg_error_last());
        if ((rc_stacks = merge_fetched(stacks, r, &pg_notekind_stacks, tmp_stacks, name)) < 0)
            pg_text_warn("error: %s", pg_error_last());
        pg_error_set(rc, "%s", first);
    } else if (rc == 0) {
        rc = merge_fetched(stacks, r, &pg_notekind_stacks, tmp_stacks, name);
    }
    ref_delete(repo, tmp);
    ref_delete(repo, tmp_stacks);
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
