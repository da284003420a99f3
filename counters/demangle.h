/* counters/demangle.h — C++ and Rust symbol names for people.
 *
 * libdw does not demangle. perfgate stays a C program: libstdc++'s
 * __cxa_demangle is looked up at run time (dlopen of libstdc++.so.6, once);
 * when it is not installed, names stay mangled. Rust's legacy scheme is
 * Itanium-compatible (_ZN...17h<hash>E): it is demangled the same way and the
 * trailing ::h<16 hex digits> hash is dropped, as rustfilt does. Rust v0 names
 * (_R...) are left as they are.
 */
#ifndef PG_COUNTERS_DEMANGLE_H
#define PG_COUNTERS_DEMANGLE_H

#include <stddef.h>

/* Writes the demangled form of `name` to `out` (truncated to `len`), or `name`
 * itself when it is not mangled or cannot be demangled. Returns `out`. */
char *pg_demangle(char *out, size_t len, const char *name);

/* Whether a C++ demangler was found (tests skip their C++ cases otherwise). */
int pg_demangle_available(void);

#endif
