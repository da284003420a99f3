/* util/array.c — see array.h. */
#include "util/array.h"
#include "util/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int resize(void *ptr_addr, size_t *cap, size_t ncap, size_t size)
{
    if (size && ncap > SIZE_MAX / size)
        return pg_error_set(PG_ENOMEM, "out of memory");
    /* Through memcpy: a T ** is not a void ** as far as aliasing goes. */
    void *old;
    memcpy(&old, ptr_addr, sizeof old);
    void *nv = realloc(old, ncap * size);
    if (!nv)
        return pg_error_set(PG_ENOMEM, "out of memory");
    memcpy(ptr_addr, &nv, sizeof nv);
    *cap = ncap;
    return 0;
}

int pg_array_grow(void *ptr_addr, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : first;
    return resize(ptr_addr, cap, ncap <= n ? n + 1 : ncap, size);
}

int pg_array_reserve(void *ptr_addr, size_t *cap, size_t want, size_t size)
{
    return want <= *cap ? 0 : resize(ptr_addr, cap, want, size);
}
