/* util/strpool.c — see strpool.h. */
#include "util/strpool.h"
#include "util/array.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

const char *pg_strpool_intern(pg_strpool *p, const char *s)
{
    size_t i;
    if (pg_strindex_get(&p->index, s, &i))
        return p->v[i];
    char *c = strdup(s);
    if (!c || pg_array_grow(&p->v, &p->cap, p->n, sizeof *p->v, 16) < 0 || pg_strindex_put(&p->index, c, p->n) < 0) {
        free(c);
        pg_error_set(PG_ENOMEM, "out of memory");
        return NULL;
    }
    p->v[p->n++] = c;
    return c;
}

void pg_strpool_free(pg_strpool *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
    pg_strindex_free(&p->index);
    memset(p, 0, sizeof *p);
}
