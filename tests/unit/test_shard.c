/* Shards and notes: the partition of `run --shard` (longest first by stored
 * time, ties by name; round robin by name without times) and the merge of
 * note documents by run id. */
#include "harness/store/rundoc.h"
#include "harness/bench/shard.h"
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

int main(void)
{
    test_parse();
    test_assign();
    return pg_check_done();
}
