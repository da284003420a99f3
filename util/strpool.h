/* util/strpool.h — strings kept once: many equal strings, one copy.
 *
 * A side of 10^4 benchmarks names "instructions", "count" and "perf" in
 * each of its 5 * 10^4 series; a copy each was a malloc and a free each,
 * and a tenth of a large compare's memory. Pooled strings live until the
 * pool is freed and must not be changed or freed one by one. */
#ifndef PG_UTIL_STRPOOL_H
#define PG_UTIL_STRPOOL_H

#include "util/strindex.h"

typedef struct pg_strpool {
    pg_strindex index;      /* string -> its place in v */
    char **v;
    size_t n, cap;
} pg_strpool;

/* The pool's copy of `s` (made on first use), or NULL: out of memory (the
 * error set). */
const char *pg_strpool_intern(pg_strpool *p, const char *s);

void pg_strpool_free(pg_strpool *p);

#endif
