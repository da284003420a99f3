/* report/render_table.c — the output formats of a comparison, one row each.
 * A new format is a render_<name>.c and a row here; `compare --format`'s
 * list of words comes from this table. */
#include "report/render.h"

#include <string.h>

static int markdown(FILE *out, const pg_comparison *c, const pg_render_opts *o) { return pg_render_markdown(out, c); }
static int json(FILE *out, const pg_comparison *c, const pg_render_opts *o) { return pg_render_json(out, c); }
static int junit(FILE *out, const pg_comparison *c, const pg_render_opts *o) { return pg_render_junit(out, c); }

const pg_renderer pg_renderers[] = {
    {"text", pg_render_text, 1},
    {"markdown", markdown, 0},
    {"json", json, 0},
    {"junit", junit, 0},
};
/* --format's words, in the table's order ("md" is markdown's other name). */
const char *const pg_renderer_names[] = {"text", "markdown|md", "json", "junit", NULL};
const size_t pg_nrenderers = sizeof pg_renderers / sizeof *pg_renderers;
_Static_assert(sizeof pg_renderers / sizeof *pg_renderers + 1 == sizeof pg_renderer_names / sizeof *pg_renderer_names,
               "one --format word per renderer");

const pg_renderer *pg_renderer_find(const char *name)
{
    for (size_t i = 0; i < pg_nrenderers; i++)
        if (!strcmp(pg_renderers[i].name, name))
            return &pg_renderers[i];
    return NULL;
}
