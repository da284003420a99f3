/* util/json_scratch.h — a large JSON document read once: parsed by yajl into
 * a cJSON tree in memory of its own, its arrays of numbers packed.
 *
 * For result documents (10^6 numbers in a 10 MB file), where cJSON's own
 * parser and a 64-byte node per number were most of `compare`'s time and
 * memory. The tree is cJSON's, so readers use cJSON's accessors; only an
 * array whose values are all numbers differs: it has no children, and its
 * values are one block of doubles (pg_json_packed). Readers of a scratch
 * document must ask for that wherever they walk an array. */
#ifndef PG_UTIL_JSON_SCRATCH_H
#define PG_UTIL_JSON_SCRATCH_H

#include <cjson/cJSON.h>
#include <stddef.h>

typedef struct pg_json_scratch pg_json_scratch;

/* Parses text[0..len) into *out, allocated in *scratch and released whole by
 * pg_json_scratch_free (never cJSON_Delete it). Strict JSON (RFC 8259): no
 * trailing text, nesting at most 1000 deep (as cJSON). Strings are not
 * checked for UTF-8 here (pg_json_check_strict says where one is bad); a
 * string's "\u0000" ends it, as in cJSON. Bad JSON: PG_EINVAL, and the
 * message "NAME:LINE:COL: invalid JSON". Threads may parse at once. */
int pg_json_parse_scratch(cJSON **out, pg_json_scratch **scratch, const char *text, size_t len, const char *name);
void pg_json_scratch_free(pg_json_scratch *scratch);

/* When `a` is a packed array (a scratch document's non-empty array of
 * numbers only): 1, its values in *v and their count in *n. Else 0. */
int pg_json_packed(const cJSON *a, const double **v, size_t *n);

/* The number of values of array `a`, packed or not. */
size_t pg_json_array_len(const cJSON *a);

#endif
