/* util/dlib.c — see dlib.h. */
#include "util/dlib.h"

#include <dlfcn.h>
#include <stdio.h>

int pg_dlib_open(const char *soname, int flags, const pg_dlib_sym *syms, size_t n, char *why, size_t len)
{
    void *h = dlopen(soname, flags);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, len, "%s", e ? e : "cannot be opened");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!(*syms[i].fn = dlsym(h, syms[i].name))) {
            snprintf(why, len, "%s has no %s", soname, syms[i].name);
            return -1;
        }
    return 0;
}
