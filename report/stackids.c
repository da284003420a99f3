/* report/stackids.c — see stackids.h. */
#include "report/stackids.h"
#include "util/array.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

void pg_stackids_free(pg_stackids *s)
{
    for (size_t i = 0; i < s->nnames; i++)
        free(s->names[i]);
    free(s->names);
    free(s->ids);
    free(s->off);
    free(s->count);
    pg_strindex_free(&s->index);
    memset(s, 0, sizeof *s);
}

/* The id of frame name[0..n), added when new. */
static int intern(uint32_t *id, pg_stackids *s, const char *name, size_t n)
{
    char small[256], *key = n < sizeof small ? small : malloc(n + 1);
    if (!key)
        return pg_error_set(PG_ENOMEM, "out of memory");
    memcpy(key, name, n);
    key[n] = '\0';
    size_t v;
    int rc = 0;
    if (pg_strindex_get(&s->index, key, &v)) {
        *id = (uint32_t)v;
    } else if (s->nnames >= UINT32_MAX) {
        rc = pg_error_set(PG_EINVAL, "too many distinct functions");
    } else if (pg_array_grow(&s->names, &s->capnames, s->nnames, sizeof *s->names, 256) < 0) {
        rc = PG_ENOMEM;
    } else if (!(s->names[s->nnames] = key == small ? strdup(key) : key)) {
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    } else {
        key = small;    /* owned by names[] now */
        *id = (uint32_t)s->nnames;
        rc = pg_strindex_put(&s->index, s->names[s->nnames], s->nnames);
        s->nnames++;
    }
    if (key != small)
        free(key);
    return rc;
}

/* Appends one stack's ids. */
static int add_stack(pg_stackids *s, const char *stack, uint64_t count)
{
    if (pg_array_grow(&s->count, &s->cap, s->n, sizeof *s->count, 256) < 0 ||
        pg_array_grow(&s->off, &s->capoff, s->n + 1, sizeof *s->off, 256) < 0)
        return PG_ENOMEM;
    if (s->n == 0)
        s->off[0] = 0;
    for (const char *p = stack;;) {
        const char *e = strchr(p, ';');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        uint32_t id;
        int rc = intern(&id, s, p, l);
        if (rc == 0 && pg_array_grow(&s->ids, &s->capids, s->nids, sizeof *s->ids, 1024) < 0)
            rc = PG_ENOMEM;
        if (rc < 0)
            return rc;
        s->ids[s->nids++] = id;
        if (!e)
            break;
        p = e + 1;
    }
    s->count[s->n++] = count;
    s->off[s->n] = s->nids;
    return 0;
}

int pg_stackids_build(pg_stackids *out, pg_folded *f)
{
    memset(out, 0, sizeof *out);
    size_t n = pg_folded_count(f);
    const pg_folded_entry *e = pg_folded_entries(f);
    if (n && !e)
        return pg_error_set(PG_ENOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (e[i].count)
            rc = add_stack(out, e[i].stack, e[i].count);
    if (rc < 0)
        pg_stackids_free(out);
    return rc;
}

void pg_stackids_filter(pg_stackids *s, int (*keep)(void *ctx, const uint32_t *ids, size_t len), void *ctx)
{
    size_t n = 0, nids = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t from = s->off[i], len = s->off[i + 1] - from;
        if (!keep(ctx, s->ids + from, len))
            continue;
        memmove(s->ids + nids, s->ids + from, len * sizeof *s->ids);
        s->count[n] = s->count[i];
        s->off[n] = nids;
        nids += len;
        n++;
    }
    s->n = n;
    s->nids = nids;
    if (s->off)
        s->off[n] = nids;
}
