/* report/pprof.c — see pprof.h. Field numbers are profile.proto's
 * (tests/e2e/lib/profile.proto keeps a copy that the tests decode with). */
#include "report/pprof.h"
#include "report/stackids.h"
#include "util/error.h"
#include "util/text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* profile.proto's field numbers. */
enum {
    PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
    PROFILE_STRING_TABLE = 6, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
    VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
    SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
    LOCATION_ID = 1, LOCATION_LINE = 4, LINE_FUNCTION_ID = 1,
    FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
};
enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

/* A growing byte buffer; `failed` sticks, so encoding checks once at the end. */
typedef struct buf {
    unsigned char *p;
    size_t n, cap;
    int failed;
} buf;

static void put(buf *b, const void *s, size_t n)
{
    if (b->failed)
        return;
    if (b->cap - b->n < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n < n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void varint(buf *b, uint64_t v)
{
    unsigned char t[10];
    size_t n = 0;
    do {
        t[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    put(b, t, n);
}

static void key(buf *b, unsigned field, unsigned wire) { varint(b, (uint64_t)field << 3 | wire); }

/* A varint field; proto3 leaves out zeros. */
static void field_u64(buf *b, unsigned field, uint64_t v)
{
    if (v == 0)
        return;
    key(b, field, WIRE_VARINT);
    varint(b, v);
}

static void field_bytes(buf *b, unsigned field, const void *s, size_t n)
{
    key(b, field, WIRE_LEN);
    varint(b, n);
    put(b, s, n);
}

/* An embedded message from `sub`, which is emptied for the next one. */
static void field_msg(buf *b, unsigned field, buf *sub)
{
    b->failed |= sub->failed;
    field_bytes(b, field, sub->p, sub->n);
    sub->n = 0;
}

static void value_type(buf *b, unsigned field, buf *sub, uint64_t type, uint64_t unit)
{
    field_u64(sub, VALUE_TYPE_TYPE, type);
    field_u64(sub, VALUE_TYPE_UNIT, unit);
    field_msg(b, field, sub);
}

static void string(buf *b, const char *s)
{
    size_t n;
    char *ok = pg_text_utf8_repair(s, strlen(s), &n);
    if (!ok) {
        b->failed = 1;
        return;
    }
    field_bytes(b, PROFILE_STRING_TABLE, ok, n);
    free(ok);
}

static int encode(buf *b, const pg_stackids *s, const char *type)
{
    buf sub = {0}, packed = {0};
    /* Strings: "" first (proto's rule for index 0), the type and unit, then one
     * name per function: function id i + 1 has its name at string i + 3. */
    string(b, "");
    string(b, type);
    string(b, "count");
    for (size_t i = 0; i < s->nnames; i++)
        string(b, s->names[i]);
    value_type(b, PROFILE_SAMPLE_TYPE, &sub, 1, 2);
    for (size_t i = 0; i < s->n; i++) {
        if (s->count[i] > INT64_MAX) {
            free(sub.p);
            free(packed.p);
            return pg_error_set(PG_EINVAL, "a count of %llu does not fit pprof's int64 values",
                                (unsigned long long)s->count[i]);
        }
        for (size_t k = s->off[i + 1]; k-- > s->off[i];)   /* leaf first */
            varint(&packed, (uint64_t)s->ids[k] + 1);
        sub.failed |= packed.failed;
        field_bytes(&sub, SAMPLE_LOCATION_ID, packed.p, packed.n);
        packed.n = 0;
        varint(&packed, s->count[i]);
        field_bytes(&sub, SAMPLE_VALUE, packed.p, packed.n);
        packed.n = 0;
        field_msg(b, PROFILE_SAMPLE, &sub);
    }
    for (size_t i = 0; i < s->nnames; i++) {
        field_u64(&packed, LINE_FUNCTION_ID, i + 1);
        field_u64(&sub, LOCATION_ID, i + 1);
        field_msg(&sub, LOCATION_LINE, &packed);
        field_msg(b, PROFILE_LOCATION, &sub);
    }
    for (size_t i = 0; i < s->nnames; i++) {
        field_u64(&sub, FUNCTION_ID, i + 1);
        field_u64(&sub, FUNCTION_NAME, i + 3);
        field_u64(&sub, FUNCTION_SYSTEM_NAME, i + 3);
        field_msg(b, PROFILE_FUNCTION, &sub);
    }
    value_type(b, PROFILE_PERIOD_TYPE, &sub, 1, 2);
    field_u64(b, PROFILE_PERIOD, 1);
    b->failed |= sub.failed | packed.failed;
    free(sub.p);
    free(packed.p);
    return b->failed ? pg_error_set(PG_ENOMEM, "out of memory encoding a pprof profile") : 0;
}

/* gzip (not zlib's own format): what pprof's readers expect of a .pb.gz. */
static int gzip(unsigned char **out, size_t *len, const unsigned char *in, size_t n)
{
    z_stream z = {0};
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return pg_error_set(PG_ENOMEM, "cannot start zlib");
    size_t cap = deflateBound(&z, (uLong)n);
    unsigned char *p = malloc(cap);
    if (!p) {
        deflateEnd(&z);
        return pg_error_set(PG_ENOMEM, "out of memory compressing a pprof profile");
    }
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = p;
    z.avail_out = (uInt)cap;
    int zr = deflate(&z, Z_FINISH);
    *len = z.total_out;
    deflateEnd(&z);
    if (zr != Z_STREAM_END) {
        free(p);
        return pg_error_set(PG_ENOMEM, "zlib could not compress the profile (%d)", zr);
    }
    *out = p;
    return 0;
}

int pg_pprof_encode(unsigned char **out, size_t *len, pg_folded *f, const char *type)
{
    *out = NULL;
    *len = 0;
    if (pg_folded_total(f) == 0)
        return pg_error_set(PG_EINVAL, "no samples to write");
    pg_stackids s;
    int rc = pg_stackids_build(&s, f);
    if (rc < 0)
        return rc;
    buf b = {0};
    rc = encode(&b, &s, type ? type : "samples");
    if (rc == 0 && b.n > UINT32_MAX)
        rc = pg_error_set(PG_EINVAL, "a pprof profile of %zu bytes is too large", b.n);
    if (rc == 0)
        rc = gzip(out, len, b.p, b.n);
    free(b.p);
    pg_stackids_free(&s);
    return rc;
}
