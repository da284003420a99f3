/* report/speedscope.c — see speedscope.h. */
#include "report/speedscope.h"
#include "report/stackids.h"
#include "util/error.h"
#include "util/jsonfile.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

static cJSON *document(const pg_stackids *s, uint64_t total, const char *name)
{
    cJSON *doc = cJSON_CreateObject(), *frames = cJSON_CreateArray(), *shared = cJSON_CreateObject();
    cJSON *profiles = cJSON_CreateArray(), *p = cJSON_CreateObject();
    cJSON *samples = cJSON_CreateArray(), *weights = cJSON_CreateArray();
    int ok = doc && frames && shared && profiles && p && samples && weights;
    if (ok) {
        cJSON_AddStringToObject(doc, "$schema", "https://www.speedscope.app/file-format-schema.json");
        cJSON_AddItemToObject(shared, "frames", frames);
        cJSON_AddItemToObject(doc, "shared", shared);
        cJSON_AddStringToObject(p, "type", "sampled");
        cJSON_AddStringToObject(p, "name", name);
        cJSON_AddStringToObject(p, "unit", "none");
        cJSON_AddNumberToObject(p, "startValue", 0);
        cJSON_AddNumberToObject(p, "endValue", (double)total);
        cJSON_AddItemToObject(p, "samples", samples);
        cJSON_AddItemToObject(p, "weights", weights);
        cJSON_AddItemToArray(profiles, p);
        cJSON_AddItemToObject(doc, "profiles", profiles);
        cJSON_AddStringToObject(doc, "exporter", "perfgate " PERFGATE_VERSION);
        cJSON_AddStringToObject(doc, "name", name);
    } else {
        cJSON_Delete(frames);
        cJSON_Delete(shared);
        cJSON_Delete(p);
        cJSON_Delete(profiles);
        cJSON_Delete(samples);
        cJSON_Delete(weights);
        cJSON_Delete(doc);
        return NULL;
    }
    for (size_t i = 0; i < s->nnames; i++) {
        cJSON *fr = cJSON_CreateObject();
        cJSON_AddStringToObject(fr, "name", s->names[i]);
        cJSON_AddItemToArray(frames, fr);
    }
    for (size_t i = 0; i < s->n; i++) {
        cJSON *stack = cJSON_CreateArray();
        for (size_t k = s->off[i]; k < s->off[i + 1]; k++)
            cJSON_AddItemToArray(stack, cJSON_CreateNumber(s->ids[k]));
        cJSON_AddItemToArray(samples, stack);
        cJSON_AddItemToArray(weights, cJSON_CreateNumber((double)s->count[i]));
    }
    return doc;
}

int pg_speedscope_encode(char **out, size_t *len, pg_folded *f, const char *name)
{
    *out = NULL;
    *len = 0;
    uint64_t total = pg_folded_total(f);
    if (total == 0)
        return pg_error_set(PG_EINVAL, "no samples to write");
    pg_stackids s;
    int rc = pg_stackids_build(&s, f);
    if (rc < 0)
        return rc;
    cJSON *doc = document(&s, total, name ? name : "perfgate");
    /* cJSON copies names' bytes as they are; pg_json_print makes the text valid UTF-8. */
    *out = doc ? pg_json_print(doc, len) : NULL;
    cJSON_Delete(doc);
    pg_stackids_free(&s);
    return *out ? 0 : pg_error_set(PG_ENOMEM, "out of memory writing a speedscope file");
}
