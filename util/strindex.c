/* util/strindex.c — see strindex.h. Open addressing, linear probing, load <= 1/2. */
#include "util/strindex.h"
#include "util/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static size_t slot(const char **key, size_t cap, const char *k)
{
    size_t i = (size_t)hash(k) & (cap - 1);
    while (key[i] && strcmp(key[i], k))
        i = (i + 1) & (cap - 1);
    return i;
}

static int grow(pg_strindex *m, size_t cap)
{
    const char **key = calloc(cap, sizeof *key);
    size_t *val = malloc(cap * sizeof *val);
    if (!key || !val) {
        free(key);
        free(val);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    /* The keys are distinct: each goes to the first free slot of its probe,
     * with no string compared (a suite's 10^4 names are moved 8 times). */
    for (size_t i = 0; i < m->cap; i++) {
        if (m->key[i]) {
            size_t j = (size_t)hash(m->key[i]) & (cap - 1);
            while (key[j])
                j = (j + 1) & (cap - 1);
            key[j] = m->key[i];
            val[j] = m->val[i];
        }
    }
    free(m->key);
    free(m->val);
    m->key = key;
    m->val = val;
    m->cap = cap;
    return 0;
}

/* Room for one key more: load stays <= 1/2. */
static int room(pg_strindex *m)
{
    return (m->n + 1) * 2 > m->cap ? grow(m, m->cap ? m->cap * 2 : 64) : 0;
}

int pg_strindex_reserve(pg_strindex *m, size_t n)
{
    size_t cap = m->cap ? m->cap : 64;
    while (cap < 2 * n)
        cap *= 2;
    return cap > m->cap ? grow(m, cap) : 0;
}

int pg_strindex_put(pg_strindex *m, const char *key, size_t val)
{
    int rc = room(m);
    if (rc < 0)
        return rc;
    size_t i = slot(m->key, m->cap, key);
    if (!m->key[i]) {
        m->key[i] = key;
        m->n++;
    }
    m->val[i] = val;
    return 0;
}

int pg_strindex_add(pg_strindex *m, const char *key, size_t val, size_t *old)
{
    int rc = room(m);
    if (rc < 0)
        return rc;
    size_t i = slot(m->key, m->cap, key);
    if (m->key[i]) {
        *old = m->val[i];
        return 0;
    }
    m->key[i] = key;
    m->val[i] = val;
    m->n++;
    return 1;
}

int pg_strindex_get(const pg_strindex *m, const char *key, size_t *val)
{
    if (!m->cap)
        return 0;
    size_t i = slot(m->key, m->cap, key);
    if (!m->key[i])
        return 0;
    *val = m->val[i];
    return 1;
}

void pg_strindex_free(pg_strindex *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}
