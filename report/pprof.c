/* report/pprof.c — see pprof.h. Field numbers are profile.proto's
 * (tests/e2e/lib/profile.proto keeps a copy that the tests decode with). */
#include "report/pprof.h"
#include "report/stackids.h"
#include "util/array.h"
#include "util/error.h"
#include "util/strindex.h"
#include "util/text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* profile.proto's field numbers. */
enum {
    PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
    PROFILE_STRING_TABLE = 6, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
    VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
    SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
    MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7,
    MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9,
    LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_LINE = 4, LINE_FUNCTION_ID = 1, LINE_LINE = 2,
    FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4, FUNCTION_START_LINE = 5,
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

/* What a recording knew of its functions (pg_folded_source): source files,
 * first lines, and the files they are in, one Mapping each. Strings past the
 * names are numbered from `base`, each once. */
typedef struct sources {
    const pg_frame_source **of;     /* by function id - 1: NULL when unknown */
    const char **str;               /* the strings past the names */
    size_t nstr, capstr, base;
    pg_strindex strs, maps;         /* string -> its index; module -> mapping id */
    struct mapping {
        const char *module;
        const char *build_id;
        int files, lines;           /* a function of it has a file, a line */
    } *map;                         /* by mapping id - 1 */
    size_t nmap, capmap;
} sources;

static size_t intern(sources *x, const char *s)
{
    size_t i;
    if (pg_strindex_get(&x->strs, s, &i))
        return i;
    if (pg_array_grow(&x->str, &x->capstr, x->nstr, sizeof *x->str, 16) < 0 ||
        pg_strindex_put(&x->strs, s, x->base + x->nstr) < 0)
        return 0;       /* "" stands in: only a file name is lost */
    x->str[x->nstr] = s;
    return x->base + x->nstr++;
}

/* The mapping id of `src`'s module (from 1), 0 when none. */
static size_t mapping_of(sources *x, const pg_frame_source *src)
{
    size_t id;
    if (!src || !src->module)
        return 0;
    if (!pg_strindex_get(&x->maps, src->module, &id)) {
        if (pg_array_grow(&x->map, &x->capmap, x->nmap, sizeof *x->map, 8) < 0 ||
            pg_strindex_put(&x->maps, src->module, x->nmap + 1) < 0)
            return 0;
        x->map[x->nmap] = (struct mapping){.module = src->module};
        id = ++x->nmap;
    }
    struct mapping *m = &x->map[id - 1];
    m->build_id = m->build_id ? m->build_id : src->build_id;
    m->files |= src->file != NULL;
    m->lines |= src->line > 0;
    return id;
}

static void sources_free(sources *x)
{
    free(x->of);
    free(x->str);
    free(x->map);
    pg_strindex_free(&x->strs);
    pg_strindex_free(&x->maps);
}

static void write_mappings(buf *b, buf *sub, sources *x)
{
    for (size_t i = 0; i < x->nmap; i++) {
        const struct mapping *m = &x->map[i];
        field_u64(sub, MAPPING_ID, i + 1);
        field_u64(sub, MAPPING_FILENAME, intern(x, m->module));
        if (m->build_id)
            field_u64(sub, MAPPING_BUILD_ID, intern(x, m->build_id));
        field_u64(sub, MAPPING_HAS_FUNCTIONS, 1);
        field_u64(sub, MAPPING_HAS_FILENAMES, (uint64_t)m->files);
        field_u64(sub, MAPPING_HAS_LINE_NUMBERS, (uint64_t)m->lines);
        field_msg(b, PROFILE_MAPPING, sub);
    }
}

static int encode(buf *b, const pg_stackids *s, const char *type, sources *x)
{
    buf sub = {0}, packed = {0};
    /* Strings: "" first (proto's rule for index 0), the type and unit, then one
     * name per function: function id i + 1 has its name at string i + 3; the
     * files and build ids of sources after them. */
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
    /* One Location per Function: the profile is of folded stacks, so a
     * function's line is where it starts, and its mapping the file it is in. */
    for (size_t i = 0; i < s->nnames; i++) {
        const pg_frame_source *src = x->of ? x->of[i] : NULL;
        field_u64(&packed, LINE_FUNCTION_ID, i + 1);
        field_u64(&packed, LINE_LINE, src && src->line > 0 ? (uint64_t)src->line : 0);
        field_u64(&sub, LOCATION_ID, i + 1);
        field_u64(&sub, LOCATION_MAPPING_ID, mapping_of(x, src));
        field_msg(&sub, LOCATION_LINE, &packed);
        field_msg(b, PROFILE_LOCATION, &sub);
    }
    for (size_t i = 0; i < s->nnames; i++) {
        const pg_frame_source *src = x->of ? x->of[i] : NULL;
        field_u64(&sub, FUNCTION_ID, i + 1);
        field_u64(&sub, FUNCTION_NAME, i + 3);
        field_u64(&sub, FUNCTION_SYSTEM_NAME, i + 3);
        if (src && src->file)
            field_u64(&sub, FUNCTION_FILENAME, intern(x, src->file));
        if (src && src->line > 0)
            field_u64(&sub, FUNCTION_START_LINE, (uint64_t)src->line);
        field_msg(b, PROFILE_FUNCTION, &sub);
    }
    write_mappings(b, &sub, x);
    for (size_t k = 0; k < x->nstr; k++)
        string(b, x->str[k]);
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
    sources x = {.base = 3 + s.nnames};
    for (size_t i = 0; i < s.nnames && !x.of; i++)
        if (pg_folded_source(f, s.names[i]) && !(x.of = calloc(s.nnames, sizeof *x.of)))
            rc = pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; x.of && i < s.nnames; i++)
        x.of[i] = pg_folded_source(f, s.names[i]);
    buf b = {0};
    if (rc == 0)
        rc = encode(&b, &s, type ? type : "samples", &x);
    sources_free(&x);
    if (rc == 0 && b.n > UINT32_MAX)
        rc = pg_error_set(PG_EINVAL, "a pprof profile of %zu bytes is too large", b.n);
    if (rc == 0)
        rc = gzip(out, len, b.p, b.n);
    free(b.p);
    pg_stackids_free(&s);
    return rc;
}
