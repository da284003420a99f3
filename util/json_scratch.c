/* util/json_scratch.c — see json_scratch.h.
 *
 * yajl does the parsing (the grammar, escapes, where an error is); its
 * callbacks build cJSON nodes in chunks of the scratch, so a document costs
 * no malloc per value and is dropped in a few frees. An array collects its
 * numbers in a buffer of its frame until a value that is not a number comes
 * (then they become nodes, in order); an array that ends all numbers keeps
 * them as one block of doubles: 8 bytes a number, not a 64-byte node. */
#include "util/json_scratch.h"
#include "util/array.h"
#include "util/error.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#define CHUNK (1u << 20)
#define MAX_DEPTH 1000              /* cJSON's CJSON_NESTING_LIMIT: readers recurse */
#define PACKED (1 << 14)            /* a type bit cJSON does not use: cJSON_IsArray still holds */

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    max_align_t data[];
} chunk;

struct pg_json_scratch {
    chunk *head;
};

typedef struct frame {
    cJSON *node, *last;             /* the container, and its last child */
    double *nums;                   /* an array's numbers so far, while all are numbers */
    size_t n, cap;
    int all_numbers;
} frame;

typedef struct builder {
    pg_json_scratch *mem;
    frame *stack;
    size_t depth, cap;
    cJSON *root;
    const char *key;                /* the key of the next value, in an object */
    int oom;
} builder;

static void *take(pg_json_scratch *s, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    chunk *c = s->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > CHUNK ? n : CHUNK;
        if (!(c = malloc(sizeof *c + cap)))
            return NULL;
        *c = (chunk){.next = s->head, .cap = cap};
        s->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
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

/* Hangs `n` under the open container (or makes it the root). */
static void attach(builder *b, cJSON *n)
{
    if (!b->depth) {
        b->root = n;
        return;
    }
    frame *f = &b->stack[b->depth - 1];
    if (cJSON_IsObject(f->node)) {
        n->string = (char *)b->key;
        b->key = NULL;
    }
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
    free(f->nums);
    f->nums = NULL;
    f->n = f->cap = 0;
    return 1;
}

/* A value that is not a number, attached where it belongs. */
static int add(builder *b, cJSON *n)
{
    if (!n)
        return b->oom = 1, 0;
    frame *f = b->depth ? &b->stack[b->depth - 1] : NULL;
    if (f && f->all_numbers && !unpack(b, f))
        return b->oom = 1, 0;
    attach(b, n);
    return 1;
}

/* A JSON number's text, exactly as strtod reads it; integers of up to 15
 * digits (most of a result document's numbers) without it. */
static double number_of(const char *s, size_t len)
{
    size_t i = s[0] == '-';
    if (len - i <= 15) {
        uint64_t v = 0;
        size_t j = i;
        while (j < len && s[j] >= '0' && s[j] <= '9')
            v = v * 10 + (uint64_t)(s[j++] - '0');
        if (j == len)
            return i ? -(double)v : (double)v;
    }
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
    double d = number_of(s, len);
    frame *f = b->depth ? &b->stack[b->depth - 1] : NULL;
    if (f && f->all_numbers) {
        if (pg_array_grow(&f->nums, &f->cap, f->n, sizeof *f->nums, 16) < 0)
            return b->oom = 1, 0;
        f->nums[f->n++] = d;
        return 1;
    }
    return add(b, number_node(b, d));
}

static int on_null(void *ctx) { return add(ctx, node(ctx, cJSON_NULL)); }

static int on_bool(void *ctx, int v) { return add(ctx, node(ctx, v ? cJSON_True : cJSON_False)); }

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
    builder *b = ctx;
    cJSON *n = node(b, cJSON_String);
    if (n && !(n->valuestring = copy(b, s, len)))
        n = NULL;
    return add(b, n);
}

static int on_key(void *ctx, const unsigned char *s, size_t len)
{
    builder *b = ctx;
    if (!(b->key = copy(b, s, len)))
        return b->oom = 1, 0;
    return 1;
}

static int open_container(builder *b, int type)
{
    if (b->depth >= MAX_DEPTH)
        return 0;
    cJSON *n = node(b, type);
    if (!add(b, n))
        return 0;
    if (pg_array_grow(&b->stack, &b->cap, b->depth, sizeof *b->stack, 32) < 0)
        return b->oom = 1, 0;
    b->stack[b->depth++] = (frame){.node = n, .all_numbers = type == cJSON_Array};
    return 1;
}

static int on_start_map(void *ctx) { return open_container(ctx, cJSON_Object); }

static int on_start_array(void *ctx) { return open_container(ctx, cJSON_Array); }

static int on_end(void *ctx)
{
    builder *b = ctx;
    frame *f = &b->stack[b->depth - 1];
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
    free(f->nums);
    b->depth--;
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

static int invalid(const char *text, size_t at, const char *name)
{
    int line = 1, col = 1;
    for (size_t i = 0; i < at; i++)
        if (text[i] == '\n')
            line++, col = 1;
        else
            col++;
    return pg_error_set(PG_EINVAL, "%s:%d:%d: invalid JSON", name, line, col);
}

int pg_json_parse_scratch(cJSON **out, pg_json_scratch **scratch, const char *text, size_t len, const char *name)
{
    *out = NULL;
    if (!(*scratch = calloc(1, sizeof **scratch)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    builder b = {.mem = *scratch};
    yajl_handle h = yajl_alloc(&callbacks, NULL, &b);
    if (!h) {
        pg_json_scratch_free(*scratch);
        *scratch = NULL;
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    yajl_config(h, yajl_dont_validate_strings, 1);
    yajl_status st = yajl_parse(h, (const unsigned char *)text, len);
    size_t at = yajl_get_bytes_consumed(h);
    if (st == yajl_status_ok) {
        st = yajl_complete_parse(h);
        at = len;
    }
    int rc = 0;
    if (b.oom)
        rc = pg_error_set(PG_ENOMEM, "%s: out of memory parsing it", name);
    else if (st != yajl_status_ok || !b.root)
        rc = invalid(text, at, name);
    for (size_t i = 0; i < b.depth; i++)
        free(b.stack[i].nums);
    free(b.stack);
    yajl_free(h);
    if (rc < 0) {
        pg_json_scratch_free(*scratch);
        *scratch = NULL;
        return rc;
    }
    *out = b.root;
    return 0;
}

void pg_json_scratch_free(pg_json_scratch *scratch)
{
    for (chunk *c = scratch ? scratch->head : NULL, *next; c; c = next) {
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
