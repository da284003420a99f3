/* harness/store/gitdiff.h — the lines a range of commits changed (libgit2).
 *
 * compare's coverage of a change (report/coverage.h) needs `git diff BASE
 * HEAD` as lines of HEAD's files. This is that diff, made by libgit2 without
 * context lines and with renames found (a renamed file's unchanged lines are
 * not changed). Binary and deleted files have no lines on HEAD's side and
 * are left out. When the change cannot honestly be called BASE..HEAD, no
 * lines are given and ch->note says why: BASE is not an ancestor of HEAD
 * (the diff would hold what the other branch did), or the diff is too large
 * to be a reviewable change (over PG_GITDIFF_MAX_LINES changed lines).
 */
#ifndef PG_HARNESS_GITDIFF_H
#define PG_HARNESS_GITDIFF_H

#include "harness/store/gitrepo.h"
#include "report/coverage.h"

#define PG_GITDIFF_MAX_LINES 200000

/* Fills *out (free with pg_change_free). Negative when a commit could not be
 * read or memory ran out. */
int pg_repo_change(pg_change *out, pg_repo *r, const char *base, const char *head);

#endif
