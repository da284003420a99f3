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
 * the message calls it. A string holding "\u0000" is refused
 * ("path:LINE:COL: a string holds ..."): C would see it end there, and read
 * a shorter name or text than the one written. */
int pg_json_parse(cJSON **out, const char *text, size_t len, const char *name);

/* Appends "[index]" to the JSON path buf[0..*len) (room: cap bytes, NUL
 * kept); nothing when it does not fit. The digits by hand: readers call it
 * once per element of documents of 10^6 numbers, where snprintf showed. */
void pg_json_path_index(char *buf, size_t *len, size_t cap, size_t index);

/* Whether a parsed document is one value with one reading: every string and
 * key valid UTF-8 and no object naming a key twice. cJSON accepts both (it
 * copies a string's bytes as they are and keeps a repeated key as a second
 * item), so without this two documents that print alike, or a document and
 * the one printed from it, could differ: a note fetched twice would not be
 * recognised as the one already held. PG_EINVAL "name: PATH: why". */
int pg_json_check_strict(const cJSON *doc, const char *name);

/* The same for a part of a document found at `path` ("benchmarks[3]"), which
 * begins the paths of its messages. */
int pg_json_check_strict_at(const cJSON *part, const char *name, const char *path);

/* A number item as an int (truncated); `fallback` when it is missing, not a
 * number, or out of int's range: a cast would be undefined there. */
int pg_json_int(const cJSON *item, int fallback);

/* `doc` printed (formatted, as cJSON_Print) as valid UTF-8: cJSON copies a
 * string's bytes as they are, so bytes that are not UTF-8 (a benchmark or
 * function name, a child's stderr) become U+FFFD here (util/text.h). A new
 * NUL-terminated string ending in a newline (its length in *len when not
 * NULL), or NULL when out of memory. Free with free(). */
char *pg_json_print(const cJSON *doc, size_t *len);

/* The strings and keys of `node` (and below it) that are not UTF-8, with
 * every invalid byte made U+FFFD, as pg_json_print would print them: a tree
 * checked after this is the document that will be written. -1: out of memory. */
int pg_json_repair_utf8(cJSON *node);

#endif
