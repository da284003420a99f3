/* tests/unit/test_outdir.c — the private parent of valgrind's output
 * directories (counters/outdir.h): made the user's own and private, refused
 * when it is anything else; and which of its directories a measured
 * process's namespace brings back (harness/measure/canon.h): those its
 * command names, nothing else. */
#include "counters/outdir.h"
#include "harness/measure/canon.h"
#include "util/error.h"
#include "../check.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[PATH_MAX], parent[PATH_MAX + 32];

static int mode_of(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

/* pg_outdir_parent refuses what is at the parent's place, naming why. */
static void refused(const char *why)
{
    char p[PATH_MAX];
    CHECK_EQ_INT(pg_outdir_parent(p, sizeof p, 1), PG_EIO);
    CHECK(strstr(pg_error_last(), why) != NULL);
    CHECK(strstr(pg_error_last(), parent) != NULL);
}

static void parent_rules(void)
{
    char p[PATH_MAX];
    CHECK_EQ_INT(pg_outdir_parent(p, sizeof p, 0), PG_EIO);     /* missing, not made */
    CHECK_EQ_INT(mode_of(parent), -1);
    CHECK_EQ_INT(pg_outdir_parent(p, sizeof p, 1), 0);
    CHECK_STR(p, parent);
    CHECK_EQ_INT(mode_of(parent), 0700);
    REQUIRE(chmod(parent, 0755) == 0);                          /* a wider one made private */
    CHECK_EQ_INT(pg_outdir_parent(p, sizeof p, 0), 0);
    CHECK_EQ_INT(mode_of(parent), 0700);

    REQUIRE(rmdir(parent) == 0 && symlink(base, parent) == 0);
    refused("is a symbolic link");
    REQUIRE(unlink(parent) == 0);
    FILE *f = fopen(parent, "w");
    REQUIRE(f);
    fclose(f);
    refused("is not a directory");
    REQUIRE(unlink(parent) == 0);
    if (geteuid() == 0) {
        REQUIRE(mkdir(parent, 0700) == 0 && chown(parent, 65534, 65534) == 0);
        refused("is another user's");
        REQUIRE(rmdir(parent) == 0);
    }
}

/* The directories of one command's output: those its arguments name in the
 * parent, each once, real directories only. */
static void brought_back(void)
{
    pg_owned_dir a, b;
    REQUIRE(pg_outdir_make(&a, PG_OUTDIR_COUNTS) == 0 && pg_outdir_make(&b, PG_OUTDIR_STACKS) == 0);
    char pre[32];
    snprintf(pre, sizeof pre, "/" PG_OUTDIR_COUNTS "%d-", (int)getpid());
    CHECK(!strncmp(a.path, parent, strlen(parent)) && strstr(a.path, pre) == a.path + strlen(parent));
    char file[PATH_MAX + 8], log[PATH_MAX + 32], out[PATH_MAX + 32], up[PATH_MAX + 32], none[PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/f", parent);
    FILE *f = fopen(file, "w");
    REQUIRE(f);
    fclose(f);
    snprintf(log, sizeof log, "--log-file=%s/valgrind.log.%%p", a.path);
    snprintf(out, sizeof out, "--out-file=%s/x.%%p", a.path);
    snprintf(up, sizeof up, "--x=%s/../f,%s/./y,%s/f/z", parent, parent, parent);
    snprintf(none, sizeof none, "%s/missing/x", parent);
    char *const argv[] = {"tool", log, out, up, none, "./prog", NULL};

    pg_canon_layout l;
    if (pg_canon_layout_make(&l, PG_CANON_OWN_CWD, base, argv) != 1) {
        printf("no namespace here (%s): nothing brought back\n", pg_canon_tree_how());
    } else {
        CHECK_STR(l.outs_parent, parent);
        CHECK_EQ_INT(l.nouts, 1);
        CHECK_STR(l.outs[0], a.path);
        char stacks[PATH_MAX + 32];
        snprintf(stacks, sizeof stacks, "--stacks=%s/y", b.path);
        char *const two[] = {"tool", log, stacks, "./prog", NULL};
        CHECK_EQ_INT(pg_canon_layout_make(&l, PG_CANON_OWN_CWD, base, two), 1);
        CHECK_EQ_INT(l.nouts, 2);
        CHECK_STR(l.outs[1], b.path);
        /* A native run names none: the parent is covered all the same. */
        char *const native[] = {"./prog", NULL};
        CHECK_EQ_INT(pg_canon_layout_make(&l, PG_CANON_OWN_CWD, base, native), 1);
        CHECK_STR(l.outs_parent, parent);
        CHECK_EQ_INT(l.nouts, 0);
    }
    unlink(file);
    pg_owned_release(&a, 1);
    pg_owned_release(&b, 1);
    CHECK_EQ_INT(mode_of(a.path), -1);
}

int main(void)
{
    char tmpl[] = "/tmp/pg-outdir.XXXXXX";
    REQUIRE(mkdtemp(tmpl) && realpath(tmpl, base));
    setenv("TMPDIR", base, 1);
    snprintf(parent, sizeof parent, "%s/" PG_OUTDIR_PARENT "%u", base, (unsigned)geteuid());
    parent_rules();
    brought_back();
    rmdir(parent);
    CHECK_EQ_INT(rmdir(base), 0);
    return pg_check_done();
}
