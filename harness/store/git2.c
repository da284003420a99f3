/* harness/store/git2.c — see git2.h. */
#define PG_GIT2_LOADER     /* the names are the library's here, not the pointers' */
#include "harness/store/git2.h"
#include "util/dlib.h"
#include "util/error.h"

#include <dlfcn.h>
#include <pthread.h>

struct pg_git2 pg_git2;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char missing[400];       /* why it could not be loaded, "" when it was */

static void load(void)
{
#define PG_GIT2_SYM(f) {(void **)&pg_git2.f, #f},
    static const pg_dlib_sym syms[] = {PG_GIT2_FUNCTIONS(PG_GIT2_SYM)};
#undef PG_GIT2_SYM
    /* RTLD_GLOBAL: its libraries join the global scope, where gittls.c's
     * dlsym(RTLD_NEXT) finds mbedtls's own functions behind perfgate's. */
    pg_dlib_open(PG_GIT2_SONAME, RTLD_NOW | RTLD_GLOBAL, syms, sizeof syms / sizeof *syms, missing, sizeof missing);
}

int pg_git2_load(void)
{
    pthread_once(&once, load);
    if (missing[0])
        return pg_error_set(PG_ENOTSUP, "libgit2 cannot be loaded: %s (perfgate was built against " PG_GIT2_SONAME ")", missing);
    return 0;
}
