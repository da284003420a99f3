/* util/hash.h — a stable 64-bit string hash (FNV-1a), for ids and file names
 * that must be the same on every machine and in every version. */
#ifndef PG_UTIL_HASH_H
#define PG_UTIL_HASH_H

#include <stddef.h>

unsigned long long pg_hash64(const char *s);

#endif
