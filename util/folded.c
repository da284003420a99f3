/* util/folded.c — folded stacks: an open-addressing hash table keyed by the
 * stack text, strings kept in a chunked arena so 10^5..10^6 stacks cost a
 * few large allocations rather than one each. */
#include "util/folded.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
    char *stack;      /* NUL-terminated, in the arena */
    size_t len;
    uint64_t hash;
    uint64_t count;
} slot;

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    char data[];
} chunk;

struct pg_folded {
    slot *slots;          /* insertion order */
    size_t n, cap;
    uint32_t *table;      /* indices into slots + 1; 0 = empty */
    size_t tcap;          /* power of two */
    chunk *arena;
    uint64_t total;
    pg_folded_entry *sorted;   /* cache for pg_folded_entries; NULL when stale */
};

static uint64_t hash_bytes(const char *s, size_t n)
{
    /* FNV-1a, 8 bytes at a time folded in with a multiply: plenty for
     * distinct stack strings and several times faster than byte-wise. */
    uint64_t h = 0xcbf29ce484222325ULL ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    while (n--)
        h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

int pg_folded_new(pg_folded **out)
{
    pg_folded *f = calloc(1, sizeof *f);
    if (!f)
        return pg_error_set(PG_ENOMEM, "out of memory");
    f->tcap = 1024;
    f->table = calloc(f->tcap, sizeof *f->table);
    if (!f->table) {
        free(f);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    *out = f;
    return 0;
}

void pg_folded_free(pg_folded *f)
{
    if (!f)
        return;
    for (chunk *c = f->arena, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(f->slots);
    free(f->table);
    free(f->sorted);
    free(f);
}

static char *arena_dup(pg_folded *f, const char *s, size_t len)
{
    chunk *c = f->arena;
    if (!c || c->cap - c->used < len + 1) {
        size_t cap = len + 1 > 256 * 1024 ? len + 1 : 256 * 1024;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->used = 0;
        c->cap = cap;
        c->next = f->arena;
        f->arena = c;
    }
    char *p = c->data + c->used;
    memcpy(p, s, len);
    p[len] = '\0';
    c->used += len + 1;
    return p;
}

static int grow_table(pg_folded *f)
{
    size_t tcap = f->tcap * 2;
    uint32_t *t = calloc(tcap, sizeof *t);
    if (!t)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < f->n; i++) {
        size_t j = f->slots[i].hash & (tcap - 1);
        while (t[j])
            j = (j + 1) & (tcap - 1);
        t[j] = (uint32_t)(i + 1);
    }
    free(f->table);
    f->table = t;
    f->tcap = tcap;
    return 0;
}

/* The one insertion path: `stack` need not be NUL-terminated. */
static int add_n(pg_folded *f, const char *stack, size_t len, uint64_t count)
{
    if (f->total + count < f->total)
        return pg_error_set(PG_EINVAL, "folded counts overflow 64 bits");
    uint64_t h = hash_bytes(stack, len);
    size_t j = h & (f->tcap - 1);
    for (uint32_t idx; (idx = f->table[j]) != 0; j = (j + 1) & (f->tcap - 1)) {
        slot *s = &f->slots[idx - 1];
        if (s->hash == h && s->len == len && memcmp(s->stack, stack, len) == 0) {
            s->count += count;
            f->total += count;
            return 0;
        }
    }
    if (f->n >= UINT32_MAX - 1)
        return pg_error_set(PG_EINVAL, "too many distinct stacks");
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 256;
        slot *ns = realloc(f->slots, cap * sizeof *ns);
        if (!ns)
            return pg_error_set(PG_ENOMEM, "out of memory");
        f->slots = ns;
        f->cap = cap;
    }
    char *copy = arena_dup(f, stack, len);
    if (!copy)
        return pg_error_set(PG_ENOMEM, "out of memory");
    f->slots[f->n] = (slot){copy, len, h, count};
    f->table[j] = (uint32_t)(++f->n);
    f->total += count;
    free(f->sorted);
    f->sorted = NULL;
    /* Keep the load factor under 1/2 so probes stay short. */
    if (f->n * 2 > f->tcap)
        return grow_table(f);
    return 0;
}

int pg_folded_add(pg_folded *f, const char *stack, uint64_t count)
{
    return add_n(f, stack, strlen(stack), count);
}

int pg_folded_add_frames(pg_folded *f, const char *const *frames, size_t nframes, uint64_t count)
{
    if (nframes == 0)
        return pg_error_set(PG_EINVAL, "empty stack (no frames)");
    size_t len = 0;
    for (size_t i = 0; i < nframes; i++)
        len += strlen(frames[i]) + 1;
    char small[1024] = "", *buf = len <= sizeof small ? small : malloc(len);
    if (!buf)
        return pg_error_set(PG_ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < nframes; i++) {
        if (i)
            buf[n++] = ';';
        for (const char *p = frames[i]; *p; p++) {
            char c = *p;
            buf[n++] = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
        }
    }
    int rc = add_n(f, buf, n, count);
    if (buf != small)
        free(buf);
    return rc;
}

static int bad_line(const char *name, size_t lineno, const char *line, size_t len, const char *why)
{
    int show = len > 60 ? 60 : (int)len;
    return pg_error_set(PG_EINVAL, "%s:%zu: %s, got '%.*s%s'", name, lineno, why, show, line,
                        len > 60 ? "..." : "");
}

int pg_folded_parse(pg_folded *f, const char *text, size_t len, const char *name)
{
    const char *p = text, *end = text + len;
    size_t lineno = 0;
    while (p < end) {
        lineno++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *line = p;
        p = nl ? nl + 1 : end;
        while (le > line && (le[-1] == '\r' || le[-1] == ' ' || le[-1] == '\t'))
            le--;
        const char *ls = line;
        while (ls < le && (*ls == ' ' || *ls == '\t'))
            ls++;
        if (ls == le)
            continue;
        /* The count is the last space-separated field; frames may hold spaces
         * (C++ templates, "module+0x..." names), so split at the last one. */
        const char *sp = le;
        while (sp > ls && sp[-1] != ' ' && sp[-1] != '\t')
            sp--;
        if (sp == ls)
            return bad_line(name, lineno, line, (size_t)(le - line), "expected 'frame;frame;... COUNT'");
        uint64_t count = 0;
        for (const char *d = sp; d < le; d++) {
            if (*d < '0' || *d > '9')
                return bad_line(name, lineno, line, (size_t)(le - line),
                                "expected a whole-number count at the end of the line");
            unsigned v = (unsigned)(*d - '0');
            if (count > (UINT64_MAX - v) / 10)
                return bad_line(name, lineno, line, (size_t)(le - line), "count does not fit in 64 bits");
            count = count * 10 + v;
        }
        const char *se = sp;
        while (se > ls && (se[-1] == ' ' || se[-1] == '\t'))
            se--;
        if (se == ls)
            return bad_line(name, lineno, line, (size_t)(le - line), "empty stack");
        if (memchr(ls, '\0', (size_t)(se - ls)))
            return pg_error_set(PG_EINVAL, "%s:%zu: NUL byte in a stack", name, lineno);
        int rc = add_n(f, ls, (size_t)(se - ls), count);
        if (rc < 0)
            return pg_error_wrap(rc, "%s:%zu", name, lineno);
    }
    return 0;
}

int pg_folded_read_file(pg_folded *f, const char *path)
{
    char *text;
    size_t len;
    int rc = pg_file_read(&text, &len, path);
    if (rc < 0)
        return rc;
    rc = pg_folded_parse(f, text, len, path);
    free(text);
    return rc;
}

/* Orders stacks frame by frame: ';' sorts before every other byte and the end
 * of the string before ';'. Plain strcmp would put "a;b!" between "a;b" and
 * "a;b;c", splitting frame "b" in two when the sorted list is drawn. */
int pg_folded_stack_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca == cb) {
            if (!ca)
                return 0;
            continue;
        }
        int ra = ca == 0 ? -2 : ca == ';' ? -1 : (int)ca;
        int rb = cb == 0 ? -2 : cb == ';' ? -1 : (int)cb;
        return ra < rb ? -1 : 1;
    }
}

static int entry_cmp(const void *a, const void *b)
{
    return pg_folded_stack_cmp(((const pg_folded_entry *)a)->stack, ((const pg_folded_entry *)b)->stack);
}

const pg_folded_entry *pg_folded_entries(pg_folded *f)
{
    if (f->sorted || f->n == 0)
        return f->sorted;
    f->sorted = malloc(f->n * sizeof *f->sorted);
    if (!f->sorted)
        return NULL;
    for (size_t i = 0; i < f->n; i++)
        f->sorted[i] = (pg_folded_entry){f->slots[i].stack, f->slots[i].count};
    qsort(f->sorted, f->n, sizeof *f->sorted, entry_cmp);
    return f->sorted;
}

size_t pg_folded_count(const pg_folded *f) { return f->n; }
uint64_t pg_folded_total(const pg_folded *f) { return f->total; }

/* Sorting needs the cache, which a const pointer cannot fill; the writers
 * sort a private copy instead of casting const away. */
static int sorted_copy(pg_folded_entry **out, const pg_folded *f)
{
    pg_folded_entry *e = malloc((f->n ? f->n : 1) * sizeof *e);
    if (!e)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if (f->sorted)
        memcpy(e, f->sorted, f->n * sizeof *e);
    else {
        for (size_t i = 0; i < f->n; i++)
            e[i] = (pg_folded_entry){f->slots[i].stack, f->slots[i].count};
        qsort(e, f->n, sizeof *e, entry_cmp);
    }
    *out = e;
    return 0;
}

static int format_all(char **out, size_t *outlen, const pg_folded *f)
{
    pg_folded_entry *e = NULL;
    int rc = sorted_copy(&e, f);
    if (rc < 0)
        return rc;
    size_t cap = 1;
    for (size_t i = 0; i < f->n; i++)
        cap += strlen(e[i].stack) + 22;
    char *buf = malloc(cap), *w = buf;
    if (!buf) {
        free(e);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < f->n; i++) {
        size_t l = strlen(e[i].stack);
        memcpy(w, e[i].stack, l);
        w += l;
        *w++ = ' ';
        char digits[21];
        int nd = 0;
        uint64_t v = e[i].count;
        do
            digits[nd++] = (char)('0' + v % 10);
        while ((v /= 10) != 0);
        while (nd)
            *w++ = digits[--nd];
        *w++ = '\n';
    }
    *w = '\0';
    free(e);
    *out = buf;
    *outlen = (size_t)(w - buf);
    return 0;
}

int pg_folded_write(const pg_folded *f, FILE *out)
{
    char *buf;
    size_t len;
    int rc = format_all(&buf, &len, f);
    if (rc < 0)
        return rc;
    if (fwrite(buf, 1, len, out) != len || fflush(out) != 0)
        rc = pg_error_errno(PG_EIO, "cannot write folded stacks");
    free(buf);
    return rc;
}

int pg_folded_write_file(const pg_folded *f, const char *path)
{
    char *buf;
    size_t len;
    int rc = format_all(&buf, &len, f);
    if (rc < 0)
        return rc;
    rc = pg_file_write_atomic(path, buf, len);
    free(buf);
    return rc;
}
