/* Objects written as one pack (harness/store/packwrite.h): after the commit
 * git itself reads every one back (git cat-file, git fsck) under the id its
 * content has; before it, and in a pack given too few or too many objects,
 * the repository holds none of them. */
#include "harness/store/gitrepo.h"
#include "harness/store/packwrite.h"
#include "tests/check.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char base[] = "/tmp/pg-packwrite-XXXXXX";

/* The exit status of `cmd` run in base/repo, its output into base/out. */
static int sh(const char *cmd)
{
    char full[4096];
    snprintf(full, sizeof full, "cd %s/repo && (%s) >%s/out 2>&1", base, cmd, base);
    return system(full);
}

static char *out_text(void)
{
    static char buf[8192];
    char path[256];
    snprintf(path, sizeof path, "%s/out", base);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    return buf;
}

static int packs(void)
{
    REQUIRE(sh("ls .git/objects/pack | grep -c '\\.pack$' || true") == 0);
    return atoi(out_text());
}

int main(void)
{
    REQUIRE(mkdtemp(base) != NULL);
    char path[256];
    snprintf(path, sizeof path, "git init -q %s/repo", base);
    REQUIRE(system(path) == 0);
    snprintf(path, sizeof path, "%s/repo", base);
    pg_repo *r = NULL;
    REQUIRE(pg_repo_open_git(&r, path) == 0);
    git_odb *odb = NULL;
    REQUIRE(git_repository_odb(&odb, pg_repo_git(r)) == 0);

    /* A blob of 100 KiB (its size takes three bytes of the header), an
     * empty one, a tree naming them and a commit of that tree. */
    size_t big = 100 * 1024;
    char *text = malloc(big);
    REQUIRE(text != NULL);
    for (size_t i = 0; i < big; i++)
        text[i] = (char)('a' + i * 7 % 26);
    git_oid blob, empty, tree, commit, want;
    pg_packwrite *pw = NULL;
    CHECK_EQ_INT(pg_packwrite_new(&pw, odb, 4), 0);
    CHECK_EQ_INT(pg_packwrite_add(&blob, pw, GIT_OBJECT_BLOB, text, big, NULL), 0);
    CHECK_EQ_INT(pg_packwrite_add(&empty, pw, GIT_OBJECT_BLOB, "", 0, NULL), 0);
    char t[200];
    size_t tn = (size_t)snprintf(t, sizeof t, "100644 big%c", 0) + GIT_OID_RAWSZ;
    memcpy(t + tn - GIT_OID_RAWSZ, blob.id, GIT_OID_RAWSZ);
    size_t tn2 = (size_t)snprintf(t + tn, sizeof t - tn, "100644 empty%c", 0) + GIT_OID_RAWSZ;
    memcpy(t + tn + tn2 - GIT_OID_RAWSZ, empty.id, GIT_OID_RAWSZ);
    CHECK_EQ_INT(pg_packwrite_add(&tree, pw, GIT_OBJECT_TREE, t, tn + tn2, NULL), 0);
    char c[400];
    int cn = snprintf(c, sizeof c, "tree %s\nauthor a <a@b> 1700000000 +0000\ncommitter a <a@b> 1700000000 +0000\n\nm\n",
                      git_oid_tostr_s(&tree));
    CHECK_EQ_INT(pg_packwrite_add(&commit, pw, GIT_OBJECT_COMMIT, c, (size_t)cn, NULL), 0);
    /* Each under the id git gives that content. */
    CHECK_EQ_INT(git_odb_hash(&want, text, big, GIT_OBJECT_BLOB), 0);
    CHECK(git_oid_equal(&want, &blob));
    CHECK_STR(git_oid_tostr_s(&empty), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    CHECK_EQ_INT(packs(), 0);       /* nothing before the commit */
    CHECK_EQ_INT(pg_packwrite_commit(pw), 0);
    pg_packwrite_free(pw);
    CHECK_EQ_INT(packs(), 1);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "git cat-file -p %s:big | cmp - ../big", git_oid_tostr_s(&commit));
    FILE *f = fopen(strcat(strcpy(path, base), "/big"), "w");
    REQUIRE(f && fwrite(text, 1, big, f) == big && fclose(f) == 0);
    CHECK_EQ_INT(sh(cmd), 0);
    CHECK_EQ_INT(sh("git fsck --strict --no-dangling"), 0);
    CHECK_EQ_INT(sh("git verify-pack -v .git/objects/pack/*.idx"), 0);
    CHECK_CONTAINS(out_text(), "non delta: 4 objects");     /* every object whole */

    /* Too few objects: refused at the commit, and no pack is installed. */
    CHECK_EQ_INT(pg_packwrite_new(&pw, odb, 2), 0);
    CHECK_EQ_INT(pg_packwrite_add(&blob, pw, GIT_OBJECT_BLOB, "one\n", 4, NULL), 0);
    CHECK_EQ_INT(pg_packwrite_commit(pw), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "a pack of 2 objects given 1");
    pg_packwrite_free(pw);
    /* Too many: refused at the object past the count, and at the commit. */
    CHECK_EQ_INT(pg_packwrite_new(&pw, odb, 1), 0);
    CHECK_EQ_INT(pg_packwrite_add(&blob, pw, GIT_OBJECT_BLOB, "one\n", 4, NULL), 0);
    CHECK_EQ_INT(pg_packwrite_add(&blob, pw, GIT_OBJECT_BLOB, "two\n", 4, NULL), PG_EINVAL);
    CHECK_EQ_INT(pg_packwrite_commit(pw), PG_EINVAL);
    pg_packwrite_free(pw);
    /* Freed before the commit: discarded. */
    CHECK_EQ_INT(pg_packwrite_new(&pw, odb, 1), 0);
    CHECK_EQ_INT(pg_packwrite_add(&blob, pw, GIT_OBJECT_BLOB, "three\n", 6, NULL), 0);
    pg_packwrite_free(pw);
    CHECK_EQ_INT(packs(), 1);
    CHECK(sh("git cat-file -e 2bdf67abb163a4ffb2d7f3f0880c9fe5068ce782") != 0);     /* "three\n" */
    /* Content that is not what the id wanted says: 1, its own id said,
     * nothing written (the pack's one object is still to come). */
    git_oid three = blob, got;      /* "three\n" */
    CHECK_EQ_INT(pg_packwrite_new(&pw, odb, 1), 0);
    CHECK_EQ_INT(pg_packwrite_add(&got, pw, GIT_OBJECT_BLOB, "four\n", 5, &three), 1);
    CHECK_STR(git_oid_tostr_s(&got), "8510665149157c2bc901848c3e0b746954e9cbd9");
    CHECK_EQ_INT(pg_packwrite_add(&got, pw, GIT_OBJECT_BLOB, "three\n", 6, &three), 0);
    CHECK_EQ_INT(pg_packwrite_commit(pw), 0);
    pg_packwrite_free(pw);
    CHECK_EQ_INT(sh("git cat-file -e 2bdf67abb163a4ffb2d7f3f0880c9fe5068ce782"), 0);
    CHECK(sh("git cat-file -e 8510665149157c2bc901848c3e0b746954e9cbd9") != 0);

    free(text);
    git_odb_free(odb);
    pg_repo_free(r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", base);
    (void)system(cmd);
    return pg_check_done();
}
