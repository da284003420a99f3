/* util/hash.c — see hash.h. */
#include "util/hash.h"

#include <string.h>

unsigned long long pg_hash64_mem(unsigned long long h, const void *p, size_t len)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < len; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

unsigned long long pg_hash64(const char *s)
{
    return pg_hash64_mem(PG_HASH64_INIT, s, strlen(s));
}
