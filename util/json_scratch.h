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
#include <stdint.h>

typedef struct pg_json_scratch pg_json_scratch;

/* A document of many records, read one element at a time: each element of
 * the array under `key` ("benchmarks") of a record is handed to `each` once
 * complete, then dropped, so memory holds one element, not the array. A
 * record is the root object, an object in the root array, or an object in
 * the array under the root object's `outer` ("runs"; NULL: none). `record`
 * is its index in its array (SIZE_MAX: the root), `outer` that array's key
 * (NULL: the root array or the root itself), `index` the element's. The
 * streamed array stays in the tree, empty. `each` returning < 0 stops the
 * parse with its error; bad JSON after elements were handed over is still
 * bad JSON (the caller drops what it took from them). */
typedef struct pg_json_stream {
    const char *key, *outer;
    int (*each)(void *ctx, const cJSON *element, size_t record, const char *outer, size_t index);
    void *ctx;
    /* Optional (NULL: none): the members of the object under key `flat` of
     * an element (a benchmark's "metrics"), each an object, are kept flat
     * when every member of one is plain (a key and a string of printable
     * ASCII without escapes, an integer of at most 15 digits, or a non-empty
     * array of such integers) and has one of flat_keys[0..nflat), once: its
     * values are nodes as they would be, found by pg_json_flat by the index
     * of their key, and the object has no children. Any other is built as
     * usual. The values, the errors and the verdicts on strictness are those
     * of the tree unflattened; a reader of such an object must ask for it. */
    const char *flat;
    const char *const *flat_keys;
    size_t nflat;
} pg_json_stream;

/* Parses text[0..len) into *out, allocated in *scratch and released whole by
 * pg_json_scratch_free (never cJSON_Delete it). Strict JSON (RFC 8259): no
 * trailing text, nesting at most 1000 deep (as cJSON). Strings are not
 * checked for UTF-8 here (pg_json_check_strict says where one is bad); a
 * string's "\u0000" ends it, as in cJSON, and pg_json_cut says so. Bad JSON: PG_EINVAL, and the
 * message "NAME:LINE:COL: invalid JSON". Threads may parse at once.
 * With `st`, its elements are streamed (above); NULL: the whole tree. */
int pg_json_parse_stream(cJSON **out, pg_json_scratch **scratch, const char *text, size_t len, const char *name,
                         const pg_json_stream *st);

/* The same from the file `path`, read in pieces: the text is never whole in
 * memory, and its time is linear in its length whatever its shape (a piece
 * grows to the length of a long token it continues). PG_ENOTFOUND when it does not exist, PG_EIO when unreadable;
 * messages name the path. */
int pg_json_read_stream(cJSON **out, pg_json_scratch **scratch, const char *path, const pg_json_stream *st);

/* Releases a parse's tree and all its memory. */
void pg_json_scratch_free(pg_json_scratch *scratch);

/* When `a` is a packed array (a scratch document's non-empty array of
 * numbers only): 1, its values in *v and their count in *n. Else 0. */
int pg_json_packed(const cJSON *a, const double **v, size_t *n);

/* 1 when the string value of `v` (a scratch document's node) or its key
 * held a "\u0000", so that C sees it end there: a reader refuses it rather
 * than take a shorter name or text for the one written. Else 0. */
int pg_json_cut(const cJSON *v);

/* 1 when the parse found what pg_json_check_strict (util/jsonfile.h) checks
 * of `v` (a scratch document's node) and all under it: every string and key
 * valid UTF-8 and whole (no "\u0000"), no object with a key twice (nor
 * with more than 16 keys: those are left to the check's map). 0: not
 * known, either way; the check then walks it. So a result document's
 * values are looked at once, as they are parsed, not again in a walk. */
int pg_json_strict_known(const cJSON *v);

/* When `o` was kept flat (pg_json_stream's `flat`): 1, and in *vals its
 * values, (*vals)[i] that of flat_keys[i] or NULL where it has none, nflat
 * of them. Else 0. */
int pg_json_flat(const cJSON *o, const cJSON *const **vals);

/* The number of values of array `a`, packed or not. */
size_t pg_json_array_len(const cJSON *a);

#endif
