/* Owned directories: a live owner's directory is never taken for a leftover,
 * a dead owner's is, and one given up without removal is not. */
#include "util/fileio.h"
#include "util/owned_dir.h"
#include "tests/check.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int main(void)
{
    /* A private TMPDIR, so the sweeps below see only this test's directories. */
    char base[PATH_MAX];
    REQUIRE(pg_mkdtemp(base, sizeof base, "pg-owned-test-") == 0);
    setenv("TMPDIR", base, 1);

    /* Held by this process: not abandoned, not swept. */
    pg_owned_dir d;
    CHECK_EQ_INT(pg_owned_mkdtemp(&d, "perfgate-t-"), 0);
    CHECK(is_dir(d.path));
    char expect[64];
    snprintf(expect, sizeof expect, "/perfgate-t-%d-", (int)getpid());
    CHECK(strstr(d.path, expect) != NULL);
    int fd = -1;
    CHECK_EQ_INT(pg_owned_abandoned(d.path, &fd), 0);
    CHECK_EQ_INT(pg_owned_sweep(base, (const char *const[]){"perfgate-t-", NULL}), 0);
    CHECK(is_dir(d.path));

    /* Its owner died holding it (a child that exits without letting go): swept. */
    pid_t pid = fork();
    if (pid == 0) {
        pg_owned_dir c;
        _exit(pg_owned_mkdtemp(&c, "perfgate-dead-") == 0 ? 0 : 1);
    }
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_EQ_INT(pg_owned_sweep(base, (const char *const[]){"perfgate-", NULL}), 1);
    CHECK(is_dir(d.path));      /* the live one stays */

    /* One reading of the parent, several prefixes: each matching dead one goes, no other. */
    pid = fork();
    if (pid == 0) {
        pg_owned_dir a, b, c;
        _exit(pg_owned_mkdtemp(&a, "pg-a-") || pg_owned_mkdtemp(&b, "pg-b-") || pg_owned_mkdtemp(&c, "pg-c-"));
    }
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_EQ_INT(pg_owned_sweep(base, (const char *const[]){"pg-a-", "pg-b-", NULL}), 2);
    CHECK_EQ_INT(pg_owned_sweep(base, (const char *const[]){"pg-a-", "pg-b-", NULL}), 0);
    CHECK_EQ_INT(pg_owned_sweep(base, (const char *const[]){"pg-c-", NULL}), 1);

    /* Given up without removal (a stored run's stacks): it stays, not an owned directory any more. */
    char kept[PATH_MAX + 8];
    snprintf(kept, sizeof kept, "%s/kept", base);
    pg_owned_dir k;
    CHECK_EQ_INT(pg_owned_mkdir(&k, kept), 0);
    pg_owned_release(&k, 0);
    CHECK(is_dir(kept));
    CHECK_EQ_INT(pg_owned_abandoned(kept, &fd), 0);
    CHECK_EQ_INT(pg_owned_sweep(base, (const char *const[]){"kept", NULL}), 0);
    CHECK(is_dir(kept));

    /* Released with removal: gone. */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", d.path);
    pg_owned_release(&d, 1);
    CHECK(!is_dir(path));
    CHECK_EQ_INT(d.lockfd, -1);
    pg_owned_release(&d, 1);    /* twice: nothing */

    pg_remove_tree(base);
    return pg_check_done();
}
