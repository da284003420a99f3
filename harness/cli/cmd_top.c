/* harness/cli/cmd_top.c — `perfgate top`: the text view of one profile (folded
 * stacks), as pprof --text and perf report --stdio give it. */
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "report/render_top.h"
#include "report/top.h"
#include "util/error.h"
#include "util/folded.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate top",
    .usage = "usage: perfgate top [OPTIONS] FOLDED\n"
             "\n"
             "The functions of a profile by self and total cost, as pprof --text shows them.\n"
             "FOLDED is folded stacks ('root;...;leaf COUNT' lines: perfgate record --folded,\n"
             "stackcollapse-*.pl, inferno-collapse-*), or '-' for standard input. Columns:\n"
             "self (the stacks ending in the function), self%, sum% (running self%), total\n"
             "(the stacks the function is in, once however deep it recurses), total%.\n"
             "The numbers are the flamegraph's of the same file.\n",
    .footer = "See docs/top.md. Exit status: 0 printed, 2 bad arguments or input.\n",
};

int pg_cmd_top(pg_ctx *ctx, int argc, char **argv)
{
    static const char *const sorts[] = {"self", "total", NULL};
    static const char *const formats[] = {"text", "json", NULL};
    pg_top_opts o = {0};
    int sort = 0, json = 0, rows = 20, wide = 0, status;
    const char *callers = NULL, *callees = NULL;
    const pg_opt opts[] = {
        PG_OPT_CHOICE(0, "sort", "KEY", "self (default) or total", &sort, sorts),
        PG_OPT_INT('n', "rows", "N", "show the first N functions (default 20; 0: all)", &rows, 0, INT_MAX,
                   .what = "a whole number"),
        PG_OPT_STRING(0, "focus", "REGEX", "keep only stacks through a function matching REGEX\n"
                      "(POSIX extended; percentages stay of the whole profile)", &o.focus),
        PG_OPT_STRING(0, "ignore", "REGEX", "drop the stacks through a function matching REGEX", &o.ignore),
        PG_OPT_STRING(0, "callers", "FUNC", "who calls FUNC (its exact name), with counts", &callers),
        PG_OPT_STRING(0, "callees", "FUNC", "what FUNC calls, with counts", &callees),
        PG_OPT_FLAG(0, "wide", "print names whole (default: lines fit 80 columns,\n"
                    "long names cut in the middle with '...')", &wide),
        PG_OPT_CHOICE(0, "format", "F", "text (default) or json (the same rows)", &json, formats),
        PG_OPT_END(),
    };
    if (pg_cmd_parse(&status, ctx, &spec, opts, argc, argv))
        return status;
    int nargs = ctx->args.nargs;
    if (nargs == 0)
        return pg_die("no folded file given ('-' reads standard input); see 'perfgate top --help'");
    if (nargs > 1)
        return pg_die("one folded file expected, got %d; see 'perfgate top --help'", nargs);
    if (callers && callees && strcmp(callers, callees) != 0)
        return pg_die("--callers and --callees look at one function: give both the same name, or one of them");
    o.sort = sort ? PG_TOP_SORT_TOTAL : PG_TOP_SORT_SELF;
    const char *path = ctx->args.args[0], *peek = callers ? callers : callees;

    pg_folded *f = NULL;
    pg_top *t = NULL;
    int rc = pg_folded_new(&f);
    if (rc == 0)
        rc = pg_folded_read_path(f, path);
    if (rc == 0 && (rc = pg_top_build(&t, f, &o)) == PG_EINVAL && pg_folded_total(f) == 0)
        pg_error_wrap(rc, "%s", strcmp(path, "-") ? path : "<stdin>");
    pg_top_view v = {.source = strcmp(path, "-") ? path : "<stdin>", .opts = &o, .rows = (size_t)rows,
                     .wide = wide};
    if (rc == 0 && peek) {
        pg_top_peek p;
        if ((rc = pg_top_peek_of(&p, t, peek)) == 0) {
            rc = json ? pg_top_render_peek_json(stdout, t, &p, callers != NULL, callees != NULL, &v)
                      : pg_top_render_peek_text(stdout, t, &p, callers != NULL, callees != NULL, &v);
            pg_top_peek_free(&p);
        }
    } else if (rc == 0) {
        rc = json ? pg_top_render_json(stdout, t, &v) : pg_top_render_text(stdout, t, &v);
    }
    pg_top_free(t);
    pg_folded_free(f);
    return rc < 0 ? pg_die_last() : PG_EXIT_OK;
}
