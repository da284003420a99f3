/* harness/store/calibration.c — see calibration.h. */
#include "harness/store/calibration.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/jsonfile.h"
#include "util/text.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SCHEMA "perfgate-thresholds/1"

void pg_calibration_path(char *out, size_t len, const char *store_root)
{
    snprintf(out, len, "%s/" PG_CALIBRATION_FILE, store_root);
}

/* `doc` is a thresholds document, or PG_EINVAL naming `path`. */
static int check_doc(const cJSON *doc, const char *path)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    if (!cJSON_IsObject(doc) || !cJSON_IsString(schema) || strcmp(schema->valuestring, SCHEMA) ||
        !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "machines")))
        return pg_error_set(PG_EINVAL, "%s: not a perfgate thresholds document (\"schema\": \"" SCHEMA
                            "\" and an object \"machines\" expected)", path);
    return pg_json_check_strict(doc, path);
}

/* The document at `path`: NULL in *out when there is none. */
static int read_doc(cJSON **out, const char *path)
{
    *out = NULL;
    cJSON *doc;
    int rc = pg_json_read_file(&doc, path);
    if (rc == PG_ENOTFOUND) {
        pg_error_clear();
        return 0;
    }
    if (rc == 0 && (rc = check_doc(doc, path)) < 0)
        cJSON_Delete(doc);
    if (rc == 0)
        *out = doc;
    return rc;
}

/* Names come from the file: escaped, so the message stays one line. */
static int bad(const char *path, const char *machine, const char *backend, const char *bench, const char *metric,
               const char *what)
{
    char m[160], b[300], x[160];
    pg_text_escape_buf(m, sizeof m, machine, PG_TEXT_TERM);
    pg_text_escape_buf(b, sizeof b, bench ? bench : "", PG_TEXT_TERM);
    pg_text_escape_buf(x, sizeof x, metric ? metric : "", PG_TEXT_TERM);
    return pg_error_set(PG_EINVAL, "%s: machines.%s.%s.benchmarks%s%s%s%s: %s", path, m, backend, bench ? "." : "", b,
                        metric ? "." : "", x, what);
}

/* The floors of (machine_id, backend) in the parsed document `doc`. */
static int floors_of(pg_floors *floors, const cJSON *doc, const char *path, const char *machine_id, const char *backend)
{
    int rc = 0;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "machines"), machine_id);
    const cJSON *entry = cJSON_GetObjectItemCaseSensitive(m, backend);
    const cJSON *benches = cJSON_GetObjectItemCaseSensitive(entry, "benchmarks");
    if (entry && !cJSON_IsObject(benches))
        rc = bad(path, machine_id, backend, NULL, NULL, "an object of benchmarks expected");
    const cJSON *b, *x;
    cJSON_ArrayForEach(b, benches)
    {
        if (rc < 0)
            break;
        if (!cJSON_IsObject(b)) {
            rc = bad(path, machine_id, backend, b->string, NULL, "an object of metrics expected");
            break;
        }
        cJSON_ArrayForEach(x, b)
        {
            const cJSON *f = cJSON_GetObjectItemCaseSensitive(x, "floor_pct");
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(x, "threshold_pct");
            if (!cJSON_IsNumber(f) || !cJSON_IsNumber(t) || !(f->valuedouble >= 0) || !(t->valuedouble >= 0) ||
                !isfinite(f->valuedouble) || !isfinite(t->valuedouble)) {
                rc = bad(path, machine_id, backend, b->string, x->string,
                         "finite numbers floor_pct and threshold_pct (percent, >= 0) expected");
                break;
            }
            if ((rc = pg_floors_set(floors, b->string, x->string, f->valuedouble, t->valuedouble)) < 0)
                break;
        }
    }
    return rc;
}

int pg_calibration_parse(pg_floors *floors, const char *text, size_t len, const char *path, const char *machine_id,
                         const char *backend)
{
    cJSON *doc;
    int rc = pg_json_parse(&doc, text, len, path);
    if (rc < 0)
        return rc;
    if ((rc = check_doc(doc, path)) == 0)
        rc = floors_of(floors, doc, path, machine_id, backend);
    cJSON_Delete(doc);
    return rc;
}

int pg_calibration_load(pg_floors *floors, const char *store_root, const char *machine_id, const char *backend)
{
    char path[4096 + 32];
    pg_calibration_path(path, sizeof path, store_root);
    cJSON *doc;
    int rc = read_doc(&doc, path);
    if (rc < 0 || !doc)
        return rc;
    rc = floors_of(floors, doc, path, machine_id, backend);
    cJSON_Delete(doc);
    return rc;
}

static cJSON *entry_of(const pg_calibration_meta *meta, const pg_floors *floors)
{
    cJSON *e = cJSON_CreateObject();
    if (!e)
        return NULL;
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    int ok = (meta->commit ? cJSON_AddStringToObject(e, "commit", meta->commit) : cJSON_AddNullToObject(e, "commit")) &&
             cJSON_AddStringToObject(e, "time", now) && cJSON_AddNumberToObject(e, "pairs", meta->pairs) &&
             cJSON_AddNumberToObject(e, "repeat", meta->repeat);
    cJSON *benches = ok ? cJSON_AddObjectToObject(e, "benchmarks") : NULL;
    for (size_t i = 0; benches && i < floors->n; i++) {
        const pg_floor *f = &floors->v[i];
        cJSON *b = cJSON_GetObjectItemCaseSensitive(benches, f->bench);
        if (!b)
            b = cJSON_AddObjectToObject(benches, f->bench);
        cJSON *x = b ? cJSON_AddObjectToObject(b, f->metric) : NULL;
        if (!x || !cJSON_AddNumberToObject(x, "floor_pct", f->floor_pct) ||
            !cJSON_AddNumberToObject(x, "threshold_pct", f->threshold_pct))
            benches = NULL;
    }
    if (!benches) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

int pg_calibration_check(const char *store_root)
{
    char path[4096 + 32];
    pg_calibration_path(path, sizeof path, store_root);
    cJSON *doc;
    int rc = read_doc(&doc, path);
    cJSON_Delete(doc);
    return rc < 0 ? pg_error_wrap(rc, "calibration not saved") : 0;
}

int pg_calibration_save(char *path_out, size_t path_len, const char *store_root, const char *machine_id,
                        const char *backend, const pg_calibration_meta *meta, const pg_floors *floors)
{
    pg_calibration_path(path_out, path_len, store_root);
    cJSON *doc;
    int rc = read_doc(&doc, path_out);
    if (rc < 0)
        return pg_error_wrap(rc, "calibration not saved");
    if (!doc && (!(doc = cJSON_CreateObject()) || !cJSON_AddStringToObject(doc, "schema", SCHEMA) ||
                 !cJSON_AddObjectToObject(doc, "machines"))) {
        cJSON_Delete(doc);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    cJSON *machines = cJSON_GetObjectItemCaseSensitive(doc, "machines");
    cJSON *m = cJSON_GetObjectItemCaseSensitive(machines, machine_id);
    if (!cJSON_IsObject(m)) {
        cJSON_DeleteItemFromObjectCaseSensitive(machines, machine_id);
        m = cJSON_AddObjectToObject(machines, machine_id);
    }
    cJSON *e = m ? entry_of(meta, floors) : NULL;
    if (e)
        cJSON_DeleteItemFromObjectCaseSensitive(m, backend);
    if (e && !cJSON_AddItemToObject(m, backend, e)) {
        cJSON_Delete(e);
        e = NULL;
    }
    char *text = e ? pg_json_print(doc, NULL) : NULL;
    cJSON_Delete(doc);
    if (!text)
        return pg_error_set(PG_ENOMEM, "out of memory");
    rc = pg_mkdirs(store_root);
    if (rc == 0)
        rc = pg_file_write_atomic(path_out, text, strlen(text));
    free(text);
    return rc;
}

void pg_calibration_warn(const pg_comparison *c)
{
    static const char *const from[] = {"perfgate's default", "the manifest", "--threshold", "calibrate"};
    for (size_t i = 0; i < c->nbench; i++) {
        for (size_t k = 0; k < c->bench[i].nm; k++) {
            const pg_metric_cmp *m = &c->bench[i].m[k];
            if (!m->gating || isnan(m->floor_pct) || !(m->threshold_pct < m->floor_pct))
                continue;
            pg_text_warn("warning: %s: %s threshold %g%% (from %s) is below the noise floor perfgate calibrate measured "
                         "on this machine, %.2g%%: A/A runs differ that much, so expect false alarms",
                         c->bench[i].name, m->metric, m->threshold_pct, from[m->threshold_source], m->floor_pct);
        }
    }
}
