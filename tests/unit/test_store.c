/* The result store: round trip, appends that keep earlier runs, refusal to
 * overwrite a corrupt file, and single-run documents read as files. */
#include "harness/store.h"
#include "tests/check.h"
#include "util/error.h"
#include "util/fileio.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static cJSON *make_run(const char *id, double instr)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "id", id);
    cJSON *bs = cJSON_AddArrayToObject(r, "benchmarks");
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "name", "x");
    cJSON *m = cJSON_AddObjectToObject(cJSON_AddObjectToObject(b, "metrics"), "instructions");
    cJSON *s = cJSON_AddArrayToObject(m, "samples");
    cJSON_AddItemToArray(s, cJSON_CreateNumber(instr));
    cJSON_AddItemToArray(bs, b);
    return r;
}

int main(void)
{
    char root[PATH_MAX];
    if (pg_mkdtemp(root, sizeof root, "pg-store-") < 0)
        return 2;
    const char *commit = "0123456789abcdef0123456789abcdef01234567";
    char path[4096];

    /* Nothing stored yet. */
    cJSON *runs = NULL;
    CHECK_EQ_INT(pg_store_load(&runs, root, commit), PG_ENOTFOUND);
    CHECK_CONTAINS(pg_error_last(), "no results stored for 0123456789ab");

    cJSON *r1 = make_run("run-1", 123456789012.0), *r2 = make_run("run-2", 5.0);
    CHECK_EQ_INT(pg_store_append(path, sizeof path, root, commit, "aabbccddeeff", r1), 0);
    char want[4200];
    snprintf(want, sizeof want, "%s/results/%s/aabbccddeeff.json", root, commit);
    CHECK_STR(path, want);
    CHECK_EQ_INT(pg_store_append(NULL, 0, root, commit, "aabbccddeeff", r2), 0);
    CHECK_EQ_INT(pg_store_append(NULL, 0, root, commit, "001122334455", r2), 0);

    CHECK_EQ_INT(pg_store_load(&runs, root, commit), 0);
    CHECK_EQ_INT(cJSON_GetArraySize(runs), 3);
    /* Machines load in name order, runs in the order they were stored. */
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 0), "id")), "run-2");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 1), "id")), "run-1");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 2), "id")), "run-2");
    /* Large counts survive exactly. */
    cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 1), "benchmarks"), 0);
    double v = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "metrics"), "instructions"), "samples"), 0)->valuedouble;
    CHECK_NEAR(v, 123456789012.0, 0);
    cJSON_Delete(runs);

    /* No temporary files left behind. */
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls %s/results/%s | grep tmp)\"", root, commit);
    CHECK_EQ_INT(system(cmd), 0);

    /* A corrupt document is reported by name and never overwritten. */
    const char *junk = "{\"runs\": [ {\"id\": ";
    CHECK_EQ_INT(pg_file_write_atomic(want, junk, strlen(junk)), 0);
    CHECK_EQ_INT(pg_store_append(NULL, 0, root, commit, "aabbccddeeff", r1), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), want);
    CHECK_CONTAINS(pg_error_last(), "corrupt result file");
    char *text;
    CHECK_EQ_INT(pg_file_read(&text, NULL, want), 0);
    CHECK_STR(text, junk);
    free(text);
    CHECK_EQ_INT(pg_store_load(&runs, root, commit), PG_EINVAL);

    /* A single run document is read as a one-run file. */
    char single[4200];
    snprintf(single, sizeof single, "%s/single.json", root);
    char *s1 = cJSON_Print(r1);
    CHECK_EQ_INT(pg_file_write_atomic(single, s1, strlen(s1)), 0);
    cJSON_free(s1);
    CHECK_EQ_INT(pg_store_load_file(&runs, single), 0);
    CHECK_EQ_INT(cJSON_GetArraySize(runs), 1);
    cJSON_Delete(runs);
    CHECK_EQ_INT(pg_file_write_atomic(single, "[]", 2), 0);
    CHECK_EQ_INT(pg_store_load_file(&runs, single), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "not a perfgate result document");

    /* An unwritable root: a file where the directory should be. */
    char blocked[4200];
    snprintf(blocked, sizeof blocked, "%s/blocked", root);
    CHECK_EQ_INT(pg_file_write_atomic(blocked, "x", 1), 0);
    CHECK(pg_store_append(NULL, 0, blocked, commit, "aabbccddeeff", r1) < 0);
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

    cJSON_Delete(r1);
    cJSON_Delete(r2);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        return 2;
    return pg_check_done();
}
