/* Shards and notes: the partition of `run --shard` (longest first by stored
 * time, ties by name; round robin by name without times) and the merge of
 * note documents by run id. */
#include "harness/rundoc.h"
#include "harness/shard.h"
#include "tests/check.h"
#include "util/error.h"

#include <stdlib.h>

static void test_parse(void)
{
    pg_shard s;
    CHECK_EQ_INT(pg_shard_parse(&s, "2/4"), 0);
    CHECK_EQ_INT(s.index, 2);
    CHECK_EQ_INT(s.count, 4);
    CHECK_EQ_INT(pg_shard_parse(&s, "0/4"), PG_EINVAL);
    CHECK_EQ_INT(pg_shard_parse(&s, "5/4"), PG_EINVAL);
    CHECK_EQ_INT(pg_shard_parse(&s, "1/"), PG_EINVAL);
    CHECK_EQ_INT(pg_shard_parse(&s, "1/2x"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "expected I/N");
}

static void test_assign(void)
{
    const char *names[] = {"e", "b", "d", "a", "c"};
    int of[5];
    /* by name: a b c d e -> 0 1 0 1 0 */
    pg_shard_assign(of, names, NULL, 5, 2);
    CHECK_EQ_INT(of[3], 0);     /* a */
    CHECK_EQ_INT(of[1], 1);     /* b */
    CHECK_EQ_INT(of[4], 0);     /* c */
    CHECK_EQ_INT(of[2], 1);     /* d */
    CHECK_EQ_INT(of[0], 0);     /* e */
    /* longest first: a 10, b 10 (tie: a first), c 5, d 5, e unknown = mean 7.5
     * a->0 (10), b->1 (10), e->0 (17.5), c->1 (15), d->1 (20) */
    double d[] = {-1, 10, 5, 10, 5};
    pg_shard_assign(of, names, d, 5, 2);
    CHECK_EQ_INT(of[3], 0);
    CHECK_EQ_INT(of[1], 1);
    CHECK_EQ_INT(of[0], 0);
    CHECK_EQ_INT(of[4], 1);
    CHECK_EQ_INT(of[2], 1);
    /* one shard takes all */
    pg_shard_assign(of, names, d, 5, 1);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(of[i], 0);
}

static const char run_a[] = "{\"schema\":\"perfgate-run/1\",\"id\":\"A\",\"machine\":{\"id\":\"aaaaaaaaaaaa\"},"
                            "\"backend\":\"perf\",\"benchmarks\":[]}";
static const char run_a2[] = "{\"schema\":\"perfgate-run/1\",\"id\":\"A\",\"machine\":{\"id\":\"bbbbbbbbbbbb\"},"
                             "\"backend\":\"perf\",\"benchmarks\":[]}";

static size_t nruns(const char *text)
{
    pg_rundoc_list l = {0};
    size_t n = pg_rundoc_parse(&l, text, strlen(text), "t") == 0 ? l.n : 0;
    pg_rundoc_list_free(&l);
    return n;
}

static void test_notedoc(void)
{
    char *one = NULL, *again = NULL, *two = NULL, *bad = NULL;
    size_t added;
    CHECK_EQ_INT(pg_notedoc_merge(&one, &added, NULL, 0, "old", run_a, strlen(run_a), "add", "c0ffee"), 0);
    CHECK_EQ_INT(added, 1);
    CHECK(one && strstr(one, "\"perfgate-notes/1\""));
    CHECK_EQ_INT(nruns(one), 1);
    /* the same run again: not added twice */
    CHECK_EQ_INT(pg_notedoc_merge(&again, &added, one, strlen(one), "old", run_a, strlen(run_a), "add", "c0ffee"), 0);
    CHECK_EQ_INT(added, 0);
    CHECK_EQ_INT(nruns(again), 1);
    /* the same id, other content: kept too, nothing dropped */
    CHECK_EQ_INT(pg_notedoc_merge(&two, &added, one, strlen(one), "old", run_a2, strlen(run_a2), "add", "c0ffee"), 0);
    CHECK_EQ_INT(added, 1);
    CHECK_EQ_INT(nruns(two), 2);
    /* a damaged note is refused, naming it */
    CHECK_EQ_INT(pg_notedoc_merge(&bad, &added, "{\"schema\":\"perfgate-notes/1\",\"runs\":[1]}", 40, "the note of x",
                                  run_a, strlen(run_a), "add", "c0ffee"),
                 PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "the note of x: runs[0]");
    CHECK(bad == NULL);
    free(one);
    free(again);
    free(two);
}

int main(void)
{
    test_parse();
    test_assign();
    test_notedoc();
    return pg_check_done();
}
