/* util/jsonfile.h — reading a JSON file with errors a person can act on. */
#ifndef PG_UTIL_JSONFILE_H
#define PG_UTIL_JSONFILE_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* Parses all of `path` into `*out` (free with cJSON_Delete). PG_ENOTFOUND when
 * it does not exist; PG_EINVAL "path:LINE:COL: invalid JSON" (as an editor
 * counts) when it does not parse. */
int pg_json_read_file(cJSON **out, const char *path);

/* The same from text[0..len) (need not be NUL-terminated); `name` is what
 * the message calls it. */
int pg_json_parse(cJSON **out, const char *text, size_t len, const char *name);

/* A number item as an int (truncated); `fallback` when it is missing, not a
 * number, or out of int's range: a cast would be undefined there. */
int pg_json_int(const cJSON *item, int fallback);

#endif
