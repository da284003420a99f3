/* report/comparison.c — a comparison's own accessors. See comparison.h. */
#include "report/comparison.h"

#include <stdlib.h>
#include <string.h>

void pg_comparison_free(pg_comparison *c)
{
    for (size_t i = 0; c->bench && i < c->nbench; i++) {
        pg_bench_cmp *bc = &c->bench[i];
        free(bc->m);
        free(bc->div);
        for (size_t k = 0; k < bc->nfuncs; k++)
            free(bc->funcs[k].name);
        free(bc->funcs);
        free(bc->funcs_unit);
    }
    free(c->bench);
    free(c->added);
    free(c->vanished);
    free(c->missing);
    memset(c, 0, sizeof *c);
}

int pg_comparison_fails(const pg_comparison *c)
{
    return c->verdict == PG_VERDICT_REGRESSED || (c->fail_on_divergence && c->ndiverged > 0) ||
           c->coverage_fails;
}

const pg_bench_cmp *pg_comparison_find_bench(const pg_comparison *c, const char *name)
{
    for (size_t i = 0; i < c->nbench; i++)
        if (!strcmp(c->bench[i].name, name))
            return &c->bench[i];
    return NULL;
}

const pg_metric_cmp *pg_bench_cmp_metric(const pg_bench_cmp *b, const char *name)
{
    for (size_t i = 0; i < b->nm; i++)
        if (!strcmp(b->m[i].metric, name))
            return &b->m[i];
    return NULL;
}
