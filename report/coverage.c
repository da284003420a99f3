/* report/coverage.c — the change mapped onto functions and benchmarks. See coverage.h. */
#include "report/coverage.h"
#include "report/explain.h"
#include "report/funcdelta.h"
#include "util/error.h"
#include "util/folded.h"
#include "util/jsonfile.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void pg_change_free(pg_change *ch)
{
    for (size_t i = 0; i < ch->nfiles; i++) {
        free(ch->files[i].path);
        free(ch->files[i].range);
    }
    free(ch->files);
    memset(ch, 0, sizeof *ch);
}

void pg_coverage_free(pg_coverage *cv)
{
    for (size_t i = 0; i < cv->nf; i++) {
        pg_cov_func *f = &cv->f[i];
        free(f->name);
        free(f->file);
        for (size_t k = 0; k < f->nin; k++)
            free(f->in[k]);
        free(f->in);
        free(f->bench);
    }
    free(cv->f);
    for (size_t i = 0; i < cv->nunmapped; i++)
        free(cv->unmapped[i]);
    free(cv->unmapped);
    free(cv->blind);
    free(cv->note);
    memset(cv, 0, sizeof *cv);
}

const char *pg_coverage_verdict(const pg_coverage *cv)
{
    return !cv->mapped || (cv->nuncovered && cv->nblind) ? "unknown" : cv->nuncovered ? "not covered" : "covered";
}

int pg_coverage_fails(const pg_coverage *cv)
{
    return cv->required && strcmp(pg_coverage_verdict(cv), "covered") != 0;
}

void pg_coverage_table_path(char *buf, size_t len, const char *stacks)
{
    size_t n = strlen(stacks);
    if (n > 7 && !strcmp(stacks + n - 7, ".folded"))
        n -= 7;
    snprintf(buf, len, "%.*s.funclines.json", (int)n, stacks);
}

static int add_note(pg_coverage *cv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_note(pg_coverage *cv, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t old = cv->note ? strlen(cv->note) : 0;
    char *n = realloc(cv->note, old + strlen(buf) + 3);
    if (!n)
        return pg_error_set(PG_ENOMEM, "out of memory");
    snprintf(n + old, strlen(buf) + 3, "%s%s", old ? "; " : "", buf);
    cv->note = n;
    return 0;
}

/* ---- the function tables, checked ---- */

/* A function of a table, before it is known to be changed. */
typedef struct tfunc {
    const cJSON *o;             /* in its table's document */
    const char *name, *file;
    int first, last;
    size_t doc;                 /* the table it is in */
} tfunc;

/* The tables, each read once: the benchmarks of one program (a Google
 * Benchmark suite's, hundreds of them) share one file, hard-linked. */
typedef struct tables {
    cJSON **doc;                /* the distinct tables read */
    dev_t *dev;
    ino_t *ino;
    size_t ndocs;
    size_t *of;                 /* per benchmark of the comparison: its table, SIZE_MAX: none */
    tfunc *f;
    size_t nf, cap;
} tables;

static int good_string(const cJSON *s)
{
    return cJSON_IsString(s) && s->valuestring[0] && strlen(s->valuestring) < 4096;
}

static int good_line(const cJSON *n)
{
    return cJSON_IsNumber(n) && n->valuedouble >= 1 && n->valuedouble <= 1e8 && n->valuedouble == (int)n->valuedouble;
}

/* Why function object `o` is not one, or NULL. */
static const char *bad_function(const cJSON *o)
{
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "in"), *x;
    if (!cJSON_IsObject(o))
        return "not an object";
    if (!good_string(cJSON_GetObjectItemCaseSensitive(o, "name")) ||
        !good_string(cJSON_GetObjectItemCaseSensitive(o, "file")))
        return "a name or file that is not a string";
    if (!good_line(cJSON_GetObjectItemCaseSensitive(o, "first")) ||
        !good_line(cJSON_GetObjectItemCaseSensitive(o, "last")) ||
        cJSON_GetObjectItemCaseSensitive(o, "first")->valuedouble >
            cJSON_GetObjectItemCaseSensitive(o, "last")->valuedouble)
        return "lines that are not first <= last, whole and positive";
    if (!cJSON_IsArray(in))
        return "\"in\" that is not an array";
    cJSON_ArrayForEach(x, in) if (!good_string(x)) return "\"in\" with an entry that is not a string";
    return NULL;
}

/* Benchmark i's table, checked whole: one bad entry and none of it is used.
 * A file already read (the same device and inode) is not read again. */
static int read_table(tables *t, pg_coverage *cv, const pg_bench_cmp *b, size_t i)
{
    char path[4200];
    pg_coverage_table_path(path, sizeof path, b->stacks_b);
    struct stat st;
    int known = stat(path, &st) == 0;
    for (size_t d = 0; known && d < t->ndocs; d++)
        if (t->dev[d] == st.st_dev && t->ino[d] == st.st_ino) {
            t->of[i] = d;
            return 0;
        }
    cJSON *doc = NULL;
    int rc = pg_json_read_file(&doc, path);
    if (rc == PG_ENOTFOUND)
        return add_note(cv, "%s: no function table beside its stacks (recorded by an older perfgate, or its "
                            "program is not a file of the tree)", b->name);
    if (rc == 0 && (rc = pg_json_check_strict(doc, path)) == 0) {
        const cJSON *fs = cJSON_GetObjectItemCaseSensitive(doc, "functions"), *o, *v = cJSON_GetObjectItemCaseSensitive(doc, "funclines");
        const char *why = !cJSON_IsNumber(v) || v->valuedouble != 1 ? "not a function table of version 1"
                          : !cJSON_IsArray(fs)                     ? "\"functions\" is not an array"
                                                                   : NULL;
        size_t k = 0;
        cJSON_ArrayForEach(o, fs)
        {
            if (why || (why = bad_function(o)))
                break;
            k++;
        }
        if (why)
            rc = pg_error_set(PG_EINVAL, "%s: %s%s", path, why,
                              cJSON_IsArray(fs) && k < (size_t)cJSON_GetArraySize(fs) ? " (a function of it)" : "");
    }
    if (rc < 0) {
        cJSON_Delete(doc);
        return rc == PG_ENOMEM ? rc : add_note(cv, "%s: its function table was not used: %s", b->name, pg_error_last());
    }
    const cJSON *note = cJSON_GetObjectItemCaseSensitive(doc, "note"), *o;
    if (cJSON_IsString(note) && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "functions")) == 0)
        rc = add_note(cv, "%s: %.300s", b->name, note->valuestring);
    size_t d = t->ndocs++;
    t->doc[d] = doc;
    t->dev[d] = known ? st.st_dev : 0;
    t->ino[d] = known ? st.st_ino : 0;
    t->of[i] = d;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "functions"))
    {
        if (t->nf == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 256;
            tfunc *nf = realloc(t->f, cap * sizeof *nf);
            if (!nf)
                return pg_error_set(PG_ENOMEM, "out of memory");
            t->f = nf, t->cap = cap;
        }
        t->f[t->nf++] = (tfunc){.o = o,
                                .name = cJSON_GetObjectItemCaseSensitive(o, "name")->valuestring,
                                .file = cJSON_GetObjectItemCaseSensitive(o, "file")->valuestring,
                                .first = (int)cJSON_GetObjectItemCaseSensitive(o, "first")->valuedouble,
                                .last = (int)cJSON_GetObjectItemCaseSensitive(o, "last")->valuedouble,
                                .doc = d};
    }
    return rc;
}

static int tables_new(tables *t, size_t nbench)
{
    *t = (tables){.doc = calloc(nbench + 1, sizeof *t->doc), .dev = calloc(nbench + 1, sizeof *t->dev),
                  .ino = calloc(nbench + 1, sizeof *t->ino), .of = malloc((nbench + 1) * sizeof *t->of)};
    for (size_t i = 0; t->of && i < nbench; i++)
        t->of[i] = SIZE_MAX;
    return t->doc && t->dev && t->ino && t->of ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

/* Whether table d has a function: a table of none says why, and its benchmarks are blind. */
static int has_functions(const tables *t, size_t d)
{
    return d != SIZE_MAX && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t->doc[d], "functions")) > 0;
}

static void tables_free(tables *t)
{
    for (size_t i = 0; i < t->ndocs; i++)
        cJSON_Delete(t->doc[i]);
    free(t->doc);
    free(t->dev);
    free(t->ino);
    free(t->of);
    free(t->f);
}

/* ---- the change against the functions ---- */

/* Lines of file ch->files[k]'s ranges within [first, last], and the first. */
static size_t overlap(const pg_change_file *cf, int first, int last, int *at)
{
    size_t n = 0;
    *at = 0;
    for (size_t r = 0; r < cf->nrange; r++) {
        int lo = cf->range[r][0] > first ? cf->range[r][0] : first;
        int hi = cf->range[r][1] < last ? cf->range[r][1] : last;
        if (lo > hi)
            continue;
        if (!*at)
            *at = lo;
        n += (size_t)(hi - lo + 1);
    }
    return n;
}

static int same_func(const pg_cov_func *f, const tfunc *t)
{
    return f->first == t->first && !strcmp(f->name, t->name) && !strcmp(f->file, t->file);
}

static int add_changed(pg_coverage *cv, const tfunc *t, int at, size_t n)
{
    for (size_t i = 0; i < cv->nf; i++)
        if (same_func(&cv->f[i], t))
            return 0;       /* the same function in another benchmark's program */
    pg_cov_func *nf = realloc(cv->f, (cv->nf + 1) * sizeof *nf);
    if (!nf)
        return pg_error_set(PG_ENOMEM, "out of memory");
    cv->f = nf;
    pg_cov_func *f = &cv->f[cv->nf++];
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(t->o, "in"), *x;
    *f = (pg_cov_func){.name = strdup(t->name), .file = strdup(t->file), .first = t->first, .last = t->last,
                       .changed_at = at, .nchanged = n, .in = calloc((size_t)cJSON_GetArraySize(in) + 1, sizeof(char *))};
    if (!f->name || !f->file || !f->in)
        return pg_error_set(PG_ENOMEM, "out of memory");
    cJSON_ArrayForEach(x, in) if (!(f->in[f->nin++] = strdup(x->valuestring))) return pg_error_set(PG_ENOMEM, "out of memory");
    return 0;
}

static int is_source(const char *path)
{
    static const char *const ext[] = {".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".inl", ".rs", ".S", ".s"};
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && !strchr(dot, '/') && i < sizeof ext / sizeof *ext; i++)
        if (!strcmp(dot, ext[i]))
            return 1;
    return 0;
}

static int add_unmapped(pg_coverage *cv, const char *path)
{
    char **nu = realloc(cv->unmapped, (cv->nunmapped + 1) * sizeof *nu);
    if (!nu)
        return pg_error_set(PG_ENOMEM, "out of memory");
    cv->unmapped = nu;
    if (!(cv->unmapped[cv->nunmapped] = strdup(path)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    cv->nunmapped++;
    return 0;
}

static int changed_functions(pg_coverage *cv, const pg_change *ch, const tables *t)
{
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < ch->nfiles; k++) {
        const pg_change_file *cf = &ch->files[k];
        int known = 0;
        for (size_t i = 0; rc == 0 && i < t->nf; i++) {
            if (strcmp(t->f[i].file, cf->path))
                continue;
            known = 1;
            int at;
            size_t n = overlap(cf, t->f[i].first, t->f[i].last, &at);
            if (n)
                rc = add_changed(cv, &t->f[i], at, n);
        }
        if (rc == 0 && !known && is_source(cf->path))
            rc = add_unmapped(cv, cf->path);
    }
    return rc;
}

static int by_place(const void *a, const void *b)
{
    const pg_cov_func *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : x->first - y->first;
}

/* ---- which benchmarks run them ---- */

/* Whether frame f[0..n) is function `name`, or a copy the compiler made of
 * it: GCC's clones are symbols of their own that callgrind names as they are
 * (hash.part.0, f.constprop.0, f.cold; C++: "f(int) [clone .isra.0]"). */
static int frame_is(const char *f, size_t n, const char *name)
{
    size_t k = strlen(name);
    if (n < k || memcmp(f, name, k))
        return 0;
    return n == k || f[k] == '.' || (n - k >= 8 && !memcmp(f + k, " [clone ", 8));
}

/* Whether function `name` is one of the frames of stack `s` ("a;b;c"). */
static int has_frame(const char *s, const char *name)
{
    for (const char *p = s;;) {
        size_t n = strcspn(p, ";");
        if (frame_is(p, n, name))
            return 1;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

static int runs(pg_folded *f, const pg_cov_func *fn)
{
    const pg_folded_entry *e = pg_folded_entries(f);
    for (size_t i = 0; e && i < pg_folded_count(f); i++) {
        if (has_frame(e[i].stack, fn->name))
            return 1;
        for (size_t k = 0; k < fn->nin; k++)
            if (has_frame(e[i].stack, fn->in[k]))
                return 1;
    }
    return 0;
}

/* The self-cost change of fn's frames in benchmark b (NAN without a baseline). */
static double delta_of(const pg_funcdelta *d, const pg_cov_func *fn)
{
    if (!d)
        return NAN;
    double sum = 0;
    for (size_t r = 0; r < d->n; r++) {
        const char *row = d->rows[r].name;
        int mine = frame_is(row, strlen(row), fn->name);
        for (size_t k = 0; !mine && k < fn->nin; k++)
            mine = frame_is(row, strlen(row), fn->in[k]);
        if (mine)
            sum += d->rows[r].delta;
    }
    return sum;
}

/* Which tables hold which changed function: owned[f * t->ndocs + doc]. One
 * pass over the tables' functions, not one per benchmark and function. */
static unsigned char *owners(const pg_coverage *cv, const tables *t)
{
    unsigned char *owned = calloc(cv->nf * t->ndocs + 1, 1);
    for (size_t j = 0; owned && j < t->nf; j++)
        for (size_t i = 0; i < cv->nf; i++)
            if (same_func(&cv->f[i], &t->f[j]))
                owned[i * t->ndocs + t->f[j].doc] = 1;
    return owned;
}

/* Benchmark `bi`'s part: for each changed function its program has, whether
 * its stacks run it and by how much that changed. A benchmark whose program
 * has none of them is not read at all. */
static int bench_runs(pg_coverage *cv, const tables *t, const unsigned char *owned, const pg_comparison *c, size_t bi,
                      int exact)
{
    const pg_bench_cmp *b = &c->bench[bi];
    const unsigned char *mine = owned + t->of[bi];
    size_t any = 0;
    for (size_t i = 0; i < cv->nf; i++)
        any += mine[i * t->ndocs];
    if (!any)
        return 0;
    pg_folded *fa = NULL, *fb = NULL;
    pg_funcdelta d = {0};
    int have_d = 0, rc = pg_folded_new(&fb);
    if (rc == 0 && (rc = pg_folded_read_file(fb, b->stacks_b)) < 0) {
        pg_folded_free(fb);
        return rc == PG_ENOMEM ? rc : add_note(cv, "%s: its stacks were not read: %s", b->name, pg_error_last());
    }
    if (rc == 0 && b->stacks_a && pg_folded_new(&fa) == 0 && pg_folded_read_file(fa, b->stacks_a) == 0)
        have_d = (rc = pg_funcdelta_compute(&d, fa, fb, 0, !exact)) == 0;
    for (size_t i = 0; rc == 0 && i < cv->nf; i++) {
        pg_cov_func *fn = &cv->f[i];
        if (!mine[i * t->ndocs] || !runs(fb, fn))
            continue;
        fn->bench[fn->nbench++] = (pg_cov_bench){.name = b->name, .delta = delta_of(have_d ? &d : NULL, fn)};
    }
    if (have_d)
        pg_funcdelta_free(&d);
    pg_folded_free(fa);
    pg_folded_free(fb);
    return rc < 0 ? rc : 0;
}

int pg_coverage_map(pg_coverage *out, const pg_change *ch, const pg_comparison *c)
{
    memset(out, 0, sizeof *out);
    int exact = pg_explain_exact(c);
    out->unit = pg_explain_unit(c);
    if (ch->note[0])
        return add_note(out, "%s", ch->note);
    tables t;
    int rc = tables_new(&t, c->nbench);
    size_t ntables = 0;
    if (rc == 0 && !(out->blind = calloc(c->nbench + 1, sizeof *out->blind)))
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < c->nbench; i++) {
        const pg_bench_cmp *b = &c->bench[i];
        if (b->failed_b)
            continue;
        if (b->stacks_b && (rc = read_table(&t, out, b, i)) < 0)
            break;
        if (has_functions(&t, t.of[i]))
            ntables++;
        else
            out->blind[out->nblind++] = b->name;
        if (!b->stacks_b)
            rc = add_note(out, "%s: no stacks in the candidate", b->name);
    }
    if (rc == 0 && !ntables) {
        rc = add_note(out, "no benchmark of %s has a function table: record its stacks with --sample "
                           "(compare --run-missing --sample, or perfgate run --sample)", c->cand->label);
        tables_free(&t);
        return rc;
    }
    out->mapped = 1;
    if (rc == 0)
        rc = changed_functions(out, ch, &t);
    if (out->nf)
        qsort(out->f, out->nf, sizeof *out->f, by_place);
    for (size_t i = 0; rc == 0 && i < out->nf; i++)
        if (!(out->f[i].bench = calloc(c->nbench + 1, sizeof *out->f[i].bench)))
            rc = pg_error_set(PG_ENOMEM, "out of memory");
    unsigned char *owned = rc == 0 && out->nf ? owners(out, &t) : NULL;
    if (rc == 0 && out->nf && !owned)
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && out->nf && i < c->nbench; i++)
        if (has_functions(&t, t.of[i]))
            rc = bench_runs(out, &t, owned, c, i, exact);
    for (size_t i = 0; i < out->nf; i++)
        out->nuncovered += out->f[i].nbench == 0;
    free(owned);
    tables_free(&t);
    return rc;
}
