/* Manifest parsing: a good manifest's every field, and bad ones' messages. */
#include "harness/bench/bench.h"
#include "tests/check.h"
#include "util/error.h"
#include "util/fileio.h"

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[PATH_MAX];

static int load_text(pg_benchset *s, const char *text)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/perfgate.json", dir);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    pg_benchset_init(s);
    return pg_manifest_load(s, path, NULL);
}

static void expect_error(const char *text, const char *msg)
{
    pg_benchset s;
    int rc = load_text(&s, text);
    CHECK_EQ_INT(rc, PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), msg);
    CHECK_CONTAINS(pg_error_last(), "perfgate.json");
    pg_benchset_free(&s);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* One benchmark from `path` placed by `at`: its argv[0] and cwd. */
static void expect_placed(const char *path, const pg_bench_place *at, const char *argv0, const char *cwd)
{
    pg_benchset s;
    pg_benchset_init(&s);
    CHECK_EQ_INT(pg_bench_discover(&s, path, at), 0);
    CHECK_EQ_INT(s.n, 1);
    if (s.n == 1) {
        CHECK_STR(s.v[0].argv[0], argv0);
        CHECK_STR(s.v[0].cwd, cwd);
    }
    pg_benchset_free(&s);
}

/* Today's manifest applied to a revision's checkout (bench.h, pg_bench_place). */
static void test_placement(void)
{
    char real[PATH_MAX], tree[PATH_MAX + 8], co[PATH_MAX + 8], p[PATH_MAX + 64], a[PATH_MAX + 64], c[PATH_MAX + 64];
    CHECK(realpath(dir, real) != NULL);
    snprintf(tree, sizeof tree, "%s/tree", real);
    snprintf(co, sizeof co, "%s/co", real);
    snprintf(p, sizeof p, "%s/tree/bench", real);
    CHECK_EQ_INT(pg_mkdirs(p), 0);
    CHECK_EQ_INT(pg_mkdirs(co), 0);
    snprintf(p, sizeof p, "%s/defs", real);
    CHECK_EQ_INT(pg_mkdirs(p), 0);
    static const char text[] = "{ \"benchmarks\": [ { \"name\": \"x\", \"command\": [\"./build/x\"] } ] }";
    snprintf(p, sizeof p, "%s/tree/bench/perfgate.json", real);
    write_file(p, text);
    snprintf(p, sizeof p, "%s/defs/perfgate.json", real);
    write_file(p, text);
    pg_bench_place in_tree = {.worktree = tree, .root = tree}, in_co = {.worktree = tree, .root = co};

    /* A manifest in the work tree: its directory, here or in the checkout (made there). */
    snprintf(p, sizeof p, "%s/tree/bench", real);
    snprintf(a, sizeof a, "%s/tree/bench/./build/x", real);
    snprintf(c, sizeof c, "%s/tree/bench", real);
    expect_placed(p, &in_tree, a, c);
    snprintf(a, sizeof a, "%s/co/bench/./build/x", real);
    snprintf(c, sizeof c, "%s/co/bench", real);
    expect_placed(p, &in_co, a, c);
    CHECK(access(c, F_OK) == 0);
    /* A manifest outside the work tree: the root of the tree measured. */
    snprintf(p, sizeof p, "%s/defs/perfgate.json", real);
    snprintf(a, sizeof a, "%s/tree/./build/x", real);
    expect_placed(p, &in_tree, a, tree);
    snprintf(a, sizeof a, "%s/co/./build/x", real);
    expect_placed(p, &in_co, a, co);
    /* Outside any repository: its own directory. */
    snprintf(a, sizeof a, "%s/defs/./build/x", real);
    snprintf(c, sizeof c, "%s/defs", real);
    expect_placed(p, NULL, a, c);
    /* A directory of executables in the work tree: the checkout's own. */
    snprintf(p, sizeof p, "%s/tree/exe", real);
    CHECK_EQ_INT(pg_mkdirs(p), 0);
    snprintf(p, sizeof p, "%s/co/exe", real);
    CHECK_EQ_INT(pg_mkdirs(p), 0);
    snprintf(p, sizeof p, "%s/co/exe/prog", real);
    write_file(p, "#!/bin/sh\n");
    CHECK_EQ_INT(chmod(p, 0755), 0);
    snprintf(p, sizeof p, "%s/tree/exe", real);
    snprintf(a, sizeof a, "%s/co/exe/prog", real);
    pg_benchset s;
    pg_benchset_init(&s);
    CHECK_EQ_INT(pg_bench_discover(&s, p, &in_co), 0);
    CHECK_EQ_INT(s.n, 1);
    if (s.n == 1)
        CHECK_STR(s.v[0].argv[0], a);
    pg_benchset_free(&s);
}

int main(void)
{
    REQUIRE(pg_mkdtemp(dir, sizeof dir, "pg-manifest-") == 0);
    pg_benchset s;
    int rc = load_text(&s,
        "{ \"build\": \"make -C bench\",\n"
        "  \"defaults\": { \"repeat\": 5, \"warmup\": 1, \"timeout\": 60, \"thresholds\": { \"instructions\": \"1%\" } },\n"
        "  \"benchmarks\": [\n"
        "    { \"name\": \"sort-1m\", \"command\": [\"../build/bench/sort\", \"1000000\"], \"cwd\": \"data\",\n"
        "      \"env\": { \"SEED\": \"1\" }, \"repeat\": 3, \"thresholds\": { \"cycles\": \"5%\" } },\n"
        "    { \"name\": \"true\", \"command\": [\"true\"] } ] }\n");
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(s.n, 2);
    CHECK_STR(s.build, "make -C bench");
    CHECK_EQ_INT(s.def_repeat, 5);
    CHECK_EQ_INT(s.def_warmup, 1);
    CHECK_NEAR(s.def_timeout, 60, 0);
    CHECK_EQ_INT(s.has_def_thresholds, 1);
    CHECK_EQ_INT(s.def_thresholds.n, 1);
    CHECK_STR(s.def_thresholds.v[0].metric, "instructions");
    CHECK_NEAR(s.def_thresholds.v[0].pct, 1.0, 0);
    char want[PATH_MAX + 64];
    char real[PATH_MAX];   /* realpath needs PATH_MAX */
    CHECK(realpath(dir, real) != NULL);
    snprintf(want, sizeof want, "%s/../build/bench/sort", real);
    CHECK_STR(s.v[0].name, "sort-1m");
    CHECK_STR(s.v[0].argv[0], want);                    /* relative to the manifest's directory */
    CHECK_STR(s.v[0].argv[1], "1000000");
    CHECK(s.v[0].argv[2] == NULL);
    snprintf(want, sizeof want, "%s/data", real);
    CHECK_STR(s.v[0].cwd, want);
    CHECK_STR(s.v[0].env[0], "SEED=1");
    CHECK_EQ_INT(s.v[0].repeat, 3);
    CHECK_EQ_INT(s.v[0].warmup, -1);                    /* not set: the defaults apply */
    CHECK_EQ_INT(s.v[0].has_thresholds, 1);
    CHECK_STR(s.v[0].thresholds.v[0].metric, "cycles");
    CHECK_NEAR(s.v[0].thresholds.v[0].pct, 5.0, 0);
    CHECK_STR(s.v[1].argv[0], "true");                  /* no '/': looked up in PATH */
    CHECK_STR(s.v[1].cwd, real);                        /* default cwd: the manifest's directory */

    CHECK_EQ_INT(pg_benchset_filter(&s, "^tr"), 0);
    CHECK_EQ_INT(s.n, 1);
    CHECK_STR(s.v[0].name, "true");
    CHECK_EQ_INT(pg_benchset_filter(&s, "("), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "--filter '('");
    pg_benchset_free(&s);

    expect_error("{ \"benchmarks\": [ { \"name\": \"a\", \"comand\": [\"x\"] } ] }",
                 "benchmarks[0]: unknown key \"comand\" (did you mean \"command\"?)");
    expect_error("{ \"benchmark\": [] }", "top level: unknown key \"benchmark\" (did you mean \"benchmarks\"?)");
    /* A name with a NUL would run as the shorter name ("a"): refused, with where. */
    expect_error("{ \"benchmarks\": [ { \"name\": \"a\\u0000b\", \"command\": [\"x\"] } ] }",
                 "perfgate.json:1:31: a string holds \"\\u0000\" (a NUL byte)");
    /* An escaped backslash before u0000 is text, not a NUL. */
    {
        pg_benchset bs;
        CHECK_EQ_INT(load_text(&bs, "{ \"benchmarks\": [ { \"name\": \"a\\\\u0000\", \"command\": [\"x\"] } ] }"), 0);
        CHECK_STR(bs.n ? bs.v[0].name : "", "a\\u0000");
        pg_benchset_free(&bs);
    }
    expect_error("{ \"benchmarks\": [ { \"name\": \"a\", \"command\": \"x\" } ] }",
                 "benchmarks[0].command: required, a non-empty array of strings");
    expect_error("{ \"benchmarks\": [ { \"name\": \"a\", \"command\": [1] } ] }", "every element must be a string");
    expect_error("{ \"benchmarks\": [ { \"command\": [\"x\"] } ] }", "benchmarks[0].name: required");
    expect_error("{ \"benchmarks\": [ { \"name\": \"a/b\", \"command\": [\"x\"] } ] }", "may not contain '/'");
    expect_error("{ \"benchmarks\": [ { \"name\": \"a\", \"command\": [\"x\"], \"repeat\": 0 } ] }",
                 "benchmarks[0].repeat: expected a whole number >= 1");
    expect_error("{ \"benchmarks\": [ { \"name\": \"a\", \"command\": [\"x\"], \"warmup\": 1.5 } ] }",
                 "benchmarks[0].warmup: expected a whole number >= 0");
    expect_error("{ \"benchmarks\": [ { \"name\": \"a\", \"command\": [\"x\"], \"timeout\": -1 } ] }",
                 "benchmarks[0].timeout: expected a number of seconds > 0");
    expect_error("{ \"benchmarks\": [ { \"name\": \"a\", \"command\": [\"x\"], \"env\": { \"A\": 1 } } ] }",
                 "benchmarks[0].env.A: expected a string");
    expect_error("{ \"defaults\": { \"thresholds\": { \"cycles\": \"5 %\" } }, \"benchmarks\": [ { \"name\": \"a\", \"command\": [\"x\"] } ] }",
                 "defaults.thresholds.cycles: expected a percentage");
    expect_error("{ \"build\": 3, \"benchmarks\": [ { \"name\": \"a\", \"command\": [\"x\"] } ] }",
                 "build: expected a shell command string");
    expect_error("[1, 2]", "expected a JSON object");
    expect_error("{\n  \"benchmarks\": [\n    { \"name\": \"a\", }\n  ]\n}", "perfgate.json:3:");

    test_placement();
    if (pg_remove_tree(dir) < 0)
        return 2;
    return pg_check_done();
}
