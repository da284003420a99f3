/* harness/store/gitfacts.h — what `run` keys its results by, found on a
 * thread of its own while run does everything else.
 *
 * libgit2's libraries and start-up, the repository, HEAD, then the status
 * walk over every tracked file: tens of milliseconds in a fresh clone (its
 * files are all as new as the index, and each is read to be sure), none of
 * which the first benchmark needs. run starts it when the first benchmark
 * starts, or sooner when it needs a fact sooner: the repository and HEAD
 * before measuring when results are stored (their logs go under the commit)
 * or reused; the walk before a build (a build may write tracked files).
 */
#ifndef PG_HARNESS_GITFACTS_H
#define PG_HARNESS_GITFACTS_H

#include "harness/store/gitrepo.h"

typedef struct pg_repo_facts pg_repo_facts;

/* Starts finding the facts of the repository containing the directory
 * `path` (found inline when no thread can start). PG_ENOMEM, or 0. */
int pg_repo_facts_start(pg_repo_facts **out, const char *path);

/* Waits for the repository: pg_repo_open's result and message. The first
 * successful call hands it over in *out (the caller's to free); later ones
 * set *out to NULL. */
int pg_repo_facts_repo(pg_repo **out, pg_repo_facts *f);

/* Waits for HEAD: 1 with its full id in `out`, 0 when there is none (no
 * repository, an unborn HEAD). */
int pg_repo_facts_commit(char out[PG_OID_HEXSZ + 1], pg_repo_facts *f);

/* Whether the status walk is over (1 also when there is none, and for
 * NULL), without waiting. */
int pg_repo_facts_walked(pg_repo_facts *f);

/* Moves the walk off `cpu` (the one measured runs are pinned to) when the
 * process may use another: a benchmark then runs beside it, not under it.
 * NULL: nothing. */
void pg_repo_facts_avoid_cpu(pg_repo_facts *f, int cpu);

/* Waits for the walk: 1 when tracked files differ from HEAD, as
 * pg_repo_head's *dirty (0 without a commit, or when the walk failed). */
int pg_repo_facts_dirty(pg_repo_facts *f);

/* Waits for the thread and frees what it found and nobody took. NULL is fine. */
void pg_repo_facts_free(pg_repo_facts *f);

#endif
