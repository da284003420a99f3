/* util/hash.c — see hash.h. */
#include "util/hash.h"

unsigned long long pg_hash64(const char *s)
{
    unsigned long long h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}
