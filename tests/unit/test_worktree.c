/* The work tree found without libgit2 (harness/store/worktree.h): where it
 * answers, its answer is libgit2's; the layouts it cannot be sure of are
 * left to libgit2. */
#include "harness/store/gitrepo.h"
#include "harness/store/worktree.h"
#include "tests/check.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char base[] = "/tmp/pg-worktree-XXXXXX";

static void sh(const char *cmd)
{
    char full[4096];
    snprintf(full, sizeof full, "cd %s && (%s) >/dev/null 2>&1", base, cmd);
    REQUIRE(system(full) == 0);
}

/* The finder's answer for base/rel, checked against libgit2's when sure. */
static int find(char *out, size_t len, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", base, rel);
    int r = pg_worktree_find(out, len, path);
    if (r == PG_WORKTREE_ASK_GIT)
        return r;   /* (libgit2 1.5 leaks a little opening a core.worktree repository) */
    pg_repo *repo = NULL;
    int rc = pg_repo_open_git(&repo, path);
    if (r == PG_WORKTREE_FOUND) {
        CHECK_EQ_INT(rc, 0);
        if (rc == 0)
            CHECK_STR(out, pg_repo_workdir(repo));
    } else if (r == PG_WORKTREE_NONE) {
        CHECK_EQ_INT(rc, PG_ENOTFOUND);
    }
    pg_repo_free(repo);
    pg_error_clear();
    return r;
}

int main(void)
{
    REQUIRE(mkdtemp(base) != NULL);
    char out[1024], want[1024];

    /* A plain clone: its root, from anywhere below it. */
    sh("git init -q plain && mkdir -p plain/src/deep");
    snprintf(want, sizeof want, "%s/plain/", base);
    CHECK_EQ_INT(find(out, sizeof out, "plain"), PG_WORKTREE_FOUND);
    CHECK_STR(out, want);
    CHECK_EQ_INT(find(out, sizeof out, "plain/src/deep"), PG_WORKTREE_FOUND);
    CHECK_STR(out, want);
    CHECK_EQ_INT(find(out, sizeof out, "plain/src/deep/"), PG_WORKTREE_FOUND);
    CHECK_STR(out, want);

    /* Inside .git, a bare repository, a work tree moved by the config, a
     * .git file (linked work trees, submodules): libgit2's to say. */
    CHECK_EQ_INT(find(out, sizeof out, "plain/.git/objects"), PG_WORKTREE_ASK_GIT);
    sh("git init -q --bare bare.git");
    CHECK_EQ_INT(find(out, sizeof out, "bare.git"), PG_WORKTREE_ASK_GIT);
    CHECK_EQ_INT(find(out, sizeof out, "bare.git/refs"), PG_WORKTREE_ASK_GIT);
    sh("git init -q moved && mkdir elsewhere && git -C moved config core.worktree ../elsewhere");
    CHECK_EQ_INT(find(out, sizeof out, "moved"), PG_WORKTREE_ASK_GIT);
    sh("git init -q barecfg && git -C barecfg config core.bare true");
    CHECK_EQ_INT(find(out, sizeof out, "barecfg"), PG_WORKTREE_ASK_GIT);
    sh("mkdir linked && echo 'gitdir: ../plain/.git' > linked/.git");
    CHECK_EQ_INT(find(out, sizeof out, "linked"), PG_WORKTREE_ASK_GIT);
    /* core.bare false is the usual config: still found. */
    sh("git init -q notbare && git -C notbare config core.bare false");
    CHECK_EQ_INT(find(out, sizeof out, "notbare"), PG_WORKTREE_FOUND);

    /* A relative path is not answered. */
    CHECK_EQ_INT(pg_worktree_find(out, sizeof out, "plain"), PG_WORKTREE_ASK_GIT);

    sh("cd / && rm -rf \"$OLDPWD\"");
    return pg_check_done();
}
