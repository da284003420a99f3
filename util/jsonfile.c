/* util/jsonfile.c — see jsonfile.h. */
#include "util/jsonfile.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/text.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int pg_json_parse(cJSON **out, const char *text, size_t len, const char *name)
{
    const char *end = NULL;
    *out = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (*out)
        return 0;
    int line = 1, col = 1;
    for (const char *p = text; end && p < end; p++)
        if (*p == '\n')
            line++, col = 1;
        else
            col++;
    return pg_error_set(PG_EINVAL, "%s:%d:%d: invalid JSON", name, line, col);
}

int pg_json_read_file(cJSON **out, const char *path)
{
    char *text;
    size_t len;
    int rc = pg_file_read(&text, &len, path);
    if (rc < 0)
        return rc;
    rc = pg_json_parse(out, text, len, path);
    free(text);
    return rc;
}

int pg_json_int(const cJSON *item, int fallback)
{
    if (!cJSON_IsNumber(item))
        return fallback;
    double v = item->valuedouble;
    return v > INT_MIN - 1.0 && v < INT_MAX + 1.0 ? (int)v : fallback;   /* false for NaN */
}

char *pg_json_print(const cJSON *doc, size_t *len)
{
    char *text = cJSON_Print(doc);
    if (!text)
        return NULL;
    size_t n = strlen(text);
    text[n] = '\n';     /* cJSON_Print leaves room for the NUL: the newline takes it */
    char *out = pg_text_utf8_repair(text, n + 1, len);
    cJSON_free(text);
    return out;
}
