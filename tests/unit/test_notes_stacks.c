/* The stacks note (harness/store/notes_stacks.h): the document a run's stacks make
 * (benchmarks over the limit left out and named, unreadable ones named) and
 * its merge by run id, both sides validated. */
#include "harness/store/notes_stacks.h"
#include "tests/check.h"
#include "util/error.h"
#include "util/fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char doc_a[] =
    "{\"schema\":\"perfgate-stacks/1\",\"commit\":\"c0ffee\",\"runs\":[{\"id\":\"r1\",\"machine\":\"m\","
    "\"benchmarks\":[{\"name\":\"b\",\"folded\":\"main;f 10\\n\"}]}]}";
static const char doc_b[] =
    "{\"schema\":\"perfgate-stacks/1.3\",\"commit\":\"c0ffee\",\"runs\":[{\"id\":\"r2\",\"machine\":\"m\","
    "\"benchmarks\":[{\"name\":\"b\",\"folded\":\"main;g 10\\n\"}],\"later\":1}]}";

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* Merges `add` into `old` (NULL: none) as the stacks note of commit `commit`. */
static int merge(char **out, size_t *added, const char *old, const char *old_name, const char *add, const char *add_name,
                 const char *commit)
{
    pg_notetext o = {old, old ? strlen(old) : 0, old_name}, a = {add, strlen(add), add_name};
    pg_notestat st = {0};
    *out = NULL;
    int rc = pg_notedoc_union(out, &st, &o, &a, commit, &pg_notekind_stacks);
    *added = st.added;
    return rc;
}

static void test_merge(void)
{
    char *one = NULL, *again = NULL, *two = NULL, *bad = NULL;
    size_t added;
    CHECK_EQ_INT(merge(&one, &added, NULL, "old", doc_a, "add", "c0ffee"), 0);
    CHECK_EQ_INT(added, 1);
    CHECK(one && strstr(one, "\"perfgate-stacks/1\""));
    /* the same run again: not added twice */
    CHECK_EQ_INT(merge(&again, &added, one, "old", doc_a, "add", "c0ffee"), 0);
    CHECK_EQ_INT(added, 0);
    CHECK_EQ_INT(count(again, "\"id\""), 1);
    /* another run, of a newer minor version with a key this one does not know: added, key kept */
    CHECK_EQ_INT(merge(&two, &added, one, "old", doc_b, "add", "c0ffee"), 0);
    CHECK_EQ_INT(added, 1);
    CHECK_EQ_INT(count(two, "\"id\""), 2);
    CHECK_CONTAINS(two, "main;g 10");
    CHECK_CONTAINS(two, "\"later\"");
    free(bad);
    /* a fetched run without its folded text is dropped, naming the note and where */
    static const char no_folded[] =
        "{\"schema\":\"perfgate-stacks/1\",\"runs\":[{\"id\":\"r\",\"benchmarks\":[{\"name\":\"b\"}]}]}";
    CHECK_EQ_INT(merge(&bad, &added, one, "old", no_folded, "the fetched note of x", "c0ffee"), 0);
    CHECK_EQ_INT(added, 0);
    CHECK(bad && !strcmp(bad, one));
    free(bad);
    static const char other[] = "{\"schema\":\"perfgate-stacks/2\",\"runs\":[]}";
    CHECK_EQ_INT(merge(&bad, &added, one, "old", other, "fetched", "c0ffee"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "fetched: not a perfgate-stacks/1 document (schema not supported)");
    /* a results note is not a stacks note */
    static const char results[] = "{\"schema\":\"perfgate-notes/1\",\"runs\":[]}";
    CHECK_EQ_INT(merge(&bad, &added, results, "old", doc_a, "add", "c0ffee"), PG_EINVAL);
    CHECK(bad == NULL);
    /* nor a name with a '/' a benchmark's */
    static const char slash[] = "{\"schema\":\"perfgate-stacks/1\",\"runs\":[{\"id\":\"r9\",\"benchmarks\":"
                                "[{\"name\":\"../b\",\"folded\":\"a 1\\n\"}]}]}";
    CHECK_EQ_INT(merge(&bad, &added, one, "old", slash, "fetched", "c0ffee"), 0);
    CHECK_EQ_INT(added, 0);
    free(bad);
    free(one);
    free(again);
    free(two);
}

static void test_make(void)
{
    char root[256];
    REQUIRE(pg_mkdtemp(root, sizeof root, "pg-test-notes-stacks-") == 0);
    char path[512], big_text[300];
    memset(big_text, 'x', sizeof big_text - 2);
    big_text[sizeof big_text - 2] = '\n';
    big_text[sizeof big_text - 1] = '\0';
    snprintf(path, sizeof path, "%s/small.folded", root);
    CHECK_EQ_INT(pg_file_write_atomic(path, "main;f 7\n", 9), 0);
    snprintf(path, sizeof path, "%s/big.folded", root);
    CHECK_EQ_INT(pg_file_write_atomic(path, big_text, strlen(big_text)), 0);

    pg_rundoc run = {0};
    pg_rundoc_bench *b;
    CHECK_EQ_INT(pg_rundoc_set(&run.id, "r1"), 0);
    CHECK_EQ_INT(pg_rundoc_set(&run.commit, "c0ffee"), 0);
    CHECK_EQ_INT(pg_rundoc_set(&run.backend, "valgrind"), 0);
    snprintf(run.machine.id, sizeof run.machine.id, "0123456789ab");
    const char *names[] = {"small", "big", "gone", "none"}, *files[] = {"small.folded", "big.folded", "gone.folded", NULL};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(pg_rundoc_add_bench(&b, &run), 0);
        CHECK_EQ_INT(pg_rundoc_set(&b->name, names[i]), 0);
        CHECK_EQ_INT(pg_rundoc_set(&b->stacks, files[i]), 0);
        CHECK_EQ_INT(pg_rundoc_set(&b->stacks_weight, "instructions"), 0);
    }
    char *doc = NULL, big[256], unreadable[512];
    size_t n;
    CHECK_EQ_INT(pg_stacksdoc_make(&doc, &n, big, sizeof big, unreadable, sizeof unreadable, &run, root, 100), 0);
    CHECK_EQ_INT(n, 1);
    CHECK_STR(big, "'big' (299 bytes)");
    CHECK_CONTAINS(unreadable, "'gone' (");
    CHECK(doc && strstr(doc, "\"folded\":\t\"main;f 7\\n\"") != NULL);
    CHECK(doc && !strstr(doc, "xxxx"));
    /* what it makes, the merge reads */
    char *merged = NULL;
    size_t added;
    CHECK_EQ_INT(merge(&merged, &added, NULL, "old", doc, "new", "c0ffee"), 0);
    CHECK_EQ_INT(added, 1);
    free(merged);
    free(doc);
    /* nothing small enough: no document */
    CHECK_EQ_INT(pg_stacksdoc_make(&doc, &n, big, sizeof big, unreadable, sizeof unreadable, &run, root, 5), 0);
    CHECK_EQ_INT(n, 0);
    CHECK(doc == NULL);
    CHECK_STR(big, "'small' (9 bytes), 'big' (299 bytes)");
    pg_rundoc_free(&run);
    snprintf(path, sizeof path, "%s/small.folded", root);
    unlink(path);
    snprintf(path, sizeof path, "%s/big.folded", root);
    unlink(path);
    rmdir(root);
}

int main(void)
{
    test_merge();
    test_make();
    return pg_check_done();
}
