/* harness/store/worktree.h — the work tree's root, found from the file
 * system alone, without libgit2.
 *
 * Opening libgit2 costs milliseconds (its libraries, its start-up), and a
 * command that only wants a path under the work tree (the store is its
 * .perfgate/) need not pay them: `compare A.json B.json`, and `run` before
 * its first benchmark. Only the common layout is answered here, where the
 * answer is the one git_repository_open_ext(path, 0) gives: a directory .git
 * (objects/, refs/ and HEAD in it) in `path` or a directory above it, on the
 * same file system, owned by this user, whose config sets no core.worktree
 * and no core.bare. Anything else (a .git file of a linked work tree or a
 * submodule, a bare repository, a path inside .git) is left to libgit2.
 */
#ifndef PG_HARNESS_WORKTREE_H
#define PG_HARNESS_WORKTREE_H

#include <stddef.h>

enum {
    PG_WORKTREE_NONE = 0,       /* `path` is in no git repository */
    PG_WORKTREE_FOUND = 1,      /* its root is in `out`, with a trailing '/' */
    PG_WORKTREE_ASK_GIT = 2,    /* a layout only libgit2 can say the root of */
};

/* One of the above for the absolute directory `path`. */
int pg_worktree_find(char *out, size_t len, const char *path);

#endif
