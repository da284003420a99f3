/* tests/unit/test_canon.c — the namespace a measured process gets
 * (harness/measure/canon.h): its tree, the siblings of the tree its command
 * reaches, its working directory there, and what is left as it is. */
#include "harness/measure/canon.h"
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[4096];

static void make(const char *rel, int file)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    if (file) {
        FILE *f = fopen(p, "w");
        REQUIRE(f);
        fclose(f);
    } else {
        REQUIRE(mkdir(p, 0755) == 0);
    }
}

static const char *at(const char *rel)
{
    static char p[2][8192];
    static int k;
    k ^= 1;
    snprintf(p[k], sizeof p[k], "%s/%s", base, rel);
    return p[k];
}

int main(void)
{
    pg_canon_layout l;
    char *const a1[] = {"./prog", "x", NULL};
    if (!pg_canon_tree_ready()) {
        /* No namespace here: every benchmark runs as it is. */
        printf("no namespace here (%s)\n", pg_canon_tree_how());
        CHECK_EQ_INT(pg_canon_layout_make(&l, "/tmp", "/tmp", a1), 0);
        return pg_check_done();
    }
    char tmpl[] = "/tmp/pg-canon.XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    REQUIRE(realpath(tmpl, base));
    make("repo", 0), make("repo/bench", 0), make("side", 0), make("side/prog", 1), make("data", 0);
    make("data/in.txt", 1), make("tree", 0), make("tree/prog", 1);
    REQUIRE(symlink("../../side/prog", at("repo/bench/link")) == 0);

    /* In the work tree: the tree's root mounted, the directory below it. */
    CHECK_EQ_INT(pg_canon_layout_make(&l, at("repo"), at("repo/bench"), a1), 1);
    CHECK_EQ_INT(l.n, 1);
    CHECK_STR(l.from[0], at("repo"));
    CHECK_STR(l.at[0], "/run/perfgate/tree");
    CHECK_STR(l.cwd, "/run/perfgate/tree/bench");
    CHECK_EQ_INT(l.userns, geteuid() != 0);

    /* No repository: the working directory is the tree. */
    CHECK_EQ_INT(pg_canon_layout_make(&l, PG_CANON_OWN_CWD, at("repo/bench"), a1), 1);
    CHECK_STR(l.from[0], at("repo/bench"));
    CHECK_STR(l.cwd, "/run/perfgate/tree");

    /* A program beside the tree, and an input beside it, each mounted once
     * where the same relative path leads; a missing "file" is no path. */
    char *const a2[] = {"../../side/prog", "../../data/in.txt", "../../side/prog", "../../nothing/x", NULL};
    CHECK_EQ_INT(pg_canon_layout_make(&l, at("repo"), at("repo/bench"), a2), 1);
    CHECK_EQ_INT(l.n, 3);
    CHECK_STR(l.from[1], at("side"));
    CHECK_STR(l.at[1], "/run/perfgate/side");
    CHECK_STR(l.from[2], at("data"));
    CHECK_STR(l.at[2], "/run/perfgate/data");

    /* Under valgrind the program is an argument: mounted when it exists. */
    char *const a3[] = {"/usr/bin/valgrind.bin", "--log-file=/tmp/x/%p", "../../side/prog", NULL};
    CHECK_EQ_INT(pg_canon_layout_make(&l, at("repo"), at("repo/bench"), a3), 1);
    CHECK_EQ_INT(l.n, 2);
    CHECK_STR(l.at[1], "/run/perfgate/side");

    /* A link in the tree to a sibling: the sibling where the link leads. */
    char *const a4[] = {"./link", NULL};
    CHECK_EQ_INT(pg_canon_layout_make(&l, at("repo"), at("repo/bench"), a4), 1);
    CHECK_EQ_INT(l.n, 2);
    CHECK_STR(l.at[1], "/run/perfgate/side");

    /* What cannot be placed runs as it is: further up than a sibling, a
     * sibling named "tree", the tree "/", a tree already in the namespace (a
     * perfgate measured by perfgate). Absolute paths are left alone. */
    char *const up[] = {"../../../x/prog", NULL}, *const named[] = {"../../tree/prog", NULL};
    CHECK_EQ_INT(pg_canon_layout_make(&l, at("repo"), at("repo/bench"), up), 0);
    CHECK_EQ_INT(pg_canon_layout_make(&l, at("repo"), at("repo/bench"), named), 0);
    CHECK_EQ_INT(pg_canon_layout_make(&l, PG_CANON_OWN_CWD, "/", a1), 0);
    CHECK_EQ_INT(pg_canon_layout_make(&l, PG_CANON_OWN_CWD, PG_CANON_ROOT, a1), 0);
    char *const abs[] = {"/bin/true", NULL};
    CHECK_EQ_INT(pg_canon_layout_make(&l, at("repo"), at("repo"), abs), 1);
    CHECK_EQ_INT(l.n, 1);
    CHECK_STR(l.cwd, "/run/perfgate/tree");

    char cmd[8300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    REQUIRE(system(cmd) == 0);
    return pg_check_done();
}
