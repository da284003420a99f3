/* counters/demangle.c — libiberty's C++ and Rust demanglers. See demangle.h. */
#include "counters/demangle.h"

#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *pg_demangle(char *out, size_t len, const char *name)
{
    /* DMGL_PARAMS: C++ parameter lists, as __cxa_demangle and c++filt show
     * them. Without DMGL_VERBOSE, Rust hashes and disambiguators are left out.
     * cplus_demangle_v3 rather than cplus_demangle: the latter's other styles
     * (and its xstrdup, which exits when memory runs out) are not wanted. */
    const int opts = DMGL_PARAMS | DMGL_ANSI;
    char *d = NULL;
    if (!strncmp(name, "_R", 2) || !strncmp(name, "_ZN", 3))
        d = rust_demangle(name, opts);
    if (!d && !strncmp(name, "_Z", 2))
        d = cplus_demangle_v3(name, opts);
    snprintf(out, len, "%s", d ? d : name);
    free(d);
    return out;
}

char *pg_demangle_frame(char *out, size_t len, const char *name)
{
    pg_demangle(out, len, name);
    for (char *p = out; (p = strchr(p, ';'));)
        *p = ':';
    return out;
}
