/* harness/store/sha1.c — see sha1.h. */
#include "harness/store/sha1.h"
#include "util/dlib.h"
#include "util/error.h"

#include <dlfcn.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdlib.h>

static struct {
    __typeof__(EVP_MD_CTX_new) *ctx_new;
    __typeof__(EVP_MD_CTX_free) *ctx_free;
    __typeof__(EVP_sha1) *sha1;
    __typeof__(EVP_DigestInit_ex) *init;
    __typeof__(EVP_DigestUpdate) *update;
    __typeof__(EVP_DigestFinal_ex) *final;
} crypto;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char missing[400];       /* why it could not be loaded, "" when it was */

static void load(void)
{
    const pg_dlib_sym syms[] = {
        {(void **)&crypto.ctx_new, "EVP_MD_CTX_new"}, {(void **)&crypto.ctx_free, "EVP_MD_CTX_free"},
        {(void **)&crypto.sha1, "EVP_sha1"},          {(void **)&crypto.init, "EVP_DigestInit_ex"},
        {(void **)&crypto.update, "EVP_DigestUpdate"}, {(void **)&crypto.final, "EVP_DigestFinal_ex"},
    };
    pg_dlib_open(PG_CRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL, syms, sizeof syms / sizeof *syms, missing, sizeof missing);
}

struct pg_sha1 {
    EVP_MD_CTX *ctx;
    int failed;         /* an update failed: the digest would be of part of the data */
};

int pg_sha1_new(pg_sha1 **out)
{
    *out = NULL;
    pthread_once(&once, load);
    if (missing[0])
        return pg_error_set(PG_ENOTSUP, "libcrypto cannot be loaded: %s (perfgate was built against " PG_CRYPTO_SONAME ")",
                            missing);
    pg_sha1 *h = calloc(1, sizeof *h);
    if (!h || !(h->ctx = crypto.ctx_new())) {
        free(h);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    if (crypto.init(h->ctx, crypto.sha1(), NULL) != 1) {
        pg_sha1_free(h);
        return pg_error_set(PG_ERROR, "libcrypto cannot compute a SHA-1");
    }
    *out = h;
    return 0;
}

void pg_sha1_update(pg_sha1 *h, const void *data, size_t len)
{
    if (crypto.update(h->ctx, data, len) != 1)
        h->failed = 1;
}

int pg_sha1_final(unsigned char out[PG_SHA1_LEN], pg_sha1 *h)
{
    unsigned int n = 0;
    if (h->failed || crypto.final(h->ctx, out, &n) != 1 || n != PG_SHA1_LEN)
        return pg_error_set(PG_ERROR, "libcrypto cannot compute a SHA-1");
    return 0;
}

void pg_sha1_free(pg_sha1 *h)
{
    if (h && h->ctx)
        crypto.ctx_free(h->ctx);
    free(h);
}
