/* harness/store/gitrepo.h — the git facts perfgate keys results by (libgit2). */
#ifndef PG_HARNESS_GITREPO_H
#define PG_HARNESS_GITREPO_H

#define PG_OID_HEXSZ 40

typedef struct pg_repo pg_repo;

/* Finds the repository containing `path` (searching upwards, like git).
 * PG_ENOTFOUND when `path` is in no repository: where the file system says
 * so (worktree.h, PG_WORKTREE_NONE), without loading libgit2. */
int pg_repo_open(pg_repo **out, const char *path);
/* The same, always asked of libgit2 (tests/unit/test_worktree.c holds the
 * file system's answer against it). */
int pg_repo_open_git(pg_repo **out, const char *path);
void pg_repo_free(pg_repo *r);

/* The work tree root, with a trailing '/' (NULL for a bare repository). */
const char *pg_repo_workdir(const pg_repo *r);

/* HEAD's full commit id; *dirty is set when tracked files differ from HEAD
 * (untracked files do not count, as in `git describe --dirty`).
 * PG_ENOTFOUND when HEAD has no commit yet. */
int pg_repo_head(char out[PG_OID_HEXSZ + 1], int *dirty, pg_repo *r);

/* HEAD's commit id alone, as pg_repo_head's. */
int pg_repo_head_commit(char out[PG_OID_HEXSZ + 1], pg_repo *r);

/* Anything `git rev-parse` accepts (HEAD~1, a branch, a tag, a short id),
 * peeled to a commit. PG_ENOTFOUND with the revision named when it does not resolve. */
int pg_repo_resolve(char out[PG_OID_HEXSZ + 1], pg_repo *r, const char *rev);

/* The first parent of `commit` into `out` (which may be `commit` itself).
 * PG_ENOTFOUND for a root commit or an unknown one. */
int pg_repo_first_parent(char out[PG_OID_HEXSZ + 1], pg_repo *r, const char *commit);

/* The commit's one-line summary into buf ("" when unknown). */
void pg_repo_summary(char *buf, unsigned long len, pg_repo *r, const char *commit);

/* The first-parent chain from `from` (excluded) to `to` (included), oldest
 * first, into a malloc'd array of *n commit ids (free() it). `from` must be
 * `to` or a first-parent ancestor of it: else PG_EINVAL naming both. */
int pg_repo_first_parents(char (**out)[PG_OID_HEXSZ + 1], unsigned long *n, pg_repo *r, const char *from,
                          const char *to);

/* The last `max` commits (0: all) of the first-parent line ending at `to`,
 * oldest first, into a malloc'd array of *n commit ids (free() it). */
int pg_repo_last_first_parents(char (**out)[PG_OID_HEXSZ + 1], unsigned long *n, pg_repo *r, const char *to,
                               unsigned long max);

/* The committer time of `commit` in seconds since the epoch (0 when unknown). */
long long pg_repo_commit_time(pg_repo *r, const char *commit);

/* The URL of the remote called `remote` into buf; PG_ENOTFOUND when there is none. */
int pg_repo_remote_url(char *buf, unsigned long len, pg_repo *r, const char *remote);

/* Writes the tree of `commit` into the empty directory `dir` (a detached
 * checkout for building an older revision; the caller removes it). */
int pg_repo_export(pg_repo *r, const char *commit, const char *dir);

/* The libgit2 repository, for the modules that speak libgit2 themselves
 * (harness/store/notes.c, harness/store/notesync.c). */
struct git_repository;
struct git_repository *pg_repo_git(pg_repo *r);

/* libgit2's last error message ("unknown libgit2 error" when none). */
const char *pg_repo_git_msg(void);

#endif
