#include "counters/readings.h"
#include "util/array.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pg_readings_add(pg_readings *r, const char *name, const char *unit, const char *backend,
                    double value, double running)
{
    int rc = pg_array_grow(&r->v, &r->cap, r->n, sizeof *r->v, 16);
    if (rc < 0)
        return rc;
    pg_reading *x = &r->v[r->n++];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    snprintf(x->unit, sizeof x->unit, "%s", unit);
    snprintf(x->backend, sizeof x->backend, "%s", backend);
    x->value = value;
    x->running = running;
    return 0;
}

const pg_reading *pg_readings_find(const pg_readings *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].name, name) == 0)
            return &r->v[i];
    return NULL;
}

void pg_readings_clear(pg_readings *r) { r->n = 0; }

void pg_readings_free(pg_readings *r)
{
    free(r->v);
    r->v = NULL;
    r->n = r->cap = 0;
}
