#include "report/funcdelta.h"
#include "util/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A pg_folded keyed by leaf name is a ready-made hash map from name to count. */
static int self_costs(pg_folded **out, pg_folded *f)
{
    int rc = pg_folded_new(out);
    if (rc < 0)
        return rc;
    const pg_folded_entry *e = pg_folded_entries(f);
    size_t n = pg_folded_count(f);
    if (n && !e)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *leaf = strrchr(e[i].stack, ';');
        rc = pg_folded_add(*out, leaf ? leaf + 1 : e[i].stack, e[i].count);
    }
    return rc;
}

static int row_cmp(const void *a, const void *b)
{
    const pg_funcdelta_row *x = a, *y = b;
    double dx = fabs(x->delta), dy = fabs(y->delta);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return strcmp(x->name, y->name);
}

int pg_funcdelta_compute(pg_funcdelta *out, pg_folded *before, pg_folded *after, size_t top_n, int normalize)
{
    memset(out, 0, sizeof *out);
    out->total_before = pg_folded_total(before);
    out->total_after = pg_folded_total(after);
    out->normalized = normalize ? 1 : 0;
    out->scale = 1.0;
    if (normalize && out->total_before > 0 && out->total_after > 0)
        out->scale = (double)out->total_after / (double)out->total_before;

    pg_folded *sb = NULL, *sa = NULL;
    int rc = self_costs(&sb, before);
    if (rc == 0)
        rc = self_costs(&sa, after);
    size_t nb = sb ? pg_folded_count(sb) : 0, na = sa ? pg_folded_count(sa) : 0;
    const pg_folded_entry *eb = rc == 0 ? pg_folded_entries(sb) : NULL;
    const pg_folded_entry *ea = rc == 0 ? pg_folded_entries(sa) : NULL;
    pg_funcdelta_row *rows = NULL;
    if (rc == 0 && ((nb && !eb) || (na && !ea) || !(rows = calloc(nb + na + 1, sizeof *rows))))
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    size_t i = 0, j = 0, n = 0;
    while (rc == 0 && (i < nb || j < na)) {
        int c = i == nb ? 1 : j == na ? -1 : pg_folded_stack_cmp(eb[i].stack, ea[j].stack);
        pg_funcdelta_row *r = &rows[n];
        const char *name = c <= 0 ? eb[i].stack : ea[j].stack;
        r->before = c <= 0 ? eb[i++].count : 0;
        r->after = c >= 0 ? ea[j++].count : 0;
        if (!(r->name = strdup(name))) {
            rc = pg_error_set(PG_ENOMEM, "out of memory");
            break;
        }
        n++;
        r->before_scaled = (double)r->before * out->scale;
        r->delta = (double)r->after - r->before_scaled;
        r->delta_pct = r->before_scaled > 0 ? r->delta * 100.0 / r->before_scaled : r->after ? HUGE_VAL : 0.0;
        r->share_before = out->total_before ? (double)r->before * 100.0 / (double)out->total_before : 0.0;
        r->share_after = out->total_after ? (double)r->after * 100.0 / (double)out->total_after : 0.0;
    }
    pg_folded_free(sb);
    pg_folded_free(sa);
    out->rows = rows;
    out->n = n;
    out->nfuncs = n;
    if (rc < 0) {
        pg_funcdelta_free(out);
        return rc;
    }
    qsort(rows, n, sizeof *rows, row_cmp);
    if (top_n && n > top_n) {
        for (size_t k = top_n; k < n; k++)
            free((char *)rows[k].name);
        out->n = top_n;
    }
    return 0;
}

void pg_funcdelta_free(pg_funcdelta *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free((char *)t->rows[i].name);
    free(t->rows);
    memset(t, 0, sizeof *t);
}
