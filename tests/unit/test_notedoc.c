/* The notes' gate and union (harness/store/notedoc.h): what a note from a remote
 * may add, what it may never do (remove, replace, poison what is held), and
 * that what a merge writes passes the gate it was let through. */
#include "harness/store/notedoc.h"
#include "tests/check.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define C "c0ffeec0ffeec0ffeec0ffeec0ffeec0ffee0001"

/* A run of commit C with one benchmark whose instructions are `samples`;
 * `extra` goes into the benchmark, `top` into the run. */
static char *run_of(const char *id, const char *samples, const char *extra, const char *top)
{
    static char buf[4][2048];
    static int k;
    char *b = buf[k++ % 4];
    snprintf(b, sizeof buf[0],
             "{\"schema\":\"perfgate-run/1\",\"id\":\"%s\",\"commit\":\"" C "\",\"machine\":{\"id\":\"0123456789ab\"},"
             "%s\"backend\":\"valgrind\",\"benchmarks\":[{\"name\":\"sort\",\"status\":\"ok\",%s\"metrics\":"
             "{\"instructions\":{\"unit\":\"count\",\"backend\":\"valgrind\",\"samples\":[%s]}}}]}",
             id, top, extra ? extra : "", samples);
    return b;
}

static char *run(const char *id, const char *samples, const char *extra)
{
    return run_of(id, samples, extra, "");
}

static char *note(const char *runs)
{
    static char b[8192];
    snprintf(b, sizeof b, "{\"schema\":\"perfgate-notes/1\",\"commit\":\"" C "\",\"runs\":[%s]}", runs);
    return b;
}

/* Merges `add` into `old` (NULL: none): the return code, *out the text. */
static int merge(char **out, pg_notestat *st, const char *old, const char *add)
{
    pg_notetext o = {old, old ? strlen(old) : 0, "the note of c0ffeec0ffee"},
                a = {add, strlen(add), "the fetched note of c0ffeec0ffee from origin"};
    free(*out);
    *out = NULL;
    return pg_notedoc_union(out, st, &o, &a, C, &pg_notekind_runs);
}

static int valid(const char *text)
{
    pg_notetext t = {text, strlen(text), "merged"};
    return pg_notedoc_check(&t, C, &pg_notekind_runs) == 0;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* What `add` (one bad run beside a good one) leaves: the good one only, and
 * one warning line naming the note, the run and `why`. */
static void refused(const char *bad, const char *why)
{
    char *text = NULL, add[6000];
    pg_notestat st;
    snprintf(add, sizeof add, "{\"schema\":\"perfgate-notes/1\",\"commit\":\"" C "\",\"runs\":[%s,%s]}",
             run("good", "5", NULL), bad);
    /* the warning goes to stderr: catch it in a file */
    char log[] = "/tmp/pg-notedoc-XXXXXX";
    int fd = mkstemp(log), saved = dup(2);
    REQUIRE(fd >= 0 && saved >= 0);
    fflush(stderr);
    dup2(fd, 2);
    int rc = merge(&text, &st, NULL, add);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char said[2048] = "";
    ssize_t n = pread(fd, said, sizeof said - 1, 0);
    said[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(log);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(st.added, 1);
    CHECK_EQ_INT(st.dropped, 1);
    CHECK(text && count(text, "perfgate-run/1") == 1 && strstr(text, "\"good\""));
    CHECK(text && valid(text));
    CHECK_CONTAINS(said, "the fetched note of c0ffeec0ffee from origin: runs[1]");
    CHECK_CONTAINS(said, why);
    CHECK_EQ_INT(count(said, "\n"), 1);
    if (!strstr(said, why))
        fprintf(stderr, "  said: %s\n", said);
    free(text);
}

static void test_gate(void)
{
    refused(run("neg", "-5", NULL), "samples[0]: expected a finite number >= 0");
    refused(run("nan", "1e999", NULL), "samples[0]");
    refused("{\"schema\":\"perfgate-run/1\",\"id\":\"other\",\"commit\":\"0000000000000000000000000000000000000000\","
            "\"machine\":{\"id\":\"0123456789ab\"},\"backend\":\"perf\",\"benchmarks\":[]}",
            "not the commit this note annotates");
    refused(run("abs", "1", "\"stacks\":\"/proc/self/environ\","), "stacks: a path that is absolute or leaves the store");
    refused(run("up", "1", "\"stacks\":\"stacks/../../../../etc/passwd\","), "a path that is absolute or leaves the store");
    refused(run("dup", "1", "\"runs\":1,\"runs\":2,"), "runs[1]: benchmarks[0].runs: a key given twice");
    refused(run_of("utf", "1", NULL, "\"uncontrolled\":[\"\xff\"],"), "runs[1]: uncontrolled[0]: a string that is not UTF-8");
    refused(run_of("dirty", "1", NULL, "\"dirty\":true,"), "dirty: a run of a dirty work tree");
    /* past the keys compared one by one, a repeat is found through the hash map */
    char many[1200] = "", *m = many;
    for (int i = 0; i < 40; i++)
        m += sprintf(m, "\"k%d\":%d,", i, i);
    char *text = NULL;
    pg_notestat st;
    CHECK_EQ_INT(merge(&text, &st, NULL, run_of("many", "1", NULL, many)), 0);
    CHECK_EQ_INT(st.added, 1);
    free(text);
    strcat(many, "\"k33\":1,");
    refused(run_of("many2", "1", NULL, many), "runs[1]: k33: a key given twice");
    char slash[2048];
    snprintf(slash, sizeof slash, "%s", run("slash", "1", NULL));
    memcpy(strstr(slash, "\"sort\""), "\"s/rt\"", 6);
    refused(slash, "name: a benchmark name has no '/' or newline");
    char mid[2048];
    snprintf(mid, sizeof mid, "%s", run("mid", "1", NULL));
    memcpy(strstr(mid, "0123456789ab"), "../../xx/..x", 12);
    refused(mid, "machine.id: expected 12 hex digits");
    refused("{\"schema\":\"perfgate-run/1\",\"commit\":\"" C "\",\"machine\":{\"id\":\"0123456789ab\"},\"backend\":\"perf\","
            "\"benchmarks\":[]}", "expected an \"id\"");
    refused("7", "expected an object");
}

static void test_union(void)
{
    char *one = NULL, *again = NULL, *two = NULL, *bad = NULL;
    pg_notestat st;
    CHECK_EQ_INT(merge(&one, &st, NULL, run("A", "1,2", NULL)), 0);
    CHECK_EQ_INT(st.added, 1);
    CHECK(one && strstr(one, "\"perfgate-notes/1\""));
    CHECK(one && valid(one));
    /* the same run again, and the note merged into itself: nothing added, the text unchanged (idempotent) */
    CHECK_EQ_INT(merge(&again, &st, one, run("A", "1,2", NULL)), 0);
    CHECK_EQ_INT(st.added + st.dropped, 0);
    CHECK(again && !strcmp(again, one));
    CHECK_EQ_INT(merge(&again, &st, one, one), 0);
    CHECK(again && !strcmp(again, one));
    /* the same id with other content: the held run stays, the other is a conflict */
    CHECK_EQ_INT(merge(&two, &st, one, run("A", "1,3", NULL)), 0);
    CHECK_EQ_INT(st.added, 0);
    CHECK_EQ_INT(st.dropped, 1);
    CHECK(two && !strcmp(two, one));
    /* a note without runs, or with none, removes nothing */
    CHECK_EQ_INT(merge(&two, &st, one, note("")), 0);
    CHECK(two && !strcmp(two, one));
    /* the same id twice in one fetched note: once */
    char both[4200];
    snprintf(both, sizeof both, "%s,%s", run("B", "1", NULL), run("B", "1", NULL));
    CHECK_EQ_INT(merge(&two, &st, one, note(both)), 0);
    CHECK_EQ_INT(st.added, 1);
    CHECK(two && count(two, "perfgate-run/1") == 2 && valid(two));
    /* a fetched text that is no note at all, or a note of another commit: refused whole */
    CHECK_EQ_INT(merge(&bad, &st, one, "{\"runs\":"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "the fetched note of c0ffeec0ffee from origin:1:8: invalid JSON");
    CHECK_EQ_INT(merge(&bad, &st, one, "{\"schema\":\"perfgate-notes/1\",\"commit\":\"aa\",\"runs\":[]}"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "commit: not the commit this note annotates");
    CHECK_EQ_INT(merge(&bad, &st, one, "{\"schema\":\"perfgate-notes/2\",\"runs\":[]}"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "not a perfgate-notes/1 document");
    /* a damaged held note is not merged into (nothing of it is lost) */
    CHECK_EQ_INT(merge(&bad, &st, "[1", run("A", "1", NULL)), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "the note of c0ffeec0ffee:1:2: invalid JSON");
    /* a held run the gate would refuse (written before it) stays, and new runs still merge */
    CHECK_EQ_INT(merge(&bad, &st, note(run("old", "-1", NULL)), run("new", "1", NULL)), 0);
    CHECK_EQ_INT(st.added, 1);
    CHECK(bad && strstr(bad, "\"old\"") && strstr(bad, "\"new\""));
    free(one);
    free(again);
    free(two);
    free(bad);
}

static void test_read(void)
{
    char both[4200];
    snprintf(both, sizeof both, "%s,%s", run("good", "1", NULL), run("bad", "-1", NULL));
    const char *text = note(both);
    pg_notetext t = {text, strlen(text), "the note of c0ffeec0ffee"};
    pg_rundoc_list l = {0};
    CHECK_EQ_INT(pg_notedoc_read_runs(&l, &t, C), 0);
    CHECK_EQ_INT(l.n, 1);
    CHECK(l.n == 1 && !strcmp(l.v[0].id, "good"));
    pg_rundoc_list_free(&l);
    CHECK(!valid(text));
}

/* Whether a fetched note may be kept byte for byte (*runs counts its runs). */
static int intact(const char *text, size_t len, size_t *runs)
{
    pg_notetext t = {text, len, "the fetched note of c0ffeec0ffee from origin"};
    return pg_notedoc_intact(runs, &t, C, &pg_notekind_runs);
}

static void test_intact(void)
{
    char both[4200], text[9000];
    size_t n = 99;
    snprintf(both, sizeof both, "%s,%s", run("a", "1", NULL), run("b", "2", NULL));
    CHECK(intact(note(both), strlen(note(both)), &n));
    CHECK_EQ_INT(n, 2);
    snprintf(text, sizeof text, "%s\n\t \n", note(both));
    CHECK(intact(text, strlen(text), &n));                    /* white space after it: as git writes it */
    /* every run through the gate, ids distinct */
    snprintf(both, sizeof both, "%s,%s", run("a", "1", NULL), run("b", "-1", NULL));
    CHECK(!intact(note(both), strlen(note(both)), &n));
    snprintf(both, sizeof both, "%s,%s", run("a", "1", NULL), run("a", "1", NULL));
    CHECK(!intact(note(both), strlen(note(both)), &n));
    CHECK_STR(pg_error_last(), "");                             /* it says nothing: the union does */
    /* nothing after the JSON, a NUL first */
    const char *one = note(run("a", "1", NULL));
    snprintf(text, sizeof text, "%s junk", one);
    CHECK(!intact(text, strlen(text), &n));
    memcpy(text, one, strlen(one) + 1);
    CHECK(!intact(text, strlen(one) + 1, &n));
    /* strict outside the runs too: a key twice, a byte that is not UTF-8 */
    snprintf(text, sizeof text, "{\"schema\":\"perfgate-notes/1\",\"runs\":[],\"runs\":[%s]}", run("a", "1", NULL));
    CHECK(!intact(text, strlen(text), &n));
    snprintf(text, sizeof text, "{\"schema\":\"perfgate-notes/1\",\"pad\":\"\xff\",\"runs\":[%s]}", run("a", "1", NULL));
    CHECK(!intact(text, strlen(text), &n));
    /* the notes' own schema only: a store document is written anew */
    snprintf(text, sizeof text, "{\"schema\":\"perfgate-store/1\",\"runs\":[%s]}", run("a", "1", NULL));
    CHECK(!intact(text, strlen(text), &n));
    snprintf(text, sizeof text, "{\"schema\":\"perfgate-notes/1\",\"runs\":[%s]}", run("a", "1", NULL));
    CHECK(intact(text, strlen(text), &n));
    CHECK(!intact("[1]", 3, &n));
}

static void test_paths(void)
{
    CHECK(pg_notedoc_path_ok("stacks/c/m/r/b.folded"));
    CHECK(pg_notedoc_path_ok("a..b/c"));
    CHECK(!pg_notedoc_path_ok(""));
    CHECK(!pg_notedoc_path_ok("/etc/passwd"));
    CHECK(!pg_notedoc_path_ok("../x"));
    CHECK(!pg_notedoc_path_ok("a/../../x"));
    CHECK(!pg_notedoc_path_ok("a/./b"));
    CHECK(!pg_notedoc_path_ok("a//b"));
    CHECK(!pg_notedoc_path_ok("a/"));
    CHECK(!pg_notedoc_path_ok(".."));
}

int main(void)
{
    test_gate();
    test_union();
    test_read();
    test_intact();
    test_paths();
    return pg_check_done();
}
