/* The valgrind backend's stacks: callgrind caller contexts read back as
 * folded stacks with exact instruction weights; a real program's call tree. */
#include "counters/callgrind.h"
#include "tests/check.h"
#include "util/error.h"
#include "util/fileio.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t count_of(pg_folded *f, const char *stack)
{
    const pg_folded_entry *e = pg_folded_entries(f);
    for (size_t i = 0; i < pg_folded_count(f); i++)
        if (!strcmp(e[i].stack, stack))
            return e[i].count;
    return 0;
}

static void test_synthetic(void)
{
    /* Compressed names, a calls= line whose inclusive cost must not count as
     * self cost, a context met twice, recursion levels and a symbol version. */
    const char *text =
        "# callgrind format\nversion: 1\npositions: line\nevents: Ir Dr\nsummary: 1000\n\n"
        "fl=(1) a.c\n"
        "fn=(1) main'(below main)'__libc_start_main@@GLIBC_2.34\n"
        "10 5 1\n"
        "cfn=(2) parse'main'(below main)'__libc_start_main@@GLIBC_2.34\n"
        "calls=1 20\n"
        "11 900 3\n"
        "fn=(2)\n"
        "20 100\n"
        "cfn=(3) hash'parse'main'(below main)\n"
        "calls=3 30\n"
        "21 800\n"
        "fn=(3)\n"
        "30 700\n"
        "+1 100 2\n"
        "fn=(1)\n"
        "12 7\n"
        "fn=(4) rec'2'main'(below main)\n"
        "40 13\n"
        "fn=(5) memcpy@@GLIBC_2.14'_dl_start'0x1ab70\n"
        "50 4\n";
    pg_folded *f = NULL;
    CHECK_EQ_INT(pg_folded_new(&f), 0);
    CHECK_EQ_INT(pg_callgrind_parse(f, text, strlen(text), "t.out"), 5 + 7 + 100 + 800 + 13 + 4);
    CHECK_EQ_INT(count_of(f, "main"), 12);
    CHECK_EQ_INT(count_of(f, "main;parse"), 100);
    CHECK_EQ_INT(count_of(f, "main;parse;hash"), 800);
    CHECK_EQ_INT(count_of(f, "main;rec;rec"), 13);
    CHECK_EQ_INT(count_of(f, "[unknown];_dl_start;memcpy"), 4);
    CHECK_EQ_INT(pg_folded_count(f), 5);
    CHECK_EQ_INT(pg_folded_total(f), 929);
    pg_folded_free(f);

    CHECK_EQ_INT(pg_folded_new(&f), 0);
    CHECK_EQ_INT(pg_callgrind_parse(f, "fn=(9)\n1 2\n", 12, "bad.out"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "bad.out:1: a function id used before it was named");
    CHECK_EQ_INT(pg_callgrind_parse(f, "hello\n", 6, "junk.out"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "junk.out: no 'events:' line");
    pg_folded_free(f);

    /* Found by fuzzing (tests/fuzz/regressions/callgrind/): costs left out at
     * the end of a line are 0, not the last one given; numbers are read within
     * the text, up to a last line without a newline; a total past 2^63 is an error. */
    CHECK_EQ_INT(pg_folded_new(&f), 0);
    const char *cols = "events: Dr Dw Ir\nfn=main\n1 5 6\n2 1 1 4";
    CHECK_EQ_INT(pg_callgrind_parse(f, cols, strlen(cols), "cols.out"), 4);
    CHECK_EQ_INT(count_of(f, "main"), 4);
    const char *big = "events: Ir\nfn=main\n1 18446744073709551615\n";
    CHECK_EQ_INT(pg_callgrind_parse(f, big, strlen(big), "big.out"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "big.out:3: instruction counts add up to more than 2^63");
    pg_folded_free(f);
}

static void test_real(void)
{
    pg_valgrind *vg = NULL;
    if (pg_valgrind_new(&vg) < 0) {
        printf("valgrind not installed: real-program check skipped\n");
        return;
    }
    const char *progs = getenv("PG_TEST_PROGS");
    char prog[4096], dir[PATH_MAX];
    snprintf(prog, sizeof prog, "%s/cgtree", progs ? progs : ".");
    REQUIRE(pg_mkdtemp(dir, sizeof dir, "pg-cg-") == 0);
    char *argv[] = {prog, NULL};
    char **wrapped = NULL;
    CHECK_EQ_INT(pg_callgrind_wrap(vg, &wrapped, argv, dir), 0);
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        execv(wrapped[0], wrapped);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    pg_folded *f = NULL;
    pg_folded_new(&f);
    CHECK_EQ_INT(pg_callgrind_collect(f, dir), 0);
    uint64_t total = pg_folded_total(f);
    uint64_t ph = count_of(f, "main;parse;hash"), mh = count_of(f, "main;hash");
    /* 300 x 1000 iterations under parse, 100,000 directly under main. */
    CHECK(ph > 0 && mh > 0);
    CHECK_NEAR((double)ph / (double)mh, 3.0, 0.05);
    CHECK((double)(ph + mh) / (double)total > 0.5);
    CHECK(count_of(f, "main;rec;rec;rec") > 0);
    CHECK(count_of(f, "main;parse") > 0);
    /* The files are consumed. */
    CHECK_EQ_INT(rmdir(dir), 0);
    /* Exact: a second run gives the same weights. */
    REQUIRE(pg_mkdtemp(dir, sizeof dir, "pg-cg-") == 0);
    pg_valgrind_argv_free(wrapped);
    CHECK_EQ_INT(pg_callgrind_wrap(vg, &wrapped, argv, dir), 0);
    pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        execv(wrapped[0], wrapped);
        _exit(127);
    }
    waitpid(pid, &st, 0);
    pg_folded *g = NULL;
    pg_folded_new(&g);
    CHECK_EQ_INT(pg_callgrind_collect(g, dir), 0);
    CHECK_EQ_INT(count_of(g, "main;parse;hash"), ph);
    rmdir(dir);
    pg_folded_free(g);
    pg_folded_free(f);
    pg_valgrind_argv_free(wrapped);
    pg_valgrind_free(vg);
}

int main(void)
{
    test_synthetic();
    test_real();
    return pg_check_done();
}
