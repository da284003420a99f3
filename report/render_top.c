/* report/render_top.c — see render_top.h. */
#include "report/render_top.h"
#include "util/error.h"
#include "util/jsonfile.h"
#include "util/text.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

enum { PCT_W = 7 };   /* "100.00%" */

static const char *unit_of(const pg_top_view *v) { return v->unit ? v->unit : "samples"; }

static void put_pct(FILE *out, const pg_top *t, uint64_t part)
{
    uint64_t h = pg_top_pct100(t, part);
    char b[32];
    snprintf(b, sizeof b, "%llu.%02llu%%", (unsigned long long)(h / 100), (unsigned long long)(h % 100));
    fprintf(out, "%*s", PCT_W, b);
}

static int digits(uint64_t v)
{
    int n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Characters (code points) of valid UTF-8 text: what a terminal advances by,
 * near enough (wide CJK characters count one). */
static size_t chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
    return c;
}

/* The byte offset of character `k` of s[0..n). */
static size_t char_off(const char *s, size_t n, size_t k)
{
    size_t i = 0;
    for (; i < n; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80 && k-- == 0)
            break;
    return i;
}

/* `name` escaped for a terminal, cut in the middle to `room` characters
 * unless `room` is 0 (wide). */
static void put_name(FILE *out, const char *name, size_t room)
{
    char *esc = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&esc, &len);
    if (!m) {
        fputs("?", out);
        return;
    }
    pg_text_fputs(m, name, PG_TEXT_TERM);
    fclose(m);
    size_t n = chars(esc, len);
    if (room == 0 || n <= room || room < 5) {
        fwrite(esc, 1, len, out);
    } else {
        size_t head = (room - 3 + 1) / 2, tail = room - 3 - head;
        size_t a = char_off(esc, len, head), b = char_off(esc, len, n - tail);
        fwrite(esc, 1, a, out);
        fputs("...", out);
        fwrite(esc + b, 1, len - b, out);
    }
    free(esc);
}

static int finish(FILE *out)
{
    if (fflush(out) != 0 || ferror(out))
        return pg_error_errno(PG_EIO, "cannot write the table");
    return 0;
}

/* "--focus 'x', --ignore 'y': 60 of 100 samples kept (60.00%)" when filtered. */
static void filters_line(FILE *out, const pg_top *t, const pg_top_view *v)
{
    const pg_top_opts *o = v->opts;
    if (!o || (!o->focus && !o->ignore))
        return;
    if (o->focus) {
        fputs("--focus '", out);
        pg_text_fputs(out, o->focus, PG_TEXT_TERM);
        fputs(o->ignore ? "', " : "'", out);
    }
    if (o->ignore) {
        fputs("--ignore '", out);
        pg_text_fputs(out, o->ignore, PG_TEXT_TERM);
        fputs("'", out);
    }
    fprintf(out, ": %llu of %llu %s kept (", (unsigned long long)t->kept, (unsigned long long)t->total, unit_of(v));
    uint64_t h = pg_top_pct100(t, t->kept);
    fprintf(out, "%llu.%02llu%%); percentages are of all %llu\n", (unsigned long long)(h / 100),
            (unsigned long long)(h % 100), (unsigned long long)t->total);
}

static size_t shown(size_t n, const pg_top_view *v) { return v->rows && v->rows < n ? v->rows : n; }

static size_t name_room(const pg_top_view *v, int prefix)
{
    int cols = v->columns > 0 ? v->columns : 80;
    return v->wide ? 0 : cols - prefix > 5 ? (size_t)(cols - prefix) : 5;
}

int pg_top_render_text(FILE *out, const pg_top *t, const pg_top_view *v)
{
    int w = digits(t->total) > 5 ? digits(t->total) : 5;
    size_t n = shown(t->nfn, v);
    int sort_total = v->opts && v->opts->sort == PG_TOP_SORT_TOTAL;
    pg_text_fputs(out, v->source, PG_TEXT_TERM);
    fprintf(out, ": %llu %s, %zu function%s", (unsigned long long)t->total, unit_of(v), t->nfn,
            t->nfn == 1 ? "" : "s");
    if (n < t->nfn)
        fprintf(out, "; top %zu by %s", n, sort_total ? "total" : "self");
    fputs("\n", out);
    filters_line(out, t, v);
    fprintf(out, "%*s %*s %*s %*s %*s  function\n", w, "self", PCT_W, "self%", PCT_W, "sum%", w, "total", PCT_W,
            "total%");
    size_t room = name_room(v, 2 * w + 3 * PCT_W + 6);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        const pg_top_fn *f = &t->fn[i];
        sum += f->self;
        fprintf(out, "%*llu ", w, (unsigned long long)f->self);
        put_pct(out, t, f->self);
        fputs(" ", out);
        put_pct(out, t, sum);
        fprintf(out, " %*llu ", w, (unsigned long long)f->total);
        put_pct(out, t, f->total);
        fputs("  ", out);
        put_name(out, f->name, room);
        fputs("\n", out);
    }
    if (n < t->nfn)
        fprintf(out, "(%zu more; -n 0 shows all)\n", t->nfn - n);
    return finish(out);
}

/* The caller or callee lines of a peek. */
static void edge_lines(FILE *out, const pg_top *t, const pg_top_edge *e, size_t ne, uint64_t root,
                       const char *what, const char *fname, int w, const pg_top_view *v)
{
    size_t n = shown(ne, v);
    fprintf(out, "%s of ", what);
    pg_text_fputs(out, fname, PG_TEXT_TERM);
    fprintf(out, ":%s\n", ne || root ? "" : " none");
    size_t room = name_room(v, w + PCT_W + 5);
    if (root) {
        fprintf(out, "%*llu ", w, (unsigned long long)root);
        put_pct(out, t, root);
        fputs("    (none: the root frame)\n", out);
    }
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%*llu ", w, (unsigned long long)e[i].count);
        put_pct(out, t, e[i].count);
        fputs("    ", out);
        put_name(out, e[i].name, room);
        fputs("\n", out);
    }
    if (n < ne)
        fprintf(out, "    (%zu more; -n 0 shows all)\n", ne - n);
}

int pg_top_render_peek_text(FILE *out, const pg_top *t, const pg_top_peek *p, int callers, int callees,
                            const pg_top_view *v)
{
    int w = digits(t->total) > 5 ? digits(t->total) : 5;
    const pg_top_fn *f = p->fn;
    pg_text_fputs(out, v->source, PG_TEXT_TERM);
    fprintf(out, ": %llu %s\n", (unsigned long long)t->total, unit_of(v));
    filters_line(out, t, v);
    put_name(out, f->name, name_room(v, 50));
    fprintf(out, ": total %llu (", (unsigned long long)f->total);
    uint64_t h = pg_top_pct100(t, f->total);
    fprintf(out, "%llu.%02llu%%), self %llu (", (unsigned long long)(h / 100), (unsigned long long)(h % 100),
            (unsigned long long)f->self);
    h = pg_top_pct100(t, f->self);
    fprintf(out, "%llu.%02llu%%)\n", (unsigned long long)(h / 100), (unsigned long long)(h % 100));
    if (callers)
        edge_lines(out, t, p->callers, p->ncallers, p->root, "callers", f->name, w, v);
    if (callees)
        edge_lines(out, t, p->callees, p->ncallees, 0, "callees", f->name, w, v);
    return finish(out);
}

/* JSON: a percentage with the text's two decimals. */
static cJSON *pct_json(const pg_top *t, uint64_t part)
{
    return cJSON_CreateNumber((double)pg_top_pct100(t, part) / 100.0);
}

static cJSON *head_json(const pg_top *t, const pg_top_view *v)
{
    cJSON *doc = cJSON_CreateObject();
    if (!doc)
        return NULL;
    cJSON_AddStringToObject(doc, "source", v->source);
    cJSON_AddStringToObject(doc, "unit", unit_of(v));
    cJSON_AddNumberToObject(doc, "total", (double)t->total);
    cJSON_AddNumberToObject(doc, "kept", (double)t->kept);
    const pg_top_opts *o = v->opts;
    cJSON_AddItemToObject(doc, "focus", o && o->focus ? cJSON_CreateString(o->focus) : cJSON_CreateNull());
    cJSON_AddItemToObject(doc, "ignore", o && o->ignore ? cJSON_CreateString(o->ignore) : cJSON_CreateNull());
    return doc;
}

/* A function's row; `sum` (the running self of the rows so far) only in the table. */
static cJSON *fn_json(const pg_top *t, const pg_top_fn *f, const uint64_t *sum)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "name", f->name);
    cJSON_AddNumberToObject(r, "self", (double)f->self);
    cJSON_AddItemToObject(r, "self_pct", pct_json(t, f->self));
    if (sum)
        cJSON_AddItemToObject(r, "sum_pct", pct_json(t, *sum));
    cJSON_AddNumberToObject(r, "total", (double)f->total);
    cJSON_AddItemToObject(r, "total_pct", pct_json(t, f->total));
    return r;
}

static int print_json(FILE *out, cJSON *doc)
{
    size_t len = 0;
    char *text = doc ? pg_json_print(doc, &len) : NULL;
    cJSON_Delete(doc);
    if (!text)
        return pg_error_set(PG_ENOMEM, "out of memory writing JSON");
    fwrite(text, 1, len, out);
    free(text);
    return finish(out);
}

int pg_top_render_json(FILE *out, const pg_top *t, const pg_top_view *v)
{
    cJSON *doc = head_json(t, v), *rows = cJSON_CreateArray();
    if (doc) {
        cJSON_AddStringToObject(doc, "sort", v->opts && v->opts->sort == PG_TOP_SORT_TOTAL ? "total" : "self");
        cJSON_AddNumberToObject(doc, "functions", (double)t->nfn);
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < shown(t->nfn, v) && rows; i++) {
        sum += t->fn[i].self;
        cJSON_AddItemToArray(rows, fn_json(t, &t->fn[i], &sum));
    }
    cJSON_AddItemToObject(doc, "rows", rows);
    return print_json(out, doc);
}

static cJSON *edges_json(const pg_top *t, const pg_top_edge *e, size_t ne, const pg_top_view *v)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < shown(ne, v) && a; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "name", e[i].name);
        cJSON_AddNumberToObject(r, "count", (double)e[i].count);
        cJSON_AddItemToObject(r, "pct", pct_json(t, e[i].count));
        cJSON_AddItemToArray(a, r);
    }
    return a;
}

int pg_top_render_peek_json(FILE *out, const pg_top *t, const pg_top_peek *p, int callers, int callees,
                            const pg_top_view *v)
{
    cJSON *doc = head_json(t, v);
    cJSON_AddItemToObject(doc, "function", fn_json(t, p->fn, NULL));
    if (callers) {
        cJSON_AddNumberToObject(doc, "root", (double)p->root);
        cJSON_AddItemToObject(doc, "callers", edges_json(t, p->callers, p->ncallers, v));
    }
    if (callees)
        cJSON_AddItemToObject(doc, "callees", edges_json(t, p->callees, p->ncallees, v));
    return print_json(out, doc);
}
