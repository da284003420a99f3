/* util/array.h — growing arrays, the one way perfgate grows them. */
#ifndef PG_UTIL_ARRAY_H
#define PG_UTIL_ARRAY_H

#include <stddef.h>

/* Makes room for element `n` in the array whose pointer is at `ptr_addr`
 * (a `T **` passed as void *), holding `*cap` elements of `size` bytes:
 * doubles the capacity (from `first`) when n == *cap. On failure the array is
 * unchanged and PG_ENOMEM is returned with the last error set. */
int pg_array_grow(void *ptr_addr, size_t *cap, size_t n, size_t size, size_t first);

/* Makes room for `want` elements in all, exactly, when there is less: for
 * an array whose final size is known, where doubling would leave up to
 * half of it unused. Failure as above. */
int pg_array_reserve(void *ptr_addr, size_t *cap, size_t want, size_t size);

#endif
