/* The coverage of a change (report/coverage.h): changed lines onto a
 * program's function table, and the function onto benchmarks' stacks. A
 * compiler's clone of a function (host.part.0, as callgrind names it) is
 * the function; a frame that only starts with its name (hash_init for hash)
 * is not. A table with one bad field is not used at all; a benchmark without
 * a table makes "not covered" unknown. */
#include "report/coverage.h"
#include "tests/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/pg-test-coverage-XXXXXX";

/* Writes `text` to dir/name; returns the path (static storage per call site). */
static const char *put(char *path, size_t len, const char *name, const char *text)
{
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static const char table[] =
    "{\"funclines\": 1, \"functions\": ["
    "{\"name\": \"inl\", \"file\": \"a.c\", \"first\": 10, \"last\": 20, \"in\": [\"host\"]},"
    "{\"name\": \"host\", \"file\": \"a.c\", \"first\": 30, \"last\": 40, \"in\": [\"host\"]},"
    "{\"name\": \"hash\", \"file\": \"a.c\", \"first\": 42, \"last\": 48, \"in\": [\"hash\"]},"
    "{\"name\": \"cold\", \"file\": \"a.c\", \"first\": 50, \"last\": 60, \"in\": [\"cold\"]}]}";

typedef struct fixture {
    pg_side a, b;
    pg_bench_cmp bench[2];
    pg_comparison c;
    pg_change_file file;
    int range[3][2];
    pg_change ch;
    char pa[2][256], pb[2][256], tab[256];
} fixture;

/* Benchmark "b1" (and "b2" when two): stacks of A and B, and b1's table. */
static void setup(fixture *f, const char *tab, int two)
{
    memset(f, 0, sizeof *f);
    f->a.stacks_exact = f->b.stacks_exact = 1;
    snprintf(f->a.stacks_unit, sizeof f->a.stacks_unit, "instructions");
    snprintf(f->b.stacks_unit, sizeof f->b.stacks_unit, "instructions");
    snprintf(f->b.label, sizeof f->b.label, "HEAD");
    f->c.base = &f->a;
    f->c.cand = &f->b;
    f->c.bench = f->bench;
    f->c.nbench = two ? 2 : 1;
    f->bench[0].name = "b1";
    f->bench[0].stacks_a = put(f->pa[0], sizeof f->pa[0], "b1a.folded", "main;host.part.0 90\nmain;hash_init 5\n");
    f->bench[0].stacks_b = put(f->pb[0], sizeof f->pb[0], "b1.folded", "main;host.part.0 100\nmain;hash_init 7\n");
    put(f->tab, sizeof f->tab, "b1.funclines.json", tab);
    f->bench[1].name = "b2";
    f->bench[1].stacks_b = put(f->pb[1], sizeof f->pb[1], "b2.folded", "main;other 3\n");
    /* a.c: line 12 (in inl), 44 (in hash), 55-56 (in cold) */
    int r[3][2] = {{12, 12}, {44, 44}, {55, 56}};
    memcpy(f->range, r, sizeof r);
    f->file = (pg_change_file){.path = "a.c", .range = f->range, .nrange = 3};
    f->ch = (pg_change){.files = &f->file, .nfiles = 1};
}

static const pg_cov_func *find(const pg_coverage *cv, const char *name)
{
    for (size_t i = 0; i < cv->nf; i++)
        if (!strcmp(cv->f[i].name, name))
            return &cv->f[i];
    return NULL;
}

static void test_mapped(void)
{
    fixture f;
    setup(&f, table, 0);
    pg_coverage cv;
    CHECK_EQ_INT(pg_coverage_map(&cv, &f.ch, &f.c), 0);
    CHECK(cv.mapped);
    CHECK_EQ_INT(cv.nf, 3);                 /* inl, hash, cold: host's lines did not change */
    const pg_cov_func *inl = find(&cv, "inl"), *hash = find(&cv, "hash"), *cold = find(&cv, "cold");
    CHECK(inl && hash && cold && !find(&cv, "host"));
    if (inl && hash && cold) {
        CHECK_EQ_INT(inl->nbench, 1);       /* through its host's clone, host.part.0 */
        CHECK_NEAR(inl->nbench ? inl->bench[0].delta : NAN, 10, 0);
        CHECK_EQ_INT(hash->nbench, 0);      /* hash_init is not hash */
        CHECK_EQ_INT(cold->nbench, 0);
        CHECK_EQ_INT(cold->changed_at, 55);
        CHECK_EQ_INT(cold->nchanged, 2);
    }
    CHECK_EQ_INT(cv.nuncovered, 2);
    CHECK_STR(pg_coverage_verdict(&cv), "not covered");
    CHECK(!pg_coverage_fails(&cv));
    cv.required = 1;
    CHECK(pg_coverage_fails(&cv));
    pg_coverage_free(&cv);
}

static void test_blind(void)
{
    fixture f;
    setup(&f, table, 1);    /* b2 has stacks and no table */
    pg_coverage cv;
    CHECK_EQ_INT(pg_coverage_map(&cv, &f.ch, &f.c), 0);
    CHECK(cv.mapped);
    CHECK_EQ_INT(cv.nblind, 1);
    CHECK_STR(pg_coverage_verdict(&cv), "unknown");
    CHECK(cv.note && strstr(cv.note, "b2: no function table beside its stacks"));
    pg_coverage_free(&cv);
}

static void test_hostile(void)
{
    static const char *const bad[] = {
        "{\"funclines\": 1, \"functions\": [{\"name\": \"x\", \"file\": \"a.c\", \"first\": 1.5, \"last\": 2, \"in\": []}]}",
        "{\"funclines\": 1, \"functions\": [{\"name\": \"x\", \"file\": \"a.c\", \"first\": 9, \"last\": 2, \"in\": []}]}",
        "{\"funclines\": 1, \"functions\": [{\"name\": \"x\", \"file\": \"a.c\", \"first\": 1, \"last\": 2, \"in\": [7]}]}",
        "{\"funclines\": 2, \"functions\": []}",
        "{\"funclines\": 1, \"functions\": {}}",
        "{\"funclines\": 1, \"functions\": [{\"name\": \"\", \"file\": \"a.c\", \"first\": 1, \"last\": 2, \"in\": []}]}",
        "[1, 2",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        fixture f;
        setup(&f, bad[i], 0);
        pg_coverage cv;
        CHECK_EQ_INT(pg_coverage_map(&cv, &f.ch, &f.c), 0);
        CHECK(!cv.mapped);
        CHECK_STR(pg_coverage_verdict(&cv), "unknown");
        CHECK(cv.note && strstr(cv.note, "b1: its function table was not used"));
        pg_coverage_free(&cv);
    }
}

static void test_not_mappable(void)
{
    fixture f;
    setup(&f, table, 0);
    snprintf(f.ch.note, sizeof f.ch.note, "the baseline is not an ancestor");
    pg_coverage cv;
    CHECK_EQ_INT(pg_coverage_map(&cv, &f.ch, &f.c), 0);
    CHECK(!cv.mapped && cv.nf == 0);
    CHECK(cv.note && !strcmp(cv.note, "the baseline is not an ancestor"));
    pg_coverage_free(&cv);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    test_mapped();
    test_blind();
    test_hostile();
    test_not_mappable();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    return pg_check_done();
}
