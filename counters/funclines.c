/* counters/funclines.c — a program's functions and their source lines (libdw). See funclines.h. */
#include "counters/funclines.h"
#include "counters/demangle.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/jsonfile.h"
#include "util/strindex.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One function: a name declared at a file and line. */
typedef struct func {
    char *key;                  /* its identity, in t->byname: "LEN(file) file decl name" */
    char *name, *file;          /* file relative to the root */
    int decl, last;             /* its lines: decl..last; last 0: no line of its code seen */
    char **in;                  /* frames its code runs under */
    size_t nin;
} func;

/* One address range of a function's code in the CU: an out-of-line body or
 * an inlined call; depth orders nested ones (the deepest is the innermost). */
typedef struct piece {
    Dwarf_Addr lo, hi;
    int depth;
    size_t fn;
} piece;

typedef struct table {
    const char *root;
    size_t rootlen;
    func *f;
    size_t n, cap;
    pg_strindex byname;         /* func.key -> its index: a large program has 10^5 of them */
    const char *comp_dir;       /* the current CU's: what its relative file names are relative to */
    piece *p;                   /* the current CU's */
    size_t np, capp;
    int oom;
} table;

static void *grow(void *v, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return v;
    size_t c = *cap ? *cap * 2 : 64;
    while (c < need)
        c *= 2;
    void *nv = realloc(v, c * size);
    if (nv)
        *cap = c;
    return nv;
}

/* The frame name of a subprogram or inlined call, as symbolize.c names it. */
static const char *die_name(Dwarf_Die *d, char *buf, size_t len)
{
    Dwarf_Attribute a;
    const char *n = NULL;
    if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) || dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
        n = dwarf_formstring(&a);
    if (!n)
        n = dwarf_diename(d);
    return n ? pg_demangle_frame(buf, len, n) : NULL;
}

/* `path` relative to the root, "." and ".." segments resolved (a build in a
 * subdirectory names ../src/a.c), into out; NULL when it is outside. */
static const char *rel_path(const table *t, const char *path, char *out, size_t len)
{
    char abs[PATH_MAX];
    if (path && path[0] != '/' && t->comp_dir &&
        snprintf(abs, sizeof abs, "%s/%s", t->comp_dir, path) < (int)sizeof abs)
        path = abs;
    if (!path || strncmp(path, t->root, t->rootlen) || path[t->rootlen] != '/' || strlen(path) >= len)
        return NULL;
    size_t n = 0;
    for (const char *s = path + t->rootlen + 1; *s;) {
        size_t seg = strcspn(s, "/");
        if (seg == 2 && !strncmp(s, "..", 2)) {
            if (!n)
                return NULL;        /* above the root */
            while (n && out[n - 1] != '/')
                n--;
            if (n)
                n--;
        } else if (seg && !(seg == 1 && *s == '.')) {
            if (n)
                out[n++] = '/';
            memcpy(out + n, s, seg);
            n += seg;
        }
        s += seg + (s[seg] == '/');
    }
    out[n] = '\0';
    return n ? out : NULL;
}

static void add_in(table *t, func *f, const char *frame)
{
    for (size_t i = 0; i < f->nin; i++)
        if (!strcmp(f->in[i], frame))
            return;
    char **nv = realloc(f->in, (f->nin + 1) * sizeof *nv);
    char *s = strdup(frame);
    if (!nv || !s) {
        free(s);
        if (nv)
            f->in = nv;
        t->oom = 1;
        return;
    }
    f->in = nv;
    f->in[f->nin++] = s;
}

/* The function declared at die's file and line, added when new; SIZE_MAX
 * when its source is not under the root (a system header's) or unnamed. */
static size_t func_of(table *t, Dwarf_Die *die)
{
    char buf[1024];
    const char *name = die_name(die, buf, sizeof buf);
    char rel[PATH_MAX];
    const char *file = rel_path(t, dwarf_decl_file(die), rel, sizeof rel);
    int decl = 0;
    if (!name || !file || dwarf_decl_line(die, &decl) != 0)
        return SIZE_MAX;
    /* The file's length first: no name or file can make two keys alike. */
    char key[sizeof buf + sizeof rel + 48];
    snprintf(key, sizeof key, "%zu %s %d %s", strlen(file), file, decl, name);
    size_t at;
    if (pg_strindex_get(&t->byname, key, &at))
        return at;
    func *nf = grow(t->f, &t->cap, t->n + 1, sizeof *nf);
    if (!nf) {
        t->oom = 1;
        return SIZE_MAX;
    }
    t->f = nf;
    func *f = &t->f[t->n];
    *f = (func){.key = strdup(key), .name = strdup(name), .file = strdup(file), .decl = decl};
    if (!f->key || !f->name || !f->file || pg_strindex_put(&t->byname, f->key, t->n) < 0) {
        free(f->key);
        free(f->name);
        free(f->file);
        t->oom = 1;
        return SIZE_MAX;
    }
    return t->n++;
}

static void add_pieces(table *t, Dwarf_Die *die, int depth, size_t fn)
{
    Dwarf_Addr base, lo, hi;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
        piece *np = grow(t->p, &t->capp, t->np + 1, sizeof *np);
        if (!np) {
            t->oom = 1;
            return;
        }
        t->p = np;
        t->p[t->np++] = (piece){.lo = lo, .hi = hi, .depth = depth, .fn = fn};
    }
}

/* Every subprogram with code and inlined call under `die`: its pieces, and
 * the frame it runs under (host: the concrete function around an inlined call). */
static void walk(table *t, Dwarf_Die *die, int depth, const char *host)
{
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0)
        return;
    do {
        int tag = dwarf_tag(&child);
        const char *inner = host;
        char buf[1024];
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
            Dwarf_Addr lo;
            int has_code = dwarf_lowpc(&child, &lo) == 0 || dwarf_hasattr(&child, DW_AT_ranges);
            if (tag == DW_TAG_subprogram)
                inner = has_code ? die_name(&child, buf, sizeof buf) : NULL;
            size_t fn = has_code ? func_of(t, &child) : SIZE_MAX;
            if (fn != SIZE_MAX) {
                add_pieces(t, &child, depth, fn);
                if (inner)
                    add_in(t, &t->f[fn], inner);
            }
        }
        walk(t, &child, depth + 1, inner);
    } while (dwarf_siblingof(&child, &child) == 0);
}

typedef struct row {
    Dwarf_Addr addr;
    const char *file;           /* relative to the root */
    int line;
} row;

static int by_addr(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_lo(const void *a, const void *b)
{
    const piece *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : x->depth - y->depth;
}

/* Each row's line extends the innermost function whose piece holds its
 * address, when the row is in that function's own file. One sweep over
 * rows and pieces both sorted by address; `act` holds the pieces open at
 * the current address (a handful: the nesting depth). */
static void attribute(table *t, row *rows, size_t nrows)
{
    qsort(rows, nrows, sizeof *rows, by_addr);
    qsort(t->p, t->np, sizeof *t->p, by_lo);
    size_t *act = malloc((t->np + 1) * sizeof *act), nact = 0, next = 0;
    if (!act) {
        t->oom = 1;
        return;
    }
    for (size_t r = 0; r < nrows; r++) {
        Dwarf_Addr a = rows[r].addr;
        while (next < t->np && t->p[next].lo <= a)
            act[nact++] = next++;
        size_t best = SIZE_MAX, keep = 0;
        for (size_t i = 0; i < nact; i++) {
            const piece *p = &t->p[act[i]];
            if (p->hi <= a)
                continue;
            act[keep++] = act[i];
            if (best == SIZE_MAX || p->depth > t->p[best].depth)
                best = act[i];
        }
        nact = keep;
        if (best == SIZE_MAX)
            continue;
        func *f = &t->f[t->p[best].fn];
        /* A row before the declaration is another function's code that the
         * compiler moved out of its inlined ranges (a loop's tail). */
        if (!strcmp(f->file, rows[r].file) && rows[r].line >= f->decl && rows[r].line > f->last)
            f->last = rows[r].line;
    }
    free(act);
}

/* The CU's files relative to the root, each resolved once (rows name a
 * handful of files thousands of times). */
typedef struct files {
    const char **raw;
    char **rel;
    size_t n, cap;
} files;

static const char *file_of(table *t, files *fs, const char *raw)
{
    for (size_t i = 0; i < fs->n; i++)
        if (fs->raw[i] == raw)
            return fs->rel[i];
    char buf[PATH_MAX];
    const char *rel = rel_path(t, raw, buf, sizeof buf);
    size_t cap = fs->cap;
    const char **nr = grow(fs->raw, &cap, fs->n + 1, sizeof *nr);
    if (nr)
        fs->raw = nr;
    char **nl = nr ? grow(fs->rel, &fs->cap, fs->n + 1, sizeof *nl) : NULL;
    if (nl)
        fs->rel = nl;
    char *copy = rel ? strdup(rel) : NULL;
    if (!nr || !nl || (rel && !copy)) {
        free(copy);
        t->oom = 1;
        return NULL;
    }
    fs->raw[fs->n] = raw;
    fs->rel[fs->n++] = copy;
    return copy;
}

static void files_free(files *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        free(fs->rel[i]);
    free(fs->rel);
    free(fs->raw);
}

static void read_cu(table *t, Dwarf_Die *cu)
{
    Dwarf_Attribute a;
    t->np = 0;
    t->comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
    walk(t, cu, 0, NULL);
    Dwarf_Lines *lines;
    size_t n = 0;
    if (t->oom || !t->np || dwarf_getsrclines(cu, &lines, &n) != 0 || !n)
        return;
    row *rows = malloc(n * sizeof *rows);
    size_t nrows = 0;
    files fs = {0};
    if (!rows) {
        t->oom = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        bool end = false;
        row r = {0};
        if (!l || dwarf_lineendsequence(l, &end) != 0 || end || dwarf_lineaddr(l, &r.addr) != 0 ||
            dwarf_lineno(l, &r.line) != 0 || r.line <= 0 || !(r.file = file_of(t, &fs, dwarf_linesrc(l, NULL, NULL))))
            continue;
        rows[nrows++] = r;
    }
    attribute(t, rows, nrows);
    free(rows);
    files_free(&fs);
}

static int by_place(const void *a, const void *b)
{
    const func *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : x->decl - y->decl;
}

/* Functions of one file do not overlap in it (C has no nested functions; a
 * lambda's lines are its own): a row the compiler left outside an inlined
 * call's ranges would otherwise stretch its caller over the callee defined
 * below it. Each ends before the next one begins. */
static void clip(table *t)
{
    if (t->n)
        qsort(t->f, t->n, sizeof *t->f, by_place);
    for (size_t i = 0; i + 1 < t->n; i++)
        if (!strcmp(t->f[i].file, t->f[i + 1].file) && t->f[i + 1].decl > t->f[i].decl &&
            t->f[i].last >= t->f[i + 1].decl)
            t->f[i].last = t->f[i + 1].decl - 1;
}

static cJSON *to_json(const table *t, const char *note)
{
    cJSON *doc = cJSON_CreateObject(), *fs = cJSON_AddArrayToObject(doc, "functions");
    if (!doc || !fs || !cJSON_AddNumberToObject(doc, "funclines", 1) ||
        (note && !cJSON_AddStringToObject(doc, "note", note))) {
        cJSON_Delete(doc);
        return NULL;
    }
    for (size_t i = 0; i < t->n; i++) {
        const func *f = &t->f[i];
        if (!f->last)
            continue;               /* no code of its own file: nothing a change could touch */
        cJSON *o = cJSON_CreateObject(), *in = cJSON_AddArrayToObject(o, "in");
        cJSON_AddItemToArray(fs, o);
        if (!o || !in || !cJSON_AddStringToObject(o, "name", f->name) || !cJSON_AddStringToObject(o, "file", f->file) ||
            !cJSON_AddNumberToObject(o, "first", f->decl) || !cJSON_AddNumberToObject(o, "last", f->last)) {
            cJSON_Delete(doc);
            return NULL;
        }
        for (size_t k = 0; k < f->nin; k++)
            cJSON_AddItemToArray(in, cJSON_CreateString(f->in[k]));
        if (cJSON_GetArraySize(in) != (int)f->nin) {
            cJSON_Delete(doc);
            return NULL;
        }
    }
    return doc;
}

static void table_free(table *t)
{
    pg_strindex_free(&t->byname);
    for (size_t i = 0; i < t->n; i++) {
        free(t->f[i].key);
        free(t->f[i].name);
        free(t->f[i].file);
        for (size_t k = 0; k < t->f[i].nin; k++)
            free(t->f[i].in[k]);
        free(t->f[i].in);
    }
    free(t->f);
    free(t->p);
}

/* Reads what `exe` says into t; NULL, or why it has no functions. */
static const char *read_program(table *t, const char *exe)
{
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return "its program could not be read";
    Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
    if (!dw) {
        close(fd);
        return "its program has no DWARF (built without -g, or stripped)";
    }
    Dwarf_Off off = 0, next;
    size_t hsize;
    int ncu = 0;
    while (!t->oom && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dw, off + hsize, &cu)) {
            read_cu(t, &cu);
            ncu++;
        }
        off = next;
    }
    dwarf_end(dw);
    close(fd);
    return ncu ? NULL : "its program has no DWARF (built without -g, or stripped)";
}

int pg_funclines_write(const char *exe, const char *root, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(root, real))
        snprintf(real, sizeof real, "%s", root);
    table t = {.root = real, .rootlen = strlen(real)};
    const char *note = read_program(&t, exe);
    clip(&t);
    size_t nfuncs = 0;
    for (size_t i = 0; i < t.n; i++)
        nfuncs += t.f[i].last != 0;
    if (!note && !nfuncs)
        note = "no function of its program has line tables under the tree it was built in";
    cJSON *doc = t.oom ? NULL : to_json(&t, note);
    table_free(&t);
    if (!doc)
        return pg_error_set(PG_ENOMEM, "out of memory");
    size_t len;
    char *text = pg_json_print(doc, &len);
    cJSON_Delete(doc);
    if (!text)
        return pg_error_set(PG_ENOMEM, "out of memory");
    int rc = pg_file_write_atomic(path, text, len);
    free(text);
    return rc;
}
