/* tests/unit/fixture_render.h — a comparison rendered into a string, for the
 * tests that read a report back. */
#ifndef PG_TESTS_FIXTURE_RENDER_H
#define PG_TESTS_FIXTURE_RENDER_H

#include "report/render.h"
#include "tests/check.h"

#include <stdio.h>

/* What `fn` writes for `c` (free() it); the renderer must succeed. */
static inline char *fx_render(int (*fn)(FILE *, const pg_comparison *), const pg_comparison *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_EQ_INT(fn(f, c), 0);
    fclose(f);
    return buf;
}

#endif
