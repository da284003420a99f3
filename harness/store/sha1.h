/* harness/store/sha1.h — SHA-1 of a byte stream, by OpenSSL's libcrypto.
 *
 * A pack perfgate writes (harness/store/packwrite.h) ends with the SHA-1 of
 * its bytes, which libgit2 checks but offers no function to compute.
 * libcrypto is opened when first needed, as libgit2 is (harness/store/git2.h):
 * only a fetch needs it, and loaded at every start it would cost every
 * command its relocation.
 */
#ifndef PG_STORE_SHA1_H
#define PG_STORE_SHA1_H

#include <stddef.h>

#define PG_SHA1_LEN 20

typedef struct pg_sha1 pg_sha1;

/* A new hash of nothing yet. PG_ENOTSUP when libcrypto cannot be loaded
 * (the error says why), PG_ENOMEM. */
int pg_sha1_new(pg_sha1 **out);
void pg_sha1_update(pg_sha1 *h, const void *data, size_t len);
/* The digest of all the data given, into out. PG_ERROR when libcrypto fails. */
int pg_sha1_final(unsigned char out[PG_SHA1_LEN], pg_sha1 *h);
void pg_sha1_free(pg_sha1 *h);

#endif
