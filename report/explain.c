/* report/explain.c — see explain.h and pg_compare_funcs() in compare.h.
 *
 * The per-function deltas and the diff SVGs themselves are computed by
 * report/funcdelta.h and report/flamegraph.h; this file only picks the
 * benchmarks, reads their stacks and names the outputs. */
#include "report/explain.h"
#include "util/error.h"
#include "util/fileio.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pg_explain_file_name(char *buf, size_t len, const char *bench)
{
    size_t o = 0;
    for (const char *s = bench; *s && o + 1 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        buf[o++] = isalnum(ch) || ch == '.' || ch == '-' || ch == '_' ? (char)ch : '_';
    }
    buf[o] = '\0';
    if (o == 0 || buf[0] == '.')    /* no hidden or empty names */
        buf[0] = '_', buf[o ? o : 1] = '\0';
}

static int wanted(const pg_bench_cmp *b)
{
    return b->stacks_a && b->stacks_b &&
           (b->verdict == PG_VERDICT_REGRESSED || b->verdict == PG_VERDICT_IMPROVED);
}

int pg_compare_funcs(pg_comparison *c, size_t top)
{
    (void)top;
    for (size_t i = 0; i < c->nbench; i++) {
        if (!wanted(&c->bench[i]))
            continue;
        /* Not yet: needs report/funcdelta.h (branch flame). */
    }
    return 0;
}

int pg_explain_flamegraphs(size_t *written, const pg_comparison *c, const char *dir)
{
    *written = 0;
    int any = 0;
    for (size_t i = 0; i < c->nbench; i++)
        any |= c->bench[i].verdict == PG_VERDICT_REGRESSED && c->bench[i].stacks_a && c->bench[i].stacks_b;
    if (!any)
        return 0;
    int rc = pg_mkdirs(dir);
    if (rc < 0)
        return rc;
    /* Not yet: needs report/flamegraph.h (branch flame). */
    return 0;
}
