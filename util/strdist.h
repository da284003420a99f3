/* util/strdist.h — how far apart two names are, for "did you mean ...?". */
#ifndef PG_UTIL_STRDIST_H
#define PG_UTIL_STRDIST_H

#include <stddef.h>

/* The Levenshtein distance of a and b, ignoring ASCII case (a typo in case is
 * still the closest name); a large number when either is longer than 63. */
size_t pg_str_distance(const char *a, const char *b);

/* The name among `names[0..n)` closest to `typed` and at most 2 edits away
 * (the first of equally close ones), or NULL: the "did you mean" candidate. */
const char *pg_str_closest(const char *typed, const char *const *names, size_t n);

#endif
