/* report/comparison.c — a comparison's own accessors. See comparison.h. */
#include "report/comparison.h"
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* *note's text (when appending), "; " when it has some, then the formatted
 * text: cut to max - 1 bytes. A printf-like function, so that the compiler
 * checks the format where the callers' literal is (clang's
 * -Wformat-nonliteral holds a vsnprintf of a format passed on to that). */
__attribute__((format(printf, 4, 0)))
static int note_put(char **note, size_t max, int append, const char *fmt, va_list ap)
{
    size_t len = append && *note ? strlen(*note) : 0;
    const char *sep = len ? "; " : "";
    if (max == 0 || len + 1 >= max)
        return 0;
    char *s = malloc(max);
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if (len)
        memcpy(s, *note, len);
    int n = snprintf(s + len, max - len, "%s", sep);
    if ((size_t)n < max - len)
        vsnprintf(s + len + (size_t)n, max - len - (size_t)n, fmt, ap);
    free(*note);
    *note = NULL;
    size_t total = strlen(s);
    if (!total) {
        free(s);            /* an empty note is no note */
        return 0;
    }
    char *fit = realloc(s, total + 1);
    *note = fit ? fit : s;
    return 0;
}

int pg_note_set(char **note, size_t max, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = note_put(note, max, 0, fmt, ap);
    va_end(ap);
    return rc;
}

int pg_note_add(char **note, size_t max, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = note_put(note, max, 1, fmt, ap);
    va_end(ap);
    return rc;
}

void pg_comparison_free(pg_comparison *c)
{
    for (size_t i = 0; c->bench && i < c->nbench; i++) {
        pg_bench_cmp *bc = &c->bench[i];
        for (size_t k = 0; bc->m && k < bc->nm; k++)
            free(bc->m[k].note);
        free(bc->m);
        free(bc->note);
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
