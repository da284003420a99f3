/* util/strindex.h — a string -> index map for matching names fast.
 *
 * Comparing two documents of 10^4 benchmarks matches every name of one side
 * against the other; a linear search would be 10^8 string compares. Keys are
 * borrowed (the caller keeps them alive and unchanged); values are size_t.
 */
#ifndef PG_UTIL_STRINDEX_H
#define PG_UTIL_STRINDEX_H

#include <stddef.h>

typedef struct pg_strindex {
    const char **key;
    size_t *val;
    size_t n, cap;      /* cap is 0 or a power of two */
} pg_strindex;

/* Sets key -> val (replacing). PG_ENOMEM. */
int pg_strindex_put(pg_strindex *m, const char *key, size_t val);
/* Room for `n` keys without growing: a map filled with a known number of
 * names is not rehashed at every doubling. PG_ENOMEM. */
int pg_strindex_reserve(pg_strindex *m, size_t n);
/* key -> val when key is not there yet: 1. When it is, 0 and *old its value,
 * the map unchanged. One probe where get and then put take two. PG_ENOMEM. */
int pg_strindex_add(pg_strindex *m, const char *key, size_t val, size_t *old);
/* 1 and *val when present, else 0. */
int pg_strindex_get(const pg_strindex *m, const char *key, size_t *val);
void pg_strindex_free(pg_strindex *m);

#endif
