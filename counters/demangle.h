/* counters/demangle.h — C++ and Rust symbol names for people.
 *
 * libdw does not demangle. libiberty's demangler does it (the one binutils
 * and gdb use, linked in statically from Debian's libiberty-dev): Itanium C++
 * names (_Z...) as c++filt prints them, and both Rust manglings, legacy
 * (_ZN...17h<hash>E, Itanium-shaped) and v0 (_R...), as rustc-demangle's
 * alternate form `{:#}` prints them: without the legacy ::h<hash> suffix and
 * without v0's crate disambiguators, generic arguments kept
 * (`rwork::sum_generic::<u32>`), closures numbered (`main::{closure#0}`).
 * Rust is tried first: a legacy Rust name is also a valid C++ name, and only
 * one ending in a 17h<16 hex digits>E hash is taken for Rust.
 */
#ifndef PG_COUNTERS_DEMANGLE_H
#define PG_COUNTERS_DEMANGLE_H

#include <stddef.h>

/* Writes the demangled form of `name` to `out` (truncated to `len`), or `name`
 * itself when it is not mangled or cannot be demangled. Returns `out`. */
char *pg_demangle(char *out, size_t len, const char *name);

/* The same as a frame of folded stacks: a ';' of the demangled name (Rust's
 * <[T; N]>) would split the frame, so it becomes ':'. */
char *pg_demangle_frame(char *out, size_t len, const char *name);

#endif
