/* harness/store/gittls.c — see gittls.h. */
#include "harness/store/gittls.h"
#include "harness/store/git2.h"
#include "util/error.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>

struct mbedtls_x509_crt;
typedef int parse_fn(struct mbedtls_x509_crt *, const char *);

/* mbedtls's own names, defined here so that libgit2's calls come here first. */
int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path);
int mbedtls_x509_crt_parse_path(struct mbedtls_x509_crt *chain, const char *path);

static int deferring;
static char deferred_file[PATH_MAX], deferred_dir[PATH_MAX];

void pg_gittls_defer_begin(void) { deferring = 1; }
void pg_gittls_defer_end(void) { deferring = 0; }

/* What libgit2 asked for, kept for pg_gittls_load; else mbedtls's function. */
static int parse(const char *name, char *keep, struct mbedtls_x509_crt *chain, const char *path)
{
    if (deferring) {
        snprintf(keep, PATH_MAX, "%s", path);
        return 0;
    }
    parse_fn *real = (parse_fn *)dlsym(RTLD_NEXT, name);
    return real ? real(chain, path) : -0x2900;      /* MBEDTLS_ERR_X509_FILE_IO_ERROR */
}

int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path)
{
    return parse("mbedtls_x509_crt_parse_file", deferred_file, chain, path);
}

int mbedtls_x509_crt_parse_path(struct mbedtls_x509_crt *chain, const char *path)
{
    return parse("mbedtls_x509_crt_parse_path", deferred_dir, chain, path);
}

int pg_gittls_load(int *loaded)
{
    if (loaded)
        *loaded = 0;
    if (!deferred_file[0] && !deferred_dir[0])
        return 0;
    const char *file = deferred_file[0] ? deferred_file : NULL, *dir = deferred_dir[0] ? deferred_dir : NULL;
    if (git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, file, dir) < 0) {
        const git_error *e = git_error_last();
        return pg_error_set(PG_ERROR, "cannot read the TLS certificates in %s: %s", file ? file : dir,
                            e && e->message ? e->message : "unknown libgit2 error");
    }
    deferred_file[0] = deferred_dir[0] = '\0';
    if (loaded)
        *loaded = 1;
    return 0;
}
