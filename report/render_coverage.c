/* report/render_coverage.c — the coverage of the change as every format says it. See render.h. */
#include "report/coverage.h"
#include "report/format.h"
#include "report/render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void pg_render_coverage_summary(char *buf, size_t len, const pg_coverage *cv)
{
    size_t n = cv->nf;
    const char *fails = pg_coverage_fails(cv) ? " (--require-coverage: failing)" : "";
    if (!cv->mapped)
        snprintf(buf, len, "coverage unknown%s", fails);
    else if (cv->nuncovered && cv->nblind)
        snprintf(buf, len, "%zu of %zu changed function%s run by no benchmark with a function table, and %zu "
                 "benchmark%s without one: coverage unknown%s", cv->nuncovered, n, n == 1 ? "" : "s", cv->nblind,
                 cv->nblind == 1 ? "" : "s", fails);
    else if (cv->nuncovered)
        snprintf(buf, len, "%zu of %zu changed function%s not covered by any benchmark%s", cv->nuncovered, n,
                 n == 1 ? "" : "s", fails);
    else if (!n)
        snprintf(buf, len, "no function of the benchmarks' programs changed");
    else
        snprintf(buf, len, "%zu changed function%s, all covered", n, n == 1 ? "" : "s");
}

void pg_render_coverage_func(char *buf, size_t len, const pg_coverage *cv, const pg_cov_func *f)
{
    size_t o = (size_t)snprintf(buf, len, "%s: %s (%s:%d), %zu line%s changed", f->nbench ? "covered" : "not covered",
                                f->name, f->file, f->changed_at, f->nchanged, f->nchanged == 1 ? "" : "s");
    if (f->nin && (f->nin > 1 || strcmp(f->in[0], f->name)) && o < len)
        o += (size_t)snprintf(buf + o, len - o, "; inlined into %s%s", f->in[0], f->nin > 1 ? " and others" : "");
    for (size_t i = 0; i < f->nbench && o < len; i++) {
        char d[48] = "";
        if (!isnan(f->bench[i].delta))
            pg_format_with_unit(d, sizeof d, f->bench[i].delta, "count", 1);
        o += (size_t)snprintf(buf + o, len - o, "%s%s%s%s%s%s", i ? ", " : "; run by ", f->bench[i].name,
                              *d ? " (" : "", d, *d ? " " : "", *d ? cv->unit : "");
        if (*d && o < len)
            o += (size_t)snprintf(buf + o, len - o, ")");
        if (i == 7 && f->nbench > 8 && o < len) {
            snprintf(buf + o, len - o, " and %zu more", f->nbench - 8);
            break;
        }
    }
}
