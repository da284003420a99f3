/* Unit tests: util/suggest.h, the one "did you mean" of every unknown name. */
#include "../check.h"
#include "util/suggest.h"

#include <string.h>

static const char *best_of(pg_suggest *s, const char *typed, const char *const *names)
{
    pg_suggest_init(s, typed);
    for (const char *const *n = names; *n; n++)
        pg_suggest_offer(s, *n);
    return pg_suggest_best(s);
}

static void test_rule(void)
{
    static const char *const cmds[] = {"run", "compare", "record", "show", "push", "fetch", NULL};
    pg_suggest s;
    char buf[96];
    /* A transposition is two edits: a name of 7 may be 2 away. */
    CHECK_STR(best_of(&s, "comapre", cmds), "compare");
    CHECK_STR(pg_suggest_clause(&s, buf, sizeof buf), " (did you mean 'compare'?)");
    /* Short names: one edit only, or every short word is "close". */
    CHECK(best_of(&s, "rnu", cmds) == NULL);        /* 2 from run */
    CHECK_STR(best_of(&s, "rub", cmds), "run");
    CHECK_STR(best_of(&s, "SHOW", cmds), "show");    /* case is a typo, and the closest */
    CHECK(best_of(&s, "throughput", cmds) == NULL);
    CHECK_STR(pg_suggest_clause(&s, buf, sizeof buf), "");
    CHECK_STR(pg_suggest_list(&s, buf, sizeof buf), "");
    /* Too long to compare: nothing, and no crash. */
    char big[200];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK(best_of(&s, big, cmds) == NULL);
}

static void test_order(void)
{
    pg_suggest s;
    char buf[128];
    pg_suggest_init(&s, "branch-mises");
    pg_suggest_offer(&s, "cache-misses");              /* 5 edits: past the limit (12 / 3) */
    pg_suggest_offer(&s, "branch-misses");             /* 1 */
    pg_suggest_offer(&s, "branch-misses");             /* offered twice, kept once */
    pg_suggest_offer_as(&s, "branch-misse", "perf::branch-misse");  /* 1, offered later: after */
    pg_suggest_offer(&s, "branches");                  /* 4: the limit */
    pg_suggest_offer(&s, "branch-mistakes");           /* 3: ahead of branches, which drops out */
    pg_suggest_offer(&s, "instructions");              /* too far */
    CHECK_STR(pg_suggest_best(&s), "branch-misses");
    CHECK_STR(pg_suggest_list(&s, buf, sizeof buf), "'branch-misses', 'perf::branch-misse' or 'branch-mistakes'");
}

int main(void)
{
    test_rule();
    test_order();
    return pg_check_done();
}
