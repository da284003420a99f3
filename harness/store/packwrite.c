/* harness/store/packwrite.c — see packwrite.h. The format: git's
 * Documentation/gitformat-pack.txt ("pack-*.pack files"). */
#include "harness/store/packwrite.h"
#include "harness/store/git2.h"
#include "harness/store/gitrepo.h"
#include "harness/store/sha1.h"
#include "util/error.h"

#include <git2/sys/odb_backend.h>

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct pg_packwrite {
    pthread_mutex_t mu;
    git_odb_writepack *wp;
    git_indexer_progress stats;
    pg_sha1 *sum;               /* of every byte before the trailer */
    size_t count, added;
    int rc;                     /* the first failure */
    char msg[600];
};

/* Appends p[0..n) to the pack (the lock held). */
static void put(pg_packwrite *pw, const void *p, size_t n)
{
    if (pw->rc)
        return;
    pg_sha1_update(pw->sum, p, n);
    if (pw->wp->append(pw->wp, p, n, &pw->stats) < 0) {
        pw->rc = pg_error_set(PG_ERROR, "cannot write a pack: %s", pg_repo_git_msg());
        snprintf(pw->msg, sizeof pw->msg, "%s", pg_error_last());
    }
}

int pg_packwrite_new(pg_packwrite **out, git_odb *odb, size_t count)
{
    *out = NULL;
    if (count > UINT32_MAX)
        return pg_error_set(PG_EINVAL, "a pack holds at most %u objects, not %zu", UINT32_MAX, count);
    pg_packwrite *pw = calloc(1, sizeof *pw);
    if (!pw)
        return pg_error_set(PG_ENOMEM, "out of memory");
    pthread_mutex_init(&pw->mu, NULL);
    pw->count = count;
    int rc = pg_sha1_new(&pw->sum);
    if (rc == 0 && git_odb_write_pack(&pw->wp, odb, NULL, NULL) < 0)
        rc = pg_error_set(PG_ERROR, "cannot write a pack: %s", pg_repo_git_msg());
    if (rc < 0) {
        pg_packwrite_free(pw);
        return rc;
    }
    /* "PACK", version 2, the object count: big-endian. */
    unsigned char head[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, (unsigned char)(count >> 24),
                              (unsigned char)(count >> 16), (unsigned char)(count >> 8), (unsigned char)count};
    put(pw, head, sizeof head);
    if (pw->rc) {
        rc = pw->rc;
        pg_packwrite_free(pw);
        return rc;
    }
    *out = pw;
    return 0;
}

int pg_packwrite_add(git_oid *id, pg_packwrite *pw, git_object_t type, const void *data, size_t len,
                     const git_oid *want)
{
    if (git_odb_hash(id, data, len, type) < 0)
        return pg_error_set(PG_ERROR, "cannot hash an object: %s", pg_repo_git_msg());
    if (want && !git_oid_equal(id, want))
        return 1;
    /* Its header: the type in bits 4-6 of the first byte, the size below
     * it and then 7 bits a byte, the high bit saying another follows. */
    unsigned char head[16];
    size_t nh = 0, rest = len >> 4;
    head[nh++] = (unsigned char)(((unsigned)type & 7) << 4 | (len & 15) | (rest ? 0x80 : 0));
    for (; rest; rest >>= 7)
        head[nh++] = (unsigned char)((rest & 0x7f) | (rest >> 7 ? 0x80 : 0));
    uLongf zlen = compressBound((uLong)len);
    unsigned char *z = malloc(zlen);
    if (!z)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if (compress2(z, &zlen, data, (uLong)len, Z_BEST_SPEED) != Z_OK) {
        free(z);
        return pg_error_set(PG_ENOMEM, "out of memory (zlib)");
    }
    pthread_mutex_lock(&pw->mu);
    if (!pw->rc && pw->added == pw->count) {
        pw->rc = pg_error_set(PG_EINVAL, "internal error: a pack of %zu objects given one more", pw->count);
        snprintf(pw->msg, sizeof pw->msg, "%s", pg_error_last());
    }
    put(pw, head, nh);
    put(pw, z, zlen);
    pw->added++;
    int rc = pw->rc;
    if (rc)
        pg_error_set(rc, "%s", pw->msg);
    pthread_mutex_unlock(&pw->mu);
    free(z);
    return rc;
}

int pg_packwrite_commit(pg_packwrite *pw)
{
    unsigned char sum[PG_SHA1_LEN];
    if (pw->rc)
        return pg_error_set(pw->rc, "%s", pw->msg);
    if (pw->added != pw->count)
        return pg_error_set(PG_EINVAL, "internal error: a pack of %zu objects given %zu", pw->count, pw->added);
    int rc = pg_sha1_final(sum, pw->sum);
    if (rc < 0)
        return rc;
    if (pw->wp->append(pw->wp, sum, sizeof sum, &pw->stats) < 0 || pw->wp->commit(pw->wp, &pw->stats) < 0)
        return pg_error_set(PG_ERROR, "cannot write a pack: %s", pg_repo_git_msg());
    return 0;
}

void pg_packwrite_free(pg_packwrite *pw)
{
    if (!pw)
        return;
    if (pw->wp)
        pw->wp->free(pw->wp);
    pg_sha1_free(pw->sum);
    pthread_mutex_destroy(&pw->mu);
    free(pw);
}
