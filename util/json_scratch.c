/* util/json_scratch.c — see json_scratch.h.
 *
 * yajl does the parsing (the grammar, escapes, where an error is); its
 * callbacks build cJSON nodes in chunks of the scratch, so a document costs
 * no malloc per value and is dropped in a few frees. An array collects its
 * numbers in a buffer of its frame until a value that is not a number comes
 * (then they become nodes, in order); an array that ends all numbers keeps
 * them as one block of doubles: 8 bytes a number, not a 64-byte node.
 *
 * A streamed element (pg_json_stream) is built the same way, handed to the
 * callback once complete, and its memory given back to the scratch: a
 * document of 10^4 benchmarks costs one benchmark's tree, not 10^4.
 *
 * A file is fed to yajl in pieces, and a piece is never shorter than the
 * token the text before it ends inside (struct cut): yajl's lexer keeps a
 * token cut by the end of a piece and scans it again from its first byte
 * with every piece fed after (yajl_lex.c: bufOff = 0 once a piece is
 * appended), so a 64 MiB string read in 64 KiB pieces was scanned 1024
 * times (13.7 s); with each piece at least as long as what is rescanned,
 * the rescans cost at most the text read: linear, whatever the shape.
 *
 * What a result document is made of is read here, not by yajl, where it
 * is plain: an array of short integers (samples and running fractions: two
 * thirds of its text), and an object's members while each is a plain key
 * with a plain string, a short integer or such an array (a metric, most of
 * a benchmark). yajl takes the '[' or '{', this file's scan hands the values
 * to the same callbacks yajl would, and yajl goes on from the ']' or '}' (or
 * from the first member not taken, after a stand-in for those taken), so it
 * still judges every byte that is not plain JSON, where it would have. The
 * scan follows strings quote to quote, so a bracket in one is never taken.
 * A 10 MB document's parse: 36 ms in yajl before, 2 ms in yajl and 8 here.
 *
 * Where the stream asks (its `flat`: a benchmark's metrics), such an object
 * of plain members, each with a key of its own, is made no tree at all: its
 * values are nodes found by their key's index (flat_members), and the object
 * that holds them takes them as plain members too, so yajl sees neither
 * their keys nor their braces. The reader then looks up no key: 0.85x the
 * instructions of a compare of two 10^4-benchmark documents. */
#include "util/json_scratch.h"
#include "util/array.h"
#include "util/error.h"
#include "util/text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

#define CHUNK (1u << 20)
#define READ_SIZE (1u << 16)
#define MAX_DEPTH 1000              /* cJSON's CJSON_NESTING_LIMIT: readers recurse */
#define PACKED (1 << 14)            /* a type bit cJSON does not use: cJSON_IsArray still holds */
#define CUT_VALUE (1 << 15)         /* its string held a "\u0000": C sees it end there */
#define CUT_KEY (1 << 16)           /* its key did */
#define STRICT (1 << 17)            /* pg_json_strict_known: what pg_json_check_strict asks, known */
#define STRICT_KEYS 16              /* objects of more keys are left to pg_json_check_strict's map */
#define FLAT (1 << 18)              /* an object kept flat: its values by key index (pg_json_flat) */

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    max_align_t data[];
} chunk;

struct pg_json_scratch {
    chunk *head;
    chunk *spare;                   /* given back by streamed elements, to reuse */
};

/* Where the scratch stood before a streamed element: given back to it. */
typedef struct mark {
    chunk *head;
    size_t used;
} mark;

/* With a pg_json_stream, a frame is one of these: */
enum role {
    R_NONE,
    R_RECORDS,                      /* an array of records: the root, or the root's `outer` */
    R_RECORD,                       /* an object whose `key` is streamed: the root, or in R_RECORDS */
    R_STREAMED,                     /* a record's `key` array: its elements go to the callback */
};

typedef struct frame {
    cJSON *node, *last;             /* the container, and its last child */
    double *nums;                   /* an array's numbers so far, while all are numbers */
    size_t n, cap;
    int all_numbers;
    int object;                     /* an object (else an array): asked of every value it gets */
    int role;                       /* enum role */
    size_t count;                   /* the values it holds so far */
    size_t record;                  /* R_RECORD: its index among the records; SIZE_MAX: the root */
    const char *outer;              /* R_RECORD: the root's key holding it, or NULL */
    mark at;                        /* an element of R_STREAMED being built: the scratch before it */
    int unknown;                    /* not known strict (pg_json_strict_known): a string or key not
                                     * UTF-8 or cut, a key twice, too many keys, or such a child */
} frame;

typedef struct builder {
    pg_json_scratch *mem;
    frame *stack;
    size_t depth, cap;
    cJSON *root;
    const char *key;                /* the key of the next value, in an object */
    int key_cut;                    /* ... which held a NUL */
    uintptr_t text, text_end;       /* the piece yajl is parsing */
    int oom;
    const pg_json_stream *stream;   /* NULL: the whole tree is kept */
    int rc;                         /* the callback's error, which stopped the parse */
    double *spare;                  /* a closed array's buffer of numbers, for the next one: */
    size_t spare_cap;               /* 10^5 arrays of a document, not 10^5 mallocs */
    int mute;                       /* yajl is being fed the stand-in for members taken (plain_members) */
} builder;

/* The numbers' buffer of a frame that no longer needs it, kept for the
 * next array (the larger of two kept). */
static void give_back(builder *b, frame *f)
{
    if (f->cap > b->spare_cap) {
        free(b->spare);
        b->spare = f->nums;
        b->spare_cap = f->cap;
    } else {
        free(f->nums);
    }
    f->nums = NULL;
    f->cap = 0;
}

static void *take(pg_json_scratch *s, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    chunk *c = s->head;
    if (!c || c->cap - c->used < n) {
        if (s->spare && s->spare->cap >= n) {
            c = s->spare;
            s->spare = c->next;
        } else {
            size_t cap = n > CHUNK ? n : CHUNK;
            if (!(c = malloc(sizeof *c + cap)))
                return NULL;
            c->cap = cap;
        }
        c->next = s->head;
        c->used = 0;
        s->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

static mark mark_of(const pg_json_scratch *s)
{
    return (mark){s->head, s->head ? s->head->used : 0};
}

/* Gives back everything taken since `m`: chunks begun since go to spare. */
static void release(pg_json_scratch *s, mark m)
{
    while (s->head != m.head) {
        chunk *c = s->head;
        s->head = c->next;
        c->next = s->spare;
        s->spare = c;
    }
    if (s->head)
        s->head->used = m.used;
}

static char *copy(builder *b, const unsigned char *s, size_t len)
{
    char *p = take(b->mem, len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

static cJSON *node(builder *b, int type)
{
    cJSON *n = take(b->mem, sizeof *n);
    if (n)
        *n = (cJSON){.type = type};
    return n;
}

static frame *top(builder *b)
{
    return b->depth ? &b->stack[b->depth - 1] : NULL;
}

/* Hangs `n` under the open container (or makes it the root); an element of
 * a streamed array hangs nowhere: it goes to the callback instead. */
static void attach(builder *b, cJSON *n)
{
    frame *f = top(b);
    if (!f) {
        b->root = n;
        return;
    }
    f->count++;
    if (f->object) {
        n->string = (char *)b->key;
        n->type |= b->key_cut ? CUT_KEY : 0;
        b->key = NULL;
    }
    if (f->role == R_STREAMED)
        return;
    if (!f->last) {
        f->node->child = n;
    } else {
        f->last->next = n;
        n->prev = f->last;
    }
    f->last = n;
    f->node->child->prev = n;       /* cJSON keeps the last child in the first's prev */
}

static cJSON *number_node(builder *b, double d)
{
    cJSON *n = node(b, cJSON_Number);
    if (n) {
        n->valuedouble = d;
        n->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
    }
    return n;
}

/* The open array's numbers so far become nodes: a value of another kind came. */
static int unpack(builder *b, frame *f)
{
    f->all_numbers = 0;
    for (size_t i = 0; i < f->n; i++) {
        cJSON *n = number_node(b, f->nums[i]);
        if (!n)
            return 0;
        attach(b, n);
    }
    give_back(b, f);
    f->n = 0;
    return 1;
}

/* A complete element of the streamed array `f` to the callback; then its
 * memory back to the scratch. */
static int hand_over(builder *b, frame *f, const cJSON *element, mark at)
{
    const frame *rec = f - 1;
    int rc = b->stream->each(b->stream->ctx, element, rec->record, rec->outer, f->count - 1);
    release(b->mem, at);
    if (rc < 0)
        return b->rc = rc, 0;
    return 1;
}

/* A value that is not a number, attached where it belongs. */
static int add(builder *b, cJSON *n)
{
    if (!n)
        return b->oom = 1, 0;
    frame *f = top(b);
    if (f && f->all_numbers && !unpack(b, f))
        return b->oom = 1, 0;
    attach(b, n);
    return 1;
}

/* A scalar value: in a streamed array, an element of its own. */
static int add_scalar(builder *b, cJSON *n)
{
    frame *f = top(b);
    if (f && f->role == R_STREAMED) {
        mark at = mark_of(b->mem);  /* n itself stays taken: a scalar where records belong is
                                     * refused by the reader, and kept no longer than the tree */
        return add(b, n) && hand_over(b, f, n, at);
    }
    return add(b, n);
}

/* The number of digits that begin s[0..len), their value in *v while they
 * are at most 15 (below 2^53: exact as a double; more wrap, unread).
 * One at a time: eight at a time (SWAR) was slower on a sample's seven or
 * eight digits and its comma. */
static inline size_t leading_digits(const char *s, size_t len, uint64_t *v)
{
    size_t n = 0;
    uint64_t x = 0;
    for (unsigned dig; n < len && (dig = (unsigned char)s[n] - (unsigned)'0') < 10; n++)
        x = x * 10 + dig;
    *v = x;
    return n;
}

/* A JSON number's text, exactly as strtod reads it; integers of up to 15
 * digits (most of a result document's numbers) without it. */
static double number_of(const char *s, size_t len)
{
    size_t i = s[0] == '-';
    uint64_t v;
    if (leading_digits(s + i, len - i, &v) == len - i && len - i <= 15)
        return i ? -(double)v : (double)v;
    char buf[64], *big = NULL, *p = buf;
    if (len >= sizeof buf && !(p = big = malloc(len + 1)))
        return NAN;
    memcpy(p, s, len);
    p[len] = '\0';
    double d = strtod(p, NULL);
    free(big);
    return d;
}

static int on_number(void *ctx, const char *s, size_t len)
{
    builder *b = ctx;
    if (b->mute)
        return 1;
    double d = number_of(s, len);
    frame *f = top(b);
    if (f && f->all_numbers) {      /* most of a document's values: grown only when full */
        if (f->n == f->cap && pg_array_grow(&f->nums, &f->cap, f->n, sizeof *f->nums, 16) < 0)
            return b->oom = 1, 0;
        f->nums[f->n++] = d;
        f->count++;
        return 1;
    }
    return add_scalar(b, number_node(b, d));
}

static int on_null(void *ctx) { return add_scalar(ctx, node(ctx, cJSON_NULL)); }

static int on_bool(void *ctx, int v) { return add_scalar(ctx, node(ctx, v ? cJSON_True : cJSON_False)); }

/* Whether a string yajl hands over holds a NUL: only a "\u0000" can put
 * one there (yajl refuses a raw control byte in a string), and a string
 * with escapes is decoded outside the text. So a string that lies in the
 * text (most: a result document has few escapes) is not searched. */
static int holds_nul(const builder *b, const unsigned char *s, size_t len)
{
    uintptr_t at = (uintptr_t)s;
    if (at >= b->text && at + len <= b->text_end)
        return 0;
    return memchr(s, '\0', len) != NULL;
}

/* Whether an object's members so far have the key k (no NUL in it). */
static int key_again(const cJSON *o, const char *k)
{
    for (const cJSON *c = o->child; c; c = c->next)
        if (c->string[0] == k[0] && !strcmp(c->string, k))
            return 1;
    return 0;
}

/* pg_text_utf8_valid, for the short strings of a document (keys, names,
 * units): ASCII, nearly all of them, seen without a call. */
static int utf8_valid(const unsigned char *s, size_t len)
{
    unsigned char high = 0;
    for (size_t i = 0; i < len; i++)
        high |= s[i];
    return high < 0x80 || pg_text_utf8_valid((const char *)s, len);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
    builder *b = ctx;
    cJSON *n = node(b, cJSON_String);
    if (n && !(n->valuestring = copy(b, s, len)))
        n = NULL;
    if (n && holds_nul(b, s, len))
        n->type |= CUT_VALUE;
    else if (n && utf8_valid(s, len))
        n->type |= STRICT;
    if (n && !(n->type & STRICT) && b->depth)
        b->stack[b->depth - 1].unknown = 1;
    return add_scalar(b, n);
}

static int on_key(void *ctx, const unsigned char *s, size_t len)
{
    builder *b = ctx;
    if (b->mute)
        return 1;
    if (!(b->key = copy(b, s, len)))
        return b->oom = 1, 0;
    b->key_cut = holds_nul(b, s, len);
    frame *f = top(b);
    if (f && !f->unknown)
        f->unknown = b->key_cut || f->count >= STRICT_KEYS || !utf8_valid(s, len) ||
                     key_again(f->node, b->key);
    return 1;
}

/* What a new container is to the stream, from where it opens. */
static void place(builder *b, frame *nf, const frame *parent, const char *key)
{
    const pg_json_stream *st = b->stream;
    int object = nf->object;
    if (!st)
        return;
    if (!parent) {                  /* the root: a record, or the array of them */
        nf->role = object ? R_RECORD : R_RECORDS;
        nf->record = SIZE_MAX;
    } else if (parent->role == R_RECORDS && object) {
        nf->role = R_RECORD;
        nf->record = parent->count - 1;
        nf->outer = parent == b->stack ? NULL : st->outer;
    } else if (parent->role == R_RECORD && key && !object && !strcmp(key, st->key)) {
        nf->role = R_STREAMED;
        nf->all_numbers = 0;        /* its numbers are elements to hand over, one at a time */
    } else if (parent->role == R_RECORD && parent == b->stack && parent->record == SIZE_MAX && key &&
               !object && st->outer && !strcmp(key, st->outer)) {
        nf->role = R_RECORDS;
    }
}

static int open_container(builder *b, int type)
{
    if (b->depth >= MAX_DEPTH)
        return 0;
    frame *parent = top(b);
    mark at = mark_of(b->mem);
    const char *key = b->key;
    cJSON *n = node(b, type);
    if (!add(b, n))
        return 0;
    if (pg_array_grow(&b->stack, &b->cap, b->depth, sizeof *b->stack, 32) < 0)
        return b->oom = 1, 0;
    parent = b->depth ? &b->stack[b->depth - 1] : NULL;     /* the stack may have moved */
    frame *nf = &b->stack[b->depth++];
    *nf = (frame){.node = n, .all_numbers = type == cJSON_Array, .object = type == cJSON_Object, .at = at};
    place(b, nf, parent, key);
    if (nf->all_numbers && b->spare) {
        nf->nums = b->spare;
        nf->cap = b->spare_cap;
        b->spare = NULL;
        b->spare_cap = 0;
    }
    return 1;
}

static int on_start_map(void *ctx) { return open_container(ctx, cJSON_Object); }

static int on_start_array(void *ctx) { return open_container(ctx, cJSON_Array); }

static int on_end(void *ctx)
{
    builder *b = ctx;
    frame *f = &b->stack[b->depth - 1];
    if (!f->unknown)
        f->node->type |= STRICT;
    else if (b->depth > 1)
        f[-1].unknown = 1;
    if (f->all_numbers && f->n) {
        double *v = f->n <= INT_MAX ? take(b->mem, f->n * sizeof *v) : NULL;
        if (!v && f->n <= INT_MAX)
            return b->oom = 1, 0;
        if (v) {
            memcpy(v, f->nums, f->n * sizeof *v);
            f->node->type |= PACKED;
            f->node->valuestring = (char *)v;
            f->node->valueint = (int)f->n;
        } else if (!unpack(b, f)) {
            return b->oom = 1, 0;
        }
    }
    give_back(b, f);
    b->depth--;
    frame *parent = top(b);
    if (parent && parent->role == R_STREAMED)
        return hand_over(b, parent, f->node, f->at);
    return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end,
};

/* One parse, fed its text in pieces. */
typedef struct parser {
    builder b;
    yajl_handle h;
    const char *name;
    size_t line, col;               /* where the pieces fed so far end */
    int rc;
    int in_string;                  /* the text fed so far ends inside a string... */
    int escaped;                    /* ... after a backslash that escapes the next byte */
    size_t opened, closed;          /* in the last piece: its last string's opening quote (SIZE_MAX:
                                     * none), the byte after its last closing one (0: none) */
    double *nums;                   /* an array's integers, read before they are the builder's */
    size_t nums_cap;
} parser;

static int parser_init(parser *p, pg_json_scratch **scratch, const char *name, const pg_json_stream *st)
{
    *p = (parser){.name = name, .line = 1, .col = 1};
    if (!(*scratch = calloc(1, sizeof **scratch)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    p->b = (builder){.mem = *scratch, .stream = st};
    if (!(p->h = yajl_alloc(&callbacks, NULL, &p->b))) {
        pg_json_scratch_free(*scratch);
        *scratch = NULL;
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    yajl_config(p->h, yajl_dont_validate_strings, 1);
    return 0;
}

/* The line and column after text[0..n): memchr finds the newlines (this
 * runs over every byte of a document, errors or not). */
static void advance(parser *p, const char *text, size_t n)
{
    const char *end = text + n, *nl, *last = NULL;
    for (const char *s = text; s < end && (nl = memchr(s, '\n', (size_t)(end - s))); s = nl + 1)
        p->line++, last = nl;
    p->col = last ? (size_t)(end - last) : p->col + n;
}

/* The parse's error, if it stopped: the callback's, out of memory, or bad
 * JSON at text[at], where yajl stopped (`text` the piece being fed). */
static int stopped(parser *p, const char *text, size_t at)
{
    if (p->b.rc < 0)
        return p->rc = p->b.rc;
    if (p->b.oom)
        return p->rc = pg_error_set(PG_ENOMEM, "%s: out of memory parsing it", p->name);
    advance(p, text, at);
    return p->rc = pg_error_set(PG_EINVAL, "%s:%zu:%zu: invalid JSON", p->name, p->line, p->col);
}

/* text[0..len) to yajl, one call: 0, or the parse's error (where it
 * stopped counted from `piece`, the start of the text this feed is part of). */
static int yajl_feed(parser *p, const char *piece, const char *text, size_t len)
{
    if (yajl_parse(p->h, (const unsigned char *)text, len) == yajl_status_ok)
        return 0;
    size_t at = yajl_get_bytes_consumed(p->h);
    return stopped(p, piece, (size_t)(text - piece) + (at < len ? at : len));
}

/* One test of a bit, not four comparisons: it runs before every value. */
static int json_space(unsigned char c)
{
    const uint64_t space = 1ull << ' ' | 1ull << '\n' | 1ull << '\r' | 1ull << '\t';
    return c <= ' ' && (space >> c & 1);
}

static inline size_t skip_space(const char *t, size_t len, size_t i)
{
    while (i < len && json_space((unsigned char)t[i]))
        i++;
    return i;
}

/* The digits of the integer that begins t[i..len) (a '-' first or not),
 * when it has 1 to 15 (below 2^53: exact as a double) and no leading zero,
 * as JSON: where they end, the value in *d. Else 0. */
static inline size_t integer_digits(const char *t, size_t len, size_t i, double *d)
{
    int neg = i < len && t[i] == '-';
    i += (size_t)neg;
    uint64_t v;
    size_t digits = leading_digits(t + i, len - i, &v);
    if (!digits || digits > 15 || (digits > 1 && t[i] == '0'))
        return 0;
    *d = neg ? -(double)v : (double)v;
    return i + digits;
}

/* The integer that begins t[i..len), as integer_digits takes it, when a
 * byte that ends a number follows: its end, its value in *d. Else 0. */
static inline size_t plain_integer(const char *t, size_t len, size_t i, double *d)
{
    i = integer_digits(t, len, i, d);
    if (!i || i == len || !(json_space((unsigned char)t[i]) || t[i] == ',' || t[i] == ']' || t[i] == '}'))
        return 0;
    return i;
}

/* The numbers of an array whose '[' ends t[0..i), when they are all
 * integers of at most 15 digits (a sample of a count, a running fraction of
 * 1: nearly all of a result document's text) and the array ends within
 * t[0..len): into p->nums (*n of them), and the offset of the closing ']'.
 * Else 0 (a fraction, an exponent, a leading zero, a bad token, the end of
 * the piece, no number at all): yajl reads it. Such an array is valid JSON
 * wherever yajl took its '[', so yajl's verdict on the rest of the text is
 * the one it would give with the numbers in it. */
static size_t integers(parser *p, const char *t, size_t len, size_t i, size_t *n)
{
    size_t k = 0;
    *n = 0;
    for (;;) {                      /* what follows a number checked once: 2 in 3 bytes of a document pass here */
        double d;
        size_t end = integer_digits(t, len, skip_space(t, len, i), &d);
        if (!end)
            return 0;
        i = skip_space(t, len, end);
        if (i == len || (t[i] != ',' && t[i] != ']'))
            return 0;
        if (k == p->nums_cap && pg_array_grow(&p->nums, &p->nums_cap, k, sizeof *p->nums, 16) < 0)
            return p->b.oom = 1, 0;
        p->nums[k++] = d;
        if (t[i++] == ']')
            return *n = k, i - 1;
    }
}

/* The n numbers of p->nums into the open array, as on_number would put
 * them: the array yajl (or plain_members) has just opened, all numbers. */
static int fill(parser *p, size_t n)
{
    frame *f = top(&p->b);
    while (f->cap < n)
        if (pg_array_grow(&f->nums, &f->cap, f->cap, sizeof *f->nums, n) < 0)
            return p->b.oom = 1, 0;
    memcpy(f->nums, p->nums, n * sizeof *f->nums);
    f->n = f->count = n;
    return 1;
}

/* A string of printable ASCII without an escape at t[i] (its quote): the
 * offset after its closing quote, else 0. Keys, names, units: such strings
 * are what yajl would hand over as they are. */
static size_t plain_string(const char *t, size_t len, size_t i)
{
    for (size_t j = i + 1; j < len; j++) {
        unsigned char c = (unsigned char)t[j];
        if (c == '"')
            return j + 1;
        if (c < 0x20 || c > 0x7e || c == '\\')
            return 0;
    }
    return 0;
}

/* Whether `g`, an open frame, is the object under the stream's `flat` key
 * of an element being streamed: its members may be kept flat. */
static int flat_parent(const builder *b, const frame *g)
{
    const pg_json_stream *st = b->stream;
    return st && st->flat && g >= b->stack + 2 && g[-2].role == R_STREAMED && g[-1].object && g->object &&
           g->node->string && !(g->node->type & CUT_KEY) && !strcmp(g->node->string, st->flat);
}

static void hang_flat(cJSON *o, cJSON **vals)
{
    o->type |= FLAT;
    o->valuestring = (char *)vals;
}

/* The index in the stream's flat_keys of the key s[0..len) (no NUL in it), nflat if none. */
static size_t flat_key(const pg_json_stream *st, const char *s, size_t len)
{
    for (size_t k = 0; k < st->nflat; k++) {
        const char *f = st->flat_keys[k];
        size_t j = 0;
        while (j < len && f[j] == s[j])     /* inline: a call to strncmp per key cost more */
            j++;
        if (j == len && !f[len])
            return k;
    }
    return st->nflat;
}

/* One member of an object, as plain_member reads it. */
typedef struct member {
    size_t k, kend;                 /* its key, quote to quote */
    size_t v, vend;                 /* its value */
    size_t sep;                     /* the ',' or '}' after it */
    size_t n;                       /* an array: its numbers, in the parser's nums */
    double d;                       /* a number */
    cJSON **flat;                   /* an object: its values, kept flat (flat_members) */
} member;

static size_t flat_members(parser *p, const char *t, size_t len, size_t i, cJSON ***out);

/* The member that begins at t[start..len) when it is plain: a key of
 * printable ASCII without escapes, and a string of the same, an integer of
 * at most 15 digits, an array of such integers, or, with `flat` (its object
 * is a flat parent), an object flat_members keeps flat; then a ',' or '}'.
 * 1, and where each part is in *m; else 0 (out of memory: b.oom). A member
 * is taken only once it and the ',' or '}' after it were read, so yajl sees
 * every member that is not plain, and every byte that is not JSON, in the
 * place and the state it would have seen them. */
static int plain_member(parser *p, const char *t, size_t len, size_t start, int flat, member *m)
{
    const builder *b = &p->b;
    size_t k = skip_space(t, len, start), close;
    *m = (member){.k = k};
    if (k == len || t[k] != '"' || !(m->kend = plain_string(t, len, k)))
        return 0;
    size_t colon = skip_space(t, len, m->kend);
    if (colon == len || t[colon] != ':' || (m->v = skip_space(t, len, colon + 1)) == len)
        return 0;
    size_t v = m->v;
    if (t[v] == '"') {
        m->vend = plain_string(t, len, v);
    } else if (t[v] == '[') {
        close = b->depth + 1 < MAX_DEPTH ? integers(p, t, len, v + 1, &m->n) : 0;
        m->vend = close && m->n <= INT_MAX ? close + 1 : 0;
    } else if (t[v] == '{') {
        close = flat && b->depth + 1 < MAX_DEPTH ? flat_members(p, t, len, v + 1, &m->flat) : 0;
        m->vend = close ? close + 1 : 0;
    } else {
        m->vend = plain_integer(t, len, v, &m->d);
    }
    m->sep = m->vend && !b->oom ? skip_space(t, len, m->vend) : len;
    return m->sep < len && (t[m->sep] == ',' || t[m->sep] == '}');
}

/* The members of an object whose '{' ends t[0..i), a member of a flat
 * parent, when each is plain (plain_member) with a flat key of its own: its
 * values made the nodes yajl's callbacks would make (a plain string is
 * strict; an array of numbers is packed and strict), in *out by their key's
 * index (for hang_flat), and the offset of its '}'. Else 0, and its members
 * are for plain_members or yajl to read as usual (what this took of the
 * scratch is the element's, given back with it). */
static size_t flat_members(parser *p, const char *t, size_t len, size_t i, cJSON ***out)
{
    builder *b = &p->b;
    const pg_json_stream *st = b->stream;
    cJSON **vals = take(b->mem, st->nflat * sizeof *vals);
    if (!vals)
        return b->oom = 1, 0;
    memset(vals, 0, st->nflat * sizeof *vals);
    for (size_t start = i;;) {
        member m;
        size_t key;
        if (!plain_member(p, t, len, start, 0, &m) || (key = flat_key(st, t + m.k + 1, m.kend - m.k - 2)) == st->nflat ||
            vals[key])
            return 0;
        char c = t[m.v];
        cJSON *val = c == '"' ? node(b, cJSON_String | STRICT)
                   : c == '[' ? node(b, cJSON_Array | PACKED | STRICT) : number_node(b, m.d);
        if (val && c == '"')
            val->valuestring = copy(b, (const unsigned char *)t + m.v + 1, m.vend - m.v - 2);
        else if (val && c == '[' && (val->valuestring = take(b->mem, m.n * sizeof *p->nums)))
            memcpy(val->valuestring, p->nums, m.n * sizeof *p->nums), val->valueint = (int)m.n;
        if (!val || ((c == '"' || c == '[') && !val->valuestring))
            return b->oom = 1, 0;
        val->string = (char *)st->flat_keys[key];
        vals[key] = val;
        if (t[m.sep] == '}')
            return *out = vals, m.sep;
        start = m.sep + 1;
    }
}

/* The members of the object whose '{' yajl has just taken (t[i - 1]), read
 * here while each is plain (plain_member: a metric's unit, backend, samples
 * and running; in a flat parent, a metric kept flat), handed to the
 * builder's callbacks as yajl would hand them. Returns where yajl goes on:
 * the '}' when every member was taken (*whole), else the start of the first
 * member that was not, with *taken members before it (yajl is then fed a
 * stand-in for them, so that it expects what follows a member and a comma). */
static size_t plain_members(parser *p, const char *t, size_t len, size_t i, size_t *taken, int *whole)
{
    builder *b = &p->b;
    frame *f = top(b);
    *taken = 0;
    *whole = 0;
    if (!f || !f->object || f->role != R_NONE || f->count)
        return i;
    cJSON **flat;
    if (b->depth >= 2 && flat_parent(b, f - 1)) {   /* opened by yajl: a member plain_members left */
        size_t end = flat_members(p, t, len, i, &flat);
        if (end)
            return hang_flat(f->node, flat), *whole = 1, end;
        if (b->oom)
            return i;
    }
    int flat_here = flat_parent(b, f);
    for (size_t start = i;; start = i) {
        member m;
        if (!plain_member(p, t, len, start, flat_here, &m))
            return start;
        char c = t[m.v];
        int ok = on_key(b, (const unsigned char *)t + m.k + 1, m.kend - m.k - 2);
        if (ok && c == '"')
            ok = on_string(b, (const unsigned char *)t + m.v + 1, m.vend - m.v - 2);
        else if (ok && c == '[')
            ok = open_container(b, cJSON_Array) && fill(p, m.n) && on_end(b);
        else if (ok && c == '{')
            ok = open_container(b, cJSON_Object) && (hang_flat(top(b)->node, m.flat), on_end(b));
        else if (ok)
            ok = on_number(b, t + m.v, m.vend - m.v);
        if (!ok)                    /* out of memory: nothing else fails here */
            return start;
        ++*taken;
        if (t[m.sep] == '}')
            return *whole = 1, m.sep;
        i = m.sep + 1;
    }
}

/* Feeds a piece of the text: to yajl, but for the arrays of integers that
 * integers() takes (found outside strings, which are followed quote to
 * quote; the text fed before is valid so far, or yajl stopped, so where a
 * string begins and ends is where yajl sees it). */
static int parser_feed(parser *p, const char *text, size_t len)
{
    if (p->rc < 0)
        return p->rc;
    p->b.text = (uintptr_t)text;
    p->b.text_end = (uintptr_t)text + len;
    p->opened = SIZE_MAX;
    p->closed = 0;
    size_t from = 0, i = 0;
    int in_string = p->in_string, escaped = p->escaped;     /* in registers: read at every byte */
    while (i < len) {
        if (in_string) {
            if (escaped) {
                escaped = 0;
                i++;
                continue;
            }
            size_t stop = len - i > 32 ? i + 32 : len;     /* keys and names: a few bytes */
            while (i < stop && text[i] != '"' && text[i] != '\\')
                i++;
            if (i == stop && stop < len) {  /* a long string: from quote to quote */
                const char *q = memchr(text + i, '"', len - i), *end = q ? q : text + len, *bs = end;
                while (bs > text + i && bs[-1] == '\\')
                    bs--;
                int odd = (int)((end - bs) & 1);
                if (!q) {
                    escaped = odd;
                    break;
                }
                i = (size_t)(q - text) + 1;
                in_string = odd;
                p->closed = odd ? p->closed : i;
            } else if (i < len) {
                escaped = text[i] == '\\';
                in_string = escaped;
                p->closed = escaped ? p->closed : i + 1;
                i++;
            }
            continue;
        }
        unsigned char c = (unsigned char)text[i++];
        if (c == '"') {
            in_string = 1;
            p->opened = i - 1;
            continue;
        }
        if (c != '[' && c != '{')
            continue;
        size_t j = skip_space(text, len, i);
        if (j == len || (c == '[' && text[j] != '-' && (unsigned)(text[j] - '0') > 9) || (c == '{' && text[j] != '"'))
            continue;
        if (yajl_feed(p, text, text + from, i - from) < 0)     /* up to its '[' or '{' */
            return p->rc;           /* (the strings' state no longer matters) */
        from = i;
        if (c == '[') {
            frame *f = top(&p->b);
            size_t n, close = f && f->all_numbers && !f->n ? integers(p, text, len, i, &n) : 0;
            if (close && fill(p, n))
                from = i = close;   /* yajl goes on from the ']' */
        } else {
            size_t taken;
            int whole;
            size_t next = plain_members(p, text, len, i, &taken, &whole);
            if (taken && !whole && !p->b.oom) {
                p->b.mute = 1;      /* yajl expects a key after the members taken */
                int ok = yajl_parse(p->h, (const unsigned char *)"\"\":0,", 5) == yajl_status_ok;
                p->b.mute = 0;
                if (!ok)
                    return stopped(p, text, next);
            }
            from = i = next;
        }
        if (p->b.oom)
            return stopped(p, text, i);
    }
    p->in_string = in_string;
    p->escaped = escaped;
    if (yajl_feed(p, text, text + from, len - from) < 0)
        return p->rc;
    advance(p, text, len);
    return 0;
}

static int parser_finish(parser *p, cJSON **out, pg_json_scratch **scratch)
{
    int rc = p->rc;
    if (rc == 0 && yajl_complete_parse(p->h) != yajl_status_ok)
        rc = stopped(p, "", 0);
    else if (rc == 0 && !p->b.root)
        rc = pg_error_set(PG_EINVAL, "%s:%zu:%zu: invalid JSON", p->name, p->line, p->col);
    for (size_t i = 0; i < p->b.depth; i++)
        free(p->b.stack[i].nums);
    free(p->b.spare);
    free(p->b.stack);
    free(p->nums);
    yajl_free(p->h);
    *out = NULL;
    if (rc < 0) {
        pg_json_scratch_free(*scratch);
        *scratch = NULL;
        return rc;
    }
    *out = p->b.root;
    return 0;
}

int pg_json_parse_stream(cJSON **out, pg_json_scratch **scratch, const char *text, size_t len, const char *name,
                         const pg_json_stream *st)
{
    parser p;
    *out = NULL;
    int rc = parser_init(&p, scratch, name, st);
    if (rc < 0)
        return rc;
    parser_feed(&p, text, len);
    return parser_finish(&p, out, scratch);
}

/* Where the text fed so far ends: inside a token, and how far back it began
 * (see the top of this file). Valid JSON is all it must be right for: on
 * anything else yajl stops, and the sizes of the pieces no longer matter. */
typedef struct cut {
    size_t open;                    /* bytes of the unfinished token at the end; 0: none */
} cut;

/* A byte of a number or of true, false, null: none of whitespace, the
 * structural bytes and the quote ends such a token. */
static int word_byte(unsigned char c)
{
    switch (c) {
    case ' ': case '\t': case '\r': case '\n': case '{': case '}': case '[': case ']': case ',': case ':': case '"':
        return 0;
    default:
        return 1;
    }
}

/* The cut after text[0..n) more, fed to the parser `p`: its strings were
 * followed there (parser_feed). */
static void track(cut *c, const parser *p, const char *text, size_t n)
{
    const char *end = text + n, *w = end;
    if (p->in_string) {
        c->open = p->opened != SIZE_MAX ? n - p->opened : c->open + n;
        return;
    }
    while (w > text + p->closed && word_byte((unsigned char)w[-1]))
        w--;
    int continued = w == text && c->open;   /* no quote here: a number goes on from before */
    c->open = (size_t)(end - w) + (continued ? c->open : 0);
}

/* Fills buf[0..want) from fd, fewer only at the end of the file: a short
 * piece in the middle of a long token would be rescanned as a long one. */
static ssize_t read_piece(int fd, char *buf, size_t want)
{
    size_t got = 0;
    while (got < want) {
        ssize_t n = read(fd, buf + got, want - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

int pg_json_read_stream(cJSON **out, pg_json_scratch **scratch, const char *path, const pg_json_stream *st)
{
    *out = NULL;
    *scratch = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pg_error_errno(errno == ENOENT ? PG_ENOTFOUND : PG_EIO, "cannot read %s", path);
    parser p;
    int rc = parser_init(&p, scratch, path, st);
    size_t cap = READ_SIZE;
    char *buf = rc == 0 ? malloc(cap) : NULL;
    if (rc == 0 && !buf)
        p.rc = pg_error_set(PG_ENOMEM, "out of memory reading %s", path);
    cut c = {0};
    while (rc == 0 && p.rc == 0) {
        size_t want = c.open > READ_SIZE ? c.open : READ_SIZE;
        if (want > cap) {           /* as long as the token yajl holds already */
            char *nb = realloc(buf, want);
            if (!nb) {
                p.rc = pg_error_set(PG_ENOMEM, "out of memory reading %s", path);
                break;
            }
            buf = nb, cap = want;
        }
        ssize_t n = read_piece(fd, buf, want);
        if (n < 0)
            p.rc = pg_error_errno(PG_EIO, "cannot read %s", path);
        if (n <= 0)
            break;
        parser_feed(&p, buf, (size_t)n);
        track(&c, &p, buf, (size_t)n);
    }
    free(buf);
    close(fd);
    return rc < 0 ? rc : parser_finish(&p, out, scratch);
}

void pg_json_scratch_free(pg_json_scratch *scratch)
{
    for (int list = 0; scratch && list < 2; list++)
        for (chunk *c = list ? scratch->spare : scratch->head, *next; c; c = next) {
            next = c->next;
            free(c);
        }
    free(scratch);
}

int pg_json_packed(const cJSON *a, const double **v, size_t *n)
{
    if (!a || !(a->type & PACKED))
        return 0;
    *v = (const double *)(const void *)a->valuestring;
    *n = (size_t)a->valueint;
    return 1;
}

int pg_json_flat(const cJSON *o, const cJSON *const **vals)
{
    if (!o || !(o->type & FLAT))
        return 0;
    *vals = (const cJSON *const *)(const void *)o->valuestring;
    return 1;
}

int pg_json_strict_known(const cJSON *v)
{
    return v && (v->type & STRICT);
}

int pg_json_cut(const cJSON *v)
{
    return v && (v->type & (CUT_VALUE | CUT_KEY));
}

size_t pg_json_array_len(const cJSON *a)
{
    const double *v;
    size_t n = 0;
    if (pg_json_packed(a, &v, &n))
        return n;
    for (const cJSON *c = cJSON_IsArray(a) ? a->child : NULL; c; c = c->next)
        n++;
    return n;
}
