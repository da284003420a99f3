/* report/top.c — see top.h. Stacks become arrays of function ids once
 * (report/stackids.h); the table and every peek are then passes over small
 * integers, and "once per stack" is a stamp per function (the index of the
 * last stack that counted it) rather than a set cleared for every stack. */
#include "report/top.h"
#include "report/stackids.h"
#include "util/error.h"
#include "util/strindex.h"
#include "util/suggest.h"

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* The kept stacks, and each function's row. */
typedef struct pg_top_stacks {
    pg_stackids s;
    size_t *row;             /* by id: its index in pg_top.fn + 1; 0 when not kept */
} pg_top_stacks;

void pg_top_free(pg_top *t)
{
    if (!t)
        return;
    free(t->fn);
    if (t->st) {
        pg_stackids_free(&t->st->s);
        free(t->st->row);
        free(t->st);
    }
    free(t);
}

uint64_t pg_top_pct100(const pg_top *t, uint64_t part)
{
    /* The flamegraph's arithmetic (report/flamegraph.c, pct): same operations, same result. */
    double v = t->total ? (double)part * 100.0 / (double)t->total : 0.0;
    return (uint64_t)llround(v * 100.0);
}

static int compile(regex_t *re, const char *pattern, const char *option)
{
    int e = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    if (e == 0)
        return 0;
    char why[256];
    regerror(e, re, why, sizeof why);
    return pg_error_set(PG_EINVAL, "%s '%s': not a valid extended regular expression: %s", option, pattern, why);
}

/* Per function id: 1 when its name matches `re`. */
static int match_names(char **out, const pg_stackids *s, const regex_t *re)
{
    char *m = calloc(s->nnames ? s->nnames : 1, 1);
    if (!m)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->nnames; i++)
        m[i] = regexec(re, s->names[i], 0, NULL, 0) == 0;
    *out = m;
    return 0;
}

/* Which stacks the filters keep: per function id, whether it matches. */
typedef struct matches {
    const char *focus, *ignore;     /* NULL: that filter is not asked for */
} matches;

static int keep_stack(void *ctx, const uint32_t *ids, size_t len)
{
    const matches *m = ctx;
    int focused = !m->focus, ignored = 0;
    for (size_t k = 0; k < len; k++) {
        focused |= m->focus && m->focus[ids[k]];
        ignored |= m->ignore && m->ignore[ids[k]];
    }
    return focused && !ignored;
}

/* Drops from `s` the stacks the filters do not keep (order kept). */
static int filter(pg_stackids *s, const pg_top_opts *o)
{
    regex_t fre, ire;
    char *fm = NULL, *im = NULL;
    int have_f = 0, have_i = 0, rc = 0;
    if (o->focus && (rc = compile(&fre, o->focus, "--focus")) == 0)
        have_f = 1;
    if (rc == 0 && o->ignore && (rc = compile(&ire, o->ignore, "--ignore")) == 0)
        have_i = 1;
    if (rc == 0 && have_f)
        rc = match_names(&fm, s, &fre);
    if (rc == 0 && have_i)
        rc = match_names(&im, s, &ire);
    if (rc == 0 && (have_f || have_i))
        pg_stackids_filter(s, keep_stack, &(matches){fm, im});
    if (have_f)
        regfree(&fre);
    if (have_i)
        regfree(&ire);
    free(fm);
    free(im);
    return rc;
}

static int cmp_name(const char *a, const char *b) { return strcmp(a, b); }

/* Larger first by key1, then by key2, then by name. */
static int rank(uint64_t a1, uint64_t b1, uint64_t a2, uint64_t b2, const char *na, const char *nb)
{
    if (a1 != b1)
        return a1 > b1 ? -1 : 1;
    if (a2 != b2)
        return a2 > b2 ? -1 : 1;
    return cmp_name(na, nb);
}

static int by_self(const void *pa, const void *pb)
{
    const pg_top_fn *a = pa, *b = pb;
    return rank(a->self, b->self, a->total, b->total, a->name, b->name);
}

static int by_total(const void *pa, const void *pb)
{
    const pg_top_fn *a = pa, *b = pb;
    return rank(a->total, b->total, a->self, b->self, a->name, b->name);
}

/* Self and total per function of the kept stacks, then the rows. */
static int tabulate(pg_top *t, pg_top_sort sort)
{
    pg_stackids *s = &t->st->s;
    size_t nn = s->nnames ? s->nnames : 1;
    uint64_t *self = calloc(nn, sizeof *self), *total = calloc(nn, sizeof *total);
    size_t *stamp = calloc(nn, sizeof *stamp);
    int rc = 0;
    if (!self || !total || !stamp || !(t->st->row = calloc(nn, sizeof *t->st->row)))
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        uint64_t c = s->count[i];
        t->kept += c;
        self[s->ids[s->off[i + 1] - 1]] += c;
        for (size_t k = s->off[i]; k < s->off[i + 1]; k++) {
            uint32_t id = s->ids[k];
            if (stamp[id] == i + 1)
                continue;   /* recursion: once per stack */
            stamp[id] = i + 1;
            total[id] += c;
        }
    }
    for (size_t id = 0; id < s->nnames && rc == 0; id++)
        t->nfn += total[id] > 0 || stamp[id];
    if (rc == 0 && !(t->fn = calloc(t->nfn ? t->nfn : 1, sizeof *t->fn)))
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t id = 0; id < s->nnames && rc == 0; id++)
        if (total[id] > 0 || stamp[id])
            t->fn[n++] = (pg_top_fn){s->names[id], self[id], total[id]};
    if (rc == 0) {
        qsort(t->fn, t->nfn, sizeof *t->fn, sort == PG_TOP_SORT_TOTAL ? by_total : by_self);
        for (size_t r = 0; r < t->nfn; r++) {
            size_t id;
            pg_strindex_get(&s->index, t->fn[r].name, &id);
            t->st->row[id] = r + 1;
        }
    }
    free(self);
    free(total);
    free(stamp);
    return rc;
}

int pg_top_build(pg_top **out, pg_folded *f, const pg_top_opts *o)
{
    pg_top_opts none = {0};
    if (!o)
        o = &none;
    *out = NULL;
    pg_top *t = calloc(1, sizeof *t);
    if (!t || !(t->st = calloc(1, sizeof *t->st))) {
        free(t);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    t->total = pg_folded_total(f);
    int rc = 0;
    if (t->total == 0)
        rc = pg_error_set(PG_EINVAL, "no samples (an empty profile)");
    else
        rc = pg_stackids_build(&t->st->s, f);
    if (rc == 0)
        rc = filter(&t->st->s, o);
    if (rc == 0)
        rc = tabulate(t, o->sort);
    if (rc < 0) {
        pg_top_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

/* Edges of one side of the peek: per function id, the stacks (once each) in
 * which it is the neighbour of `fid` on that side. */
typedef struct edges {
    uint64_t *count;
    size_t *stamp;
} edges;

static int cmp_edge(const void *pa, const void *pb)
{
    const pg_top_edge *a = pa, *b = pb;
    return rank(a->count, b->count, 0, 0, a->name, b->name);
}

static int collect(pg_top_edge **out, size_t *nout, const pg_stackids *s, const uint64_t *count)
{
    size_t n = 0;
    for (size_t id = 0; id < s->nnames; id++)
        n += count[id] > 0;
    pg_top_edge *e = calloc(n ? n : 1, sizeof *e);
    if (!e)
        return pg_error_set(PG_ENOMEM, "out of memory");
    n = 0;
    for (size_t id = 0; id < s->nnames; id++)
        if (count[id])
            e[n++] = (pg_top_edge){s->names[id], count[id]};
    qsort(e, n, sizeof *e, cmp_edge);
    *out = e;
    *nout = n;
    return 0;
}

static int not_found(const pg_top *t, const char *name)
{
    size_t id;
    if (pg_strindex_get(&t->st->s.index, name, &id))
        return pg_error_set(PG_ENOTFOUND, "'%s' is in no stack that --focus/--ignore kept", name);
    pg_suggest sg;
    char buf[160];
    pg_suggest_init(&sg, name);
    for (size_t i = 0; i < t->nfn; i++)
        pg_suggest_offer(&sg, t->fn[i].name);
    return pg_error_set(PG_ENOTFOUND, "no function '%s' in the profile%s", name,
                        pg_suggest_clause(&sg, buf, sizeof buf));
}

int pg_top_peek_of(pg_top_peek *out, const pg_top *t, const char *name)
{
    memset(out, 0, sizeof *out);
    const pg_stackids *s = &t->st->s;
    size_t fid;
    if (!pg_strindex_get(&s->index, name, &fid) || !t->st->row[fid])
        return not_found(t, name);
    out->fn = &t->fn[t->st->row[fid] - 1];
    size_t nn = s->nnames;
    uint64_t *up = calloc(nn, sizeof *up), *down = calloc(nn, sizeof *down);
    size_t *sup = calloc(nn, sizeof *sup), *sdown = calloc(nn, sizeof *sdown);
    int rc = 0;
    if (!up || !down || !sup || !sdown)
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        int root = 0;
        for (size_t k = s->off[i]; k < s->off[i + 1]; k++) {
            if (s->ids[k] != fid)
                continue;
            if (k == s->off[i])
                root = 1;
            else if (sup[s->ids[k - 1]] != i + 1) {
                sup[s->ids[k - 1]] = i + 1;
                up[s->ids[k - 1]] += s->count[i];
            }
            if (k + 1 < s->off[i + 1] && sdown[s->ids[k + 1]] != i + 1) {
                sdown[s->ids[k + 1]] = i + 1;
                down[s->ids[k + 1]] += s->count[i];
            }
        }
        out->root += root ? s->count[i] : 0;
    }
    if (rc == 0)
        rc = collect(&out->callers, &out->ncallers, s, up);
    if (rc == 0)
        rc = collect(&out->callees, &out->ncallees, s, down);
    free(up);
    free(down);
    free(sup);
    free(sdown);
    if (rc < 0)
        pg_top_peek_free(out);
    return rc;
}

void pg_top_peek_free(pg_top_peek *p)
{
    free(p->callers);
    free(p->callees);
    memset(p, 0, sizeof *p);
}
