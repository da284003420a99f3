/* report/series.c — see series.h. */
#include "report/series.h"
#include "util/error.h"

#include <stdlib.h>

int pg_series_push(pg_series *s, double v)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        double *nv = realloc(s->v, cap * sizeof *nv);
        if (!nv)
            return pg_error_set(PG_ENOMEM, "out of memory");
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = v;
    return 0;
}

void pg_side_free(pg_side *side)
{
    for (size_t i = 0; i < side->nb; i++) {
        pg_bench_result *b = &side->b[i];
        free(b->name);
        free(b->failure);
        free(b->stacks);
        cJSON_Delete(b->thresholds);
        for (size_t j = 0; j < b->nm; j++) {
            free(b->m[j].metric);
            free(b->m[j].unit);
            free(b->m[j].backend);
            free(b->m[j].source);
            free(b->m[j].v);
        }
        free(b->m);
    }
    free(side->b);
    side->b = NULL;
    side->nb = side->cap = 0;
}

const char *pg_verdict_name(pg_verdict v)
{
    switch (v) {
    case PG_VERDICT_IMPROVED: return "improved";
    case PG_VERDICT_REGRESSED: return "regressed";
    case PG_VERDICT_INCONCLUSIVE: return "inconclusive";
    default: return "unchanged";
    }
}
