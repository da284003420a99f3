/* harness/store.c — see store.h. */
#include "harness/store.h"
#include "util/error.h"
#include "util/jsonfile.h"
#include "util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int pg_store_root(char *out, size_t len, const char *option, const char *workdir)
{
    const char *env = getenv("PERFGATE_STORE");
    if (option && *option)
        snprintf(out, len, "%s", option);
    else if (env && *env)
        snprintf(out, len, "%s", env);
    else if (workdir)
        snprintf(out, len, "%s%s.perfgate", workdir, workdir[strlen(workdir) - 1] == '/' ? "" : "/");
    else
        return pg_error_set(PG_ENOTFOUND, "no result store: not in a git work tree and neither --store nor PERFGATE_STORE given");
    return 0;
}

/* A store document's runs, checked: `doc` must be an object with a "runs" array,
 * a single run document (which becomes a one-element array), or an array of
 * run documents. Consumes `doc`:
 * the runs are moved out of it, not copied (a large suite's document is tens of
 * megabytes). */
static int runs_of(cJSON **runs, cJSON *doc, const char *path)
{
    int rc = 0;
    if (cJSON_IsArray(doc)) {      /* `perfgate show --format json`: the runs themselves */
        const cJSON *r;
        if (!doc->child) {
            cJSON_Delete(doc);
            return pg_error_set(PG_EINVAL, "%s: not a perfgate result document (an empty array: no runs)", path);
        }
        cJSON_ArrayForEach(r, doc)
            if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "benchmarks"))) {
                cJSON_Delete(doc);
                return pg_error_set(PG_EINVAL, "%s: not a perfgate result document (an array, but not of run documents)", path);
            }
        *runs = doc;
        return 0;
    }
    cJSON *arr = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "runs") : NULL;
    if (!cJSON_IsObject(doc)) {
        rc = pg_error_set(PG_EINVAL, "%s: not a perfgate result document (expected a JSON object)", path);
    } else if (arr) {
        if (!cJSON_IsArray(arr))
            rc = pg_error_set(PG_EINVAL, "%s: \"runs\" is not an array", path);
        else
            *runs = cJSON_DetachItemViaPointer(doc, arr);
    } else if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "benchmarks"))) {
        rc = pg_error_set(PG_EINVAL, "%s: not a perfgate result document (no \"runs\" or \"benchmarks\")", path);
    } else {
        *runs = cJSON_CreateArray();
        cJSON_AddItemToArray(*runs, doc);
        return 0;
    }
    cJSON_Delete(doc);
    return rc;
}

static int parse_file(cJSON **doc, const char *path)
{
    int rc = pg_json_read_file(doc, path);
    if (rc == PG_EINVAL)
        return pg_error_wrap(PG_EINVAL, "corrupt result file (move it away or delete it)");
    return rc;
}

int pg_store_load_file(cJSON **runs, const char *path)
{
    cJSON *doc;
    int rc = parse_file(&doc, path);
    if (rc < 0)
        return rc;
    return runs_of(runs, doc, path);
}

int pg_store_append(char *path_out, size_t path_len, const char *root, const char *commit,
                    const char *machine_id, const cJSON *run)
{
    char dir[4096], path[4200], lockpath[4200];
    snprintf(dir, sizeof dir, "%s/results/%s", root, commit ? commit : PG_NO_COMMIT);
    int rc = pg_mkdirs(dir);
    if (rc < 0)
        return pg_error_wrap(rc, "cannot store results");
    snprintf(path, sizeof path, "%s/%s.json", dir, machine_id);
    snprintf(lockpath, sizeof lockpath, "%s/.%s.lock", dir, machine_id);
    int lfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lfd < 0)
        return pg_error_errno(PG_EIO, "cannot store results: cannot create %s", lockpath);
    if (flock(lfd, LOCK_EX) < 0) {
        rc = pg_error_errno(PG_EIO, "cannot lock %s", lockpath);
        close(lfd);
        return rc;
    }

    cJSON *doc = NULL;
    rc = parse_file(&doc, path);
    if (rc == PG_ENOTFOUND) {
        doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "schema", PG_STORE_SCHEMA);
        if (commit)
            cJSON_AddStringToObject(doc, "commit", commit);
        else
            cJSON_AddNullToObject(doc, "commit");
        cJSON_AddStringToObject(doc, "machine_id", machine_id);
        cJSON_AddItemToObject(doc, "runs", cJSON_CreateArray());
        rc = 0;
    } else if (rc == 0) {
        /* Never overwrite what we do not understand: the user's data stays. */
        cJSON *runs = cJSON_GetObjectItemCaseSensitive(doc, "runs");
        if (!cJSON_IsArray(runs)) {
            rc = pg_error_set(PG_EINVAL, "%s: corrupt result file (no \"runs\" array); move it away or delete it", path);
            cJSON_Delete(doc);
            doc = NULL;
        }
    }
    if (rc == 0) {
        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(doc, "runs"), cJSON_Duplicate(run, 1));
        size_t n;
        char *text = pg_json_print(doc, &n);
        if (!text) {
            rc = pg_error_set(PG_ENOMEM, "out of memory");
        } else {
            rc = pg_file_write_atomic(path, text, n);
            free(text);
            if (rc < 0)
                pg_error_wrap(rc, "cannot store results");
        }
    }
    cJSON_Delete(doc);
    close(lfd);     /* releases the lock */
    if (rc == 0 && path_out)
        snprintf(path_out, path_len, "%s", path);
    return rc;
}

int pg_store_load(cJSON **runs, const char *root, const char *commit)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/results/%s", root, commit);
    /* Sorted names: the same store always loads in the same order. */
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0 && (errno == ENOENT || errno == ENOTDIR))
        return pg_error_set(PG_ENOTFOUND, "no results stored for %.12s in %s", commit, root);
    if (n < 0)
        return pg_error_errno(PG_EIO, "cannot list %s", dir);
    cJSON *all = cJSON_CreateArray();
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        size_t l = strlen(nm);
        if (rc == 0 && nm[0] != '.' && l > 5 && strcmp(nm + l - 5, ".json") == 0) {
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", dir, nm);
            cJSON *runs1;
            rc = pg_store_load_file(&runs1, path);
            if (rc == 0) {
                cJSON *r;
                while ((r = cJSON_DetachItemFromArray(runs1, 0)))
                    cJSON_AddItemToArray(all, r);
                cJSON_Delete(runs1);
            }
        }
        free(names[i]);
    }
    free(names);
    if (rc == 0 && cJSON_GetArraySize(all) == 0)
        rc = pg_error_set(PG_ENOTFOUND, "no results stored for %.12s in %s", commit, root);
    if (rc < 0) {
        cJSON_Delete(all);
        return rc;
    }
    *runs = all;
    return 0;
}
