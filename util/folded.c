/* util/folded.c — folded stacks: an open-addressing hash table keyed by the
 * stack text, strings kept in a chunked arena so 10^5..10^6 stacks cost a
 * few large allocations rather than one each. */
#include "util/folded.h"
#include "util/text.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/strindex.h"

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
    /* pg_folded_set_source: frame name -> index into src (names and strings in the arena) */
    pg_strindex srcindex;
    pg_frame_source *src;
    size_t nsrc, capsrc;
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
    pg_strindex_free(&f->srcindex);
    free(f->src);
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

/* The one insertion path: `stack`, valid UTF-8 (add_n sees to it), need not
 * be NUL-terminated. */
static int add_valid(pg_folded *f, const char *stack, size_t len, uint64_t count)
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
    if (len >= UINT32_MAX / 2)
        return pg_error_set(PG_EINVAL, "a stack of %zu bytes is too long", len);
    if (pg_array_grow(&f->slots, &f->cap, f->n, sizeof *f->slots, 256) < 0)
        return PG_ENOMEM;
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

/* Function names are whatever a binary's symbols say; a stack is kept as
 * valid UTF-8, as the file other tools read must be (util/text.h). Two
 * stacks that differ only in bytes that are not UTF-8 are then one, in memory
 * as in the file: a profile read back is the profile written. */
static int add_n(pg_folded *f, const char *stack, size_t len, uint64_t count)
{
    if (pg_text_utf8_valid(stack, len))
        return add_valid(f, stack, len, count);
    size_t rl;
    char *r = pg_text_utf8_repair(stack, len, &rl);
    if (!r)
        return pg_error_set(PG_ENOMEM, "out of memory");
    int rc = add_valid(f, r, rl, count);
    free(r);
    return rc;
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

/* The line itself is not quoted: a file named by data may be anything (a
 * secret), and an error message ends up in CI logs. */
static int bad_line(const char *name, size_t lineno, const char *line, size_t len, const char *why)
{
    (void)line;
    return pg_error_set(PG_EINVAL, "%s:%zu: %s (a line of %zu bytes)", name, lineno, why, len);
}

int pg_folded_parse(pg_folded *f, const char *text, size_t len, const char *name)
{
    const char *p = text, *end = text + len;
    size_t lineno = 0;
    /* Checked once, whole: a line of valid text is valid (lines split at ASCII bytes). */
    int (*add)(pg_folded *, const char *, size_t, uint64_t) = pg_text_utf8_valid(text, len) ? add_valid : add_n;
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
        int rc = add(f, ls, (size_t)(se - ls), count);
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

int pg_folded_read_path(pg_folded *f, const char *path)
{
    if (strcmp(path, "-") != 0)
        return pg_folded_read_file(f, path);
    char *buf;
    size_t n;
    int rc = pg_fd_read(&buf, &n, 0, "standard input");
    if (rc < 0)
        return rc;
    rc = pg_folded_parse(f, buf, n, "<stdin>");
    free(buf);
    return rc;
}

size_t pg_folded_prefix_len(const char *a, const char *b, size_t n)
{
    size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* A word at a time: sorting compares long shared prefixes millions of times. */
    for (; i + 8 <= n; i += 8) {
        uint64_t wa, wb;
        memcpy(&wa, a + i, 8);
        memcpy(&wb, b + i, 8);
        if (wa != wb)
            return i + (size_t)(__builtin_ctzll(wa ^ wb) >> 3);   /* the lowest differing byte */
    }
#endif
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* Ranks the byte at a mismatch: end of string < ';' < every other byte. */
static int rank(const char *s, size_t i, size_t len)
{
    if (i == len)
        return -2;
    return s[i] == ';' ? -1 : (int)(unsigned char)s[i];
}

static int cmp_n(const char *a, size_t la, const char *b, size_t lb)
{
    size_t i = pg_folded_prefix_len(a, b, la < lb ? la : lb);
    if (i == la && i == lb)
        return 0;
    return rank(a, i, la) < rank(b, i, lb) ? -1 : 1;
}

/* Orders stacks frame by frame: ';' sorts before every other byte and the end
 * of the string before ';'. Plain strcmp would put "a;b!" between "a;b" and
 * "a;b;c", splitting frame "b" in two when the sorted list is drawn. */
int pg_folded_stack_cmp(const char *a, const char *b)
{
    return cmp_n(a, strlen(a), b, strlen(b));
}

/* Sorting. Stacks share long prefixes ("main;run;...;"), and comparing them
 * from the first byte each time made sorting most of the cost of a big
 * flamegraph. This is a merge sort that carries, for each element, the length
 * of its common prefix with the element before it (LCP merge sort, Ng and
 * Kakehi): a comparison starts where the two strings can first differ, and
 * most merge steps need no string access at all. */
typedef struct skey {
    const char *s;
    uint32_t len, lcp;   /* lcp: common prefix with the previous key of the run */
    uint32_t idx;        /* slot index */
    int ch;              /* rank(s, lcp): resolves most merge steps without the string */
} skey;

static void insertion_sort(skey *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        skey k = a[i];
        size_t j = i;
        while (j > 0 && cmp_n(k.s, k.len, a[j - 1].s, a[j - 1].len) < 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = k;
    }
    a[0].lcp = 0;
    a[0].ch = rank(a[0].s, 0, a[0].len);
    for (size_t i = 1; i < n; i++) {
        a[i].lcp = (uint32_t)pg_folded_prefix_len(a[i - 1].s, a[i].s, a[i - 1].len < a[i].len ? a[i - 1].len : a[i].len);
        a[i].ch = rank(a[i].s, a[i].lcp, a[i].len);
    }
}

static void lcp_sort(skey *a, skey *tmp, size_t n)
{
    if (n <= 12) {
        insertion_sort(a, n);
        return;
    }
    size_t m = n / 2;
    lcp_sort(a, tmp, m);
    lcp_sort(a + m, tmp, n - m);
    memcpy(tmp, a, m * sizeof *a);
    /* Merge tmp[0..m) and a[m..n) into a; the write index stays below j.
     * la, lb: the heads' common prefix with the last key written; ca, cb:
     * the heads' ranks at that position. The first keys of both runs share
     * nothing with "the last key written" (none), so 0 and their first byte. */
    size_t i = 0, j = m, k = 0;
    uint32_t la = 0, lb = 0;
    int ca = rank(tmp[0].s, 0, tmp[0].len), cb = rank(a[m].s, 0, a[m].len);
    while (i < m && j < n) {
        int left;
        if (la != lb)
            left = la > lb;   /* the head sharing more with the last key is smaller */
        else if (ca != cb)
            left = ca < cb;   /* they differ right there; the other head's lcp and rank stay */
        else {
            /* Same byte at the common prefix: look further in the strings. */
            uint32_t mn = tmp[i].len < a[j].len ? tmp[i].len : a[j].len;
            uint32_t h = la + (uint32_t)pg_folded_prefix_len(tmp[i].s + la, a[j].s + la, mn - la);
            int ra = rank(tmp[i].s, h, tmp[i].len), rb = rank(a[j].s, h, a[j].len);
            left = ra <= rb;
            if (left) {
                lb = h;
                cb = rb;
            } else {
                la = h;
                ca = ra;
            }
        }
        if (left) {
            a[k] = tmp[i++];
            a[k].lcp = la;
            a[k++].ch = ca;
            if (i < m) {
                la = tmp[i].lcp;
                ca = tmp[i].ch;
            }
        } else {
            skey key = a[j++];
            key.lcp = lb;
            key.ch = cb;
            a[k++] = key;
            if (j < n) {
                lb = a[j].lcp;
                cb = a[j].ch;
            }
        }
    }
    if (i < m) {
        tmp[i].lcp = la;
        tmp[i].ch = ca;
        memcpy(a + k, tmp + i, (m - i) * sizeof *a);
    } else if (j < n) {
        a[j].lcp = lb;   /* already in place: k == j */
        a[j].ch = cb;
    }
}

/* Entries of `f` sorted, into a new array (caller frees). */
static int sorted_copy(pg_folded_entry **out, const pg_folded *f)
{
    size_t n = f->n;
    pg_folded_entry *e = malloc((n ? n : 1) * sizeof *e);
    skey *keys = malloc((n ? n : 1) * sizeof *keys), *tmp = malloc((n / 2 + 1) * sizeof *tmp);
    if (!e || !keys || !tmp) {
        free(e);
        free(keys);
        free(tmp);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    if (f->sorted)
        memcpy(e, f->sorted, n * sizeof *e);
    else {
        for (size_t i = 0; i < n; i++)
            keys[i] = (skey){f->slots[i].stack, (uint32_t)f->slots[i].len, 0, (uint32_t)i, 0};
        size_t in_order = 1;   /* files others wrote are often sorted already */
        while (in_order < n && cmp_n(keys[in_order - 1].s, keys[in_order - 1].len, keys[in_order].s,
                                     keys[in_order].len) < 0)
            in_order++;
        if (in_order < n)
            lcp_sort(keys, tmp, n);
        for (size_t i = 0; i < n; i++)
            e[i] = (pg_folded_entry){keys[i].s, f->slots[keys[i].idx].count};
    }
    free(keys);
    free(tmp);
    *out = e;
    return 0;
}

const pg_folded_entry *pg_folded_entries(pg_folded *f)
{
    if (f->sorted || f->n == 0)
        return f->sorted;
    pg_folded_entry *e;
    if (sorted_copy(&e, f) < 0)
        return NULL;
    f->sorted = e;
    return f->sorted;
}

size_t pg_folded_count(const pg_folded *f) { return f->n; }
uint64_t pg_folded_total(const pg_folded *f) { return f->total; }

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
    *outlen = (size_t)(w - buf);
    /* Valid UTF-8, which other tools read: every stack was made so when it
     * was added (add_n), whatever a binary's symbols said. */
    *out = buf;
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

/* A copy in the arena, or NULL for NULL (and when out of memory: *oom). */
static const char *arena_str(pg_folded *f, const char *s, int *oom)
{
    if (!s)
        return NULL;
    char *c = arena_dup(f, s, strlen(s));
    *oom |= !c;
    return c;
}

int pg_folded_set_source(pg_folded *f, const char *frame, const pg_frame_source *src)
{
    size_t i;
    if (pg_strindex_get(&f->srcindex, frame, &i))
        return 0;
    if (pg_array_grow(&f->src, &f->capsrc, f->nsrc, sizeof *f->src, 64) < 0)
        return pg_error_set(PG_ENOMEM, "out of memory");
    int oom = 0;
    const char *key = arena_str(f, frame, &oom);
    pg_frame_source *d = &f->src[f->nsrc];
    *d = (pg_frame_source){.file = arena_str(f, src->file, &oom), .line = src->line,
                           .module = arena_str(f, src->module, &oom), .build_id = arena_str(f, src->build_id, &oom)};
    if (oom || pg_strindex_put(&f->srcindex, key, f->nsrc) < 0)
        return pg_error_set(PG_ENOMEM, "out of memory");
    f->nsrc++;
    return 0;
}

const pg_frame_source *pg_folded_source(const pg_folded *f, const char *frame)
{
    size_t i;
    return pg_strindex_get(&f->srcindex, frame, &i) ? &f->src[i] : NULL;
}
