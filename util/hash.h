/* util/hash.h — a stable 64-bit string hash (FNV-1a), for ids and file names
 * that must be the same on every machine and in every version. */
#ifndef PG_UTIL_HASH_H
#define PG_UTIL_HASH_H

#include <stddef.h>

unsigned long long pg_hash64(const char *s);
/* The same hash over `len` bytes (NULs included), continued from `h`
 * (PG_HASH64_INIT to start). */
#define PG_HASH64_INIT 1469598103934665603ULL
unsigned long long pg_hash64_mem(unsigned long long h, const void *p, size_t len);

#endif
