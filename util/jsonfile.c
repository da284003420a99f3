/* util/jsonfile.c — see jsonfile.h. */
#include "util/jsonfile.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/json_scratch.h"
#include "util/strindex.h"
#include "util/text.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Line and column of text + off, from 1. */
static void where(int *line, int *col, const char *text, size_t off)
{
    *line = 1, *col = 1;
    for (size_t i = 0; i < off; i++)
        if (text[i] == '\n')
            ++*line, *col = 1;
        else
            ++*col;
}

/* Where a string's "\u0000" escape starts in text[0..len), or len: cJSON
 * would end the string there, and a name or text would be read shorter
 * than it was written. An escape is a 'u' after an odd run of backslashes
 * (outside strings valid JSON has none). */
static size_t nul_escape(const char *text, size_t len)
{
    for (const char *p = text; (p = memchr(p, '\\', (size_t)(text + len - p))) != NULL;) {
        const char *q = p;
        while (q < text + len && *q == '\\')
            q++;
        if ((q - p) % 2 == 1 && text + len - q >= 5 && !memcmp(q, "u0000", 5))
            return (size_t)(q - 1 - text);
        p = q;
    }
    return len;
}

int pg_json_parse(cJSON **out, const char *text, size_t len, const char *name)
{
    const char *end = NULL;
    int line, col;
    size_t nul = nul_escape(text, len);
    if (nul < len) {
        *out = NULL;
        where(&line, &col, text, nul);
        return pg_error_set(PG_EINVAL, "%s:%d:%d: a string holds \"\\u0000\" (a NUL byte), which no name or text may",
                            name, line, col);
    }
    *out = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (*out)
        return 0;
    where(&line, &col, text, end ? (size_t)(end - text) : 0);
    return pg_error_set(PG_EINVAL, "%s:%d:%d: invalid JSON", name, line, col);
}

/* The path of the item being checked, for the message: "runs[2].machine.id".
 * Keys are data: a byte that is not printable ASCII shows as '?'. */
typedef struct strict_path {
    char buf[256];
    size_t len;
} strict_path;

void pg_json_path_index(char *buf, size_t *len, size_t cap, size_t index)
{
    char d[24];
    size_t n = 0;
    do
        d[n++] = (char)('0' + index % 10);
    while ((index /= 10) && n < sizeof d);
    if (*len + n + 3 > cap)
        return;
    buf[(*len)++] = '[';
    while (n)
        buf[(*len)++] = d[--n];
    buf[(*len)++] = ']';
    buf[*len] = '\0';
}

static size_t strict_push(strict_path *p, const cJSON *item, size_t index)
{
    size_t old = p->len, room = sizeof p->buf - 1;
    if (!item->string) {
        pg_json_path_index(p->buf, &p->len, sizeof p->buf, index);
    } else {
        if (p->len && p->len < room)
            p->buf[p->len++] = '.';
        for (const unsigned char *k = (const unsigned char *)item->string; *k && p->len < room; k++)
            p->buf[p->len++] = *k < 0x20 || *k >= 0x7f ? '?' : (char)*k;
    }
    p->buf[p->len] = '\0';
    return old;
}

static int strict_fail(const strict_path *p, const char *name, const char *why)
{
    return pg_error_set(PG_EINVAL, "%s: %s: %s", name, p->len ? p->buf : "top level", why);
}

/* Past this many keys an object's repeats are found through a hash map:
 * a document from a remote may hold an object of a million keys. */
#define STRICT_LINEAR_KEYS 16

static int strict_item(const cJSON *v, strict_path *p, const char *name)
{
    if (pg_json_strict_known(v))
        return 0;       /* a scratch document's node, checked as it was parsed */
    if (cJSON_IsString(v) && !pg_text_utf8_valid(v->valuestring, strlen(v->valuestring)))
        return strict_fail(p, name, "a string that is not UTF-8");
    int object = cJSON_IsObject(v), rc = 0;
    size_t i = 0;
    pg_strindex keys = {0};
    for (const cJSON *c = object || cJSON_IsArray(v) ? v->child : NULL; c && rc == 0; c = c->next, i++) {
        if (!object && (cJSON_IsNumber(c) || cJSON_IsBool(c) || cJSON_IsNull(c)))
            continue;   /* nothing to check, and no path to make: most of a result document's values */
        size_t old = strict_push(p, c, i), seen;
        if (object && !pg_text_utf8_valid(c->string, strlen(c->string)))
            rc = strict_fail(p, name, "a key that is not UTF-8");
        else if (object && i < STRICT_LINEAR_KEYS) {
            for (const cJSON *d = v->child; rc == 0 && d != c; d = d->next)
                if (!strcmp(d->string, c->string))
                    rc = strict_fail(p, name, "a key given twice");
        } else if (object) {
            for (const cJSON *d = keys.n ? NULL : v->child; rc == 0 && d && d != c; d = d->next)
                rc = pg_strindex_put(&keys, d->string, 0);  /* the first keys, once */
            if (rc == 0 && pg_strindex_get(&keys, c->string, &seen))
                rc = strict_fail(p, name, "a key given twice");
            else if (rc == 0)
                rc = pg_strindex_put(&keys, c->string, 0);
        }
        if (rc == 0)
            rc = strict_item(c, p, name);
        p->len = old;
        p->buf[old] = '\0';
    }
    pg_strindex_free(&keys);
    return rc;
}

int pg_json_check_strict_at(const cJSON *part, const char *name, const char *path)
{
    strict_path p;
    int n = snprintf(p.buf, sizeof p.buf, "%s", path);
    p.len = n < 0 ? 0 : (size_t)n < sizeof p.buf ? (size_t)n : sizeof p.buf - 1;
    return strict_item(part, &p, name);
}

int pg_json_check_strict(const cJSON *doc, const char *name)
{
    return pg_json_check_strict_at(doc, name, "");
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

/* `*s` (a cJSON string it owns) repaired in place when it is not UTF-8. */
static int repair_one(char **s)
{
    if (!*s || pg_text_utf8_valid(*s, strlen(*s)))
        return 0;
    char *fixed = pg_text_utf8_repair(*s, strlen(*s), NULL);
    if (!fixed)
        return -1;
    cJSON_free(*s);
    *s = fixed;                 /* cJSON's default hooks are malloc and free, as the repair's */
    return 0;
}

int pg_json_repair_utf8(cJSON *node)
{
    if (repair_one(&node->string) < 0 || (cJSON_IsString(node) && repair_one(&node->valuestring) < 0))
        return -1;
    for (cJSON *c = node->child; c; c = c->next)
        if (pg_json_repair_utf8(c) < 0)
            return -1;
    return 0;
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
