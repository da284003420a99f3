/* util/dlib.h — a shared library opened when it is first needed, not linked.
 *
 * A linked library is loaded and relocated at every start of perfgate, also
 * by the commands that never call it: libpfm4's event tables and libgit2 with
 * the fifteen libraries under it were most of perfgate's start-up. Their
 * callers (counters/evsel.c, harness/store/git2.c) open them here instead and
 * call through the pointers filled in. */
#ifndef PG_UTIL_DLIB_H
#define PG_UTIL_DLIB_H

#include <stddef.h>

typedef struct pg_dlib_sym {
    void **fn;              /* where the address goes */
    const char *name;
} pg_dlib_sym;

/* Opens `soname` with dlopen's `flags` and fills every syms[i].fn. 0, or -1
 * with the reason in why[0..len) (dlerror's, or the symbol missing). */
int pg_dlib_open(const char *soname, int flags, const pg_dlib_sym *syms, size_t n, char *why, size_t len);

#endif
