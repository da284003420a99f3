/* The result store: round trip, appends that keep earlier runs, refusal to
 * overwrite a corrupt file, the check made before measuring, and single-run
 * documents read as files. */
#include "harness/store/store.h"
#include "tests/check.h"
#include "util/error.h"
#include "util/fileio.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void make_run(pg_rundoc *r, const char *id, double instr)
{
    memset(r, 0, sizeof *r);
    r->cpu = -1;
    pg_rundoc_set(&r->id, id);
    pg_rundoc_set(&r->backend, "valgrind");
    snprintf(r->machine.id, sizeof r->machine.id, "aabbccddeeff");
    pg_rundoc_bench *b;
    pg_rundoc_add_bench(&b, r);
    pg_rundoc_set(&b->name, "x");
    pg_rundoc_metric *m;
    pg_rundoc_metric_get(&m, b, "instructions", "count", "valgrind");
    pg_rundoc_metric_push(m, instr, 1);
}

int main(void)
{
    char root[PATH_MAX];
    REQUIRE(pg_mkdtemp(root, sizeof root, "pg-store-") == 0);
    const char *commit = "0123456789abcdef0123456789abcdef01234567";
    char path[4096];

    /* Nothing stored yet. */
    pg_rundoc_list runs = {0};
    CHECK_EQ_INT(pg_store_load(&runs, root, commit), PG_ENOTFOUND);
    CHECK_CONTAINS(pg_error_last(), "no results stored for 0123456789ab");
    CHECK_EQ_INT(pg_store_check(root, commit, "aabbccddeeff"), 0);

    pg_rundoc r1, r2;
    make_run(&r1, "run-1", 123456789012.0);
    make_run(&r2, "run-2", 5.0);
    CHECK_EQ_INT(pg_store_append(path, sizeof path, root, commit, "aabbccddeeff", &r1), 0);
    char want[4200];
    snprintf(want, sizeof want, "%s/results/%s/aabbccddeeff.json", root, commit);
    CHECK_STR(path, want);
    CHECK_EQ_INT(pg_store_append(NULL, 0, root, commit, "aabbccddeeff", &r2), 0);
    CHECK_EQ_INT(pg_store_append(NULL, 0, root, commit, "001122334455", &r2), 0);
    CHECK_EQ_INT(pg_store_check(root, commit, "aabbccddeeff"), 0);

    CHECK_EQ_INT(pg_store_load(&runs, root, commit), 0);
    CHECK_EQ_INT(runs.n, 3);
    /* Machines load in name order, runs in the order they were stored. */
    for (size_t i = 0; i < runs.n && i < 3; i++)
        CHECK_STR(runs.v[i].id, i == 1 ? "run-1" : "run-2");
    /* Large counts survive exactly. */
    CHECK(runs.n == 3 && runs.v[1].nbench == 1 && runs.v[1].bench[0].nmetrics == 1);
    if (runs.n == 3 && runs.v[1].nbench == 1 && runs.v[1].bench[0].nmetrics == 1)
        CHECK_NEAR(runs.v[1].bench[0].metrics[0].samples[0], 123456789012.0, 0);
    pg_rundoc_list_free(&runs);

    /* No temporary files left behind, by the appends or the checks. */
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -a %s/results/%s | grep -e tmp -e write-check)\"", root, commit);
    CHECK_EQ_INT(system(cmd), 0);

    /* A corrupt document is reported by name and never overwritten, and the
     * check before measuring finds it. */
    const char *junk = "{\"runs\": [ {\"id\": ";
    CHECK_EQ_INT(pg_file_write_atomic(want, junk, strlen(junk)), 0);
    CHECK_EQ_INT(pg_store_check(root, commit, "aabbccddeeff"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), want);
    CHECK_CONTAINS(pg_error_last(), "corrupt result file");
    CHECK_EQ_INT(pg_store_append(NULL, 0, root, commit, "aabbccddeeff", &r1), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), want);
    CHECK_CONTAINS(pg_error_last(), "corrupt result file");
    char *text;
    CHECK_EQ_INT(pg_file_read(&text, NULL, want), 0);
    CHECK_STR(text, junk);
    free(text);
    CHECK_EQ_INT(pg_store_load(&runs, root, commit), PG_EINVAL);
    CHECK_EQ_INT(runs.n, 0);

    /* Valid JSON of the wrong shape: the place in it is named, and it stays. */
    const char *shape = "{\"schema\": \"perfgate-store/1\", \"runs\": [ {\"schema\": \"perfgate-run/2\", \"benchmarks\": []} ]}";
    CHECK_EQ_INT(pg_file_write_atomic(want, shape, strlen(shape)), 0);
    CHECK_EQ_INT(pg_store_check(root, commit, "aabbccddeeff"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "runs[0].schema: unsupported schema \"perfgate-run/2\"");
    CHECK_EQ_INT(pg_store_append(NULL, 0, root, commit, "aabbccddeeff", &r1), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "runs[0].schema");
    CHECK_EQ_INT(pg_file_read(&text, NULL, want), 0);
    CHECK_STR(text, shape);
    free(text);

    /* Keys this perfgate does not know survive an append (a newer minor version's). */
    const char *newer = "{\"schema\": \"perfgate-store/1.1\", \"future\": 1, \"runs\": []}";
    CHECK_EQ_INT(pg_file_write_atomic(want, newer, strlen(newer)), 0);
    CHECK_EQ_INT(pg_store_append(NULL, 0, root, commit, "aabbccddeeff", &r1), 0);
    CHECK_EQ_INT(pg_file_read(&text, NULL, want), 0);
    CHECK_CONTAINS(text, "\"future\":\t1");
    free(text);

    /* A run its reader would refuse (a benchmark named twice, as a forged
     * --jobs result once made) is not written: the runs already there stay
     * readable. */
    pg_rundoc twice;
    make_run(&twice, "run-twice", 7.0);
    pg_rundoc_bench *dup;
    pg_rundoc_add_bench(&dup, &twice);
    pg_rundoc_set(&dup->name, "x");
    CHECK_EQ_INT(pg_store_append(NULL, 0, root, commit, "aabbccddeeff", &twice), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "cannot store results");
    CHECK_CONTAINS(pg_error_last(), "\"x\" is listed twice");
    CHECK_EQ_INT(pg_store_load(&runs, root, commit), 0);
    CHECK_EQ_INT(runs.n, 2);    /* 001122334455's run-2, then run-1 here */
    pg_rundoc_list_free(&runs);
    pg_rundoc_free(&twice);

    /* A single run document is read as a one-run file. */
    char single[4200];
    snprintf(single, sizeof single, "%s/single.json", root);
    char *s1;
    CHECK_EQ_INT(pg_rundoc_write(&s1, &r1), 0);
    CHECK_EQ_INT(pg_file_write_atomic(single, s1, strlen(s1)), 0);
    free(s1);
    CHECK_EQ_INT(pg_store_load_file(&runs, single), 0);
    CHECK_EQ_INT(runs.n, 1);
    pg_rundoc_list_free(&runs);
    CHECK_EQ_INT(pg_file_write_atomic(single, "[]", 2), 0);
    CHECK_EQ_INT(pg_store_load_file(&runs, single), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "not a perfgate result document");

    /* An unwritable root: a file where the directory should be. */
    char blocked[4200];
    snprintf(blocked, sizeof blocked, "%s/blocked", root);
    CHECK_EQ_INT(pg_file_write_atomic(blocked, "x", 1), 0);
    CHECK(pg_store_check(blocked, commit, "aabbccddeeff") < 0);
    CHECK_CONTAINS(pg_error_last(), "cannot store results");
    CHECK(pg_store_append(NULL, 0, blocked, commit, "aabbccddeeff", &r1) < 0);
    CHECK_CONTAINS(pg_error_last(), "cannot store results");

    /* Store root precedence: option, then PERFGATE_STORE, then the work tree. */
    char out[256];
    setenv("PERFGATE_STORE", "/env/store", 1);
    CHECK_EQ_INT(pg_store_root(out, sizeof out, "/opt/store", "/w/"), 0);
    CHECK_STR(out, "/opt/store");
    CHECK_EQ_INT(pg_store_root(out, sizeof out, NULL, "/w/"), 0);
    CHECK_STR(out, "/env/store");
    unsetenv("PERFGATE_STORE");
    CHECK_EQ_INT(pg_store_root(out, sizeof out, NULL, "/w/"), 0);
    CHECK_STR(out, "/w/.perfgate");
    CHECK_EQ_INT(pg_store_root(out, sizeof out, NULL, NULL), PG_ENOTFOUND);

    pg_rundoc_free(&r1);
    pg_rundoc_free(&r2);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        return 2;
    return pg_check_done();
}
