/* harness/cli/cmd_top.c — `perfgate top`: the text view of one profile (folded
 * stacks), as pprof --text and perf report --stdio give it. */
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/store/gitrepo.h"
#include "harness/store/results.h"
#include "report/render_top.h"
#include "report/top.h"
#include "util/error.h"
#include "util/folded.h"
#include "util/suggest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate top",
    .usage = "usage: perfgate top [OPTIONS] FOLDED\n"
             "       perfgate top [OPTIONS] REV:BENCHMARK\n"
             "\n"
             "The functions of a profile by self and total cost, as pprof --text shows them.\n"
             "FOLDED is folded stacks ('root;...;leaf COUNT' lines: perfgate record --folded,\n"
             "stackcollapse-*.pl, inferno-collapse-*), or '-' for standard input. Columns:\n"
             "self (the stacks ending in the function), self%, sum% (running self%), total\n"
             "(the stacks the function is in, once however deep it recurses), total%.\n"
             "The numbers are the flamegraph's of the same file. REV:BENCHMARK reads the\n"
             "stacks a run with --sample stored for the benchmark at that revision.\n",
    .footer = "See docs/top.md. Exit status: 0 printed, 2 bad arguments or input.\n",
};

/* The stacks stored for BENCHMARK at REV (`which` is "REV:BENCHMARK"): those
 * of the last run read (pg_results_load: the store's, then the note's) that
 * has them. Their weight goes to *unit. */
static int load_stored(pg_folded *f, char **unit, pg_ctx *ctx, const char *which)
{
    const char *colon = strchr(which, ':');
    char rev[256], commit[PG_OID_HEXSZ + 1];
    snprintf(rev, sizeof rev, "%.*s", (int)(colon - which), which);
    const char *name = colon + 1;
    pg_rundoc_list runs = {0};
    int rc = pg_ctx_repo(ctx);
    if (rc == 0)
        rc = pg_repo_resolve(commit, ctx->repo, rev);
    if (rc == 0 && pg_ctx_store(ctx) < 0)
        ctx->store[0] = '\0';      /* no store: the notes alone */
    if (rc == 0 && (rc = pg_results_load(&runs, ctx->store, ctx->repo, commit)) == PG_ENOTFOUND)
        pg_error_set(rc, "no results stored for %s (%.12s); run 'perfgate run --sample' on it first", rev, commit);
    const pg_rundoc_bench *found = NULL, *named = NULL;
    pg_suggest sg;
    pg_suggest_init(&sg, name);
    for (size_t i = 0; i < runs.n && rc == 0; i++)
        for (size_t b = 0; b < runs.v[i].nbench; b++) {
            const pg_rundoc_bench *rb = &runs.v[i].bench[b];
            pg_suggest_offer(&sg, rb->name);
            if (strcmp(rb->name, name) != 0)
                continue;
            named = rb;
            if (rb->stacks && *rb->stacks)
                found = rb;
        }
    char path[4096 + 256], buf[160];
    if (rc == 0 && !named)
        rc = pg_error_set(PG_ENOTFOUND, "no benchmark '%s' in the results of %s%s", name, rev,
                          pg_suggest_clause(&sg, buf, sizeof buf));
    else if (rc == 0 && !found)
        rc = pg_error_set(PG_ENOTFOUND, "%s:%s has no stacks%s%s", rev, name,
                          named->stacks_error ? ": " : " (record them with 'perfgate run --sample')",
                          named->stacks_error ? named->stacks_error : "");
    if (rc == 0)
        rc = pg_results_stacks_path(path, sizeof path, found->stacks, ctx->store);
    if (rc == 0)
        rc = pg_folded_read_file(f, path);
    if (rc == 0 && found->stacks_weight && !(*unit = strdup(found->stacks_weight)))
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    pg_rundoc_list_free(&runs);
    return rc;
}

/* FOLDED, '-', or REV:BENCHMARK when no file has that name. */
static int load(pg_folded *f, char **unit, pg_ctx *ctx, const char *arg)
{
    struct stat st;
    if (strcmp(arg, "-") == 0 || !strchr(arg, ':') || stat(arg, &st) == 0)
        return pg_folded_read_path(f, arg);
    return load_stored(f, unit, ctx, arg);
}

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
    char *unit = NULL;
    int rc = pg_folded_new(&f);
    if (rc == 0)
        rc = load(f, &unit, ctx, path);
    if (rc == 0 && (rc = pg_top_build(&t, f, &o)) == PG_EINVAL && pg_folded_total(f) == 0)
        pg_error_wrap(rc, "%s", strcmp(path, "-") ? path : "<stdin>");
    pg_top_view v = {.source = strcmp(path, "-") ? path : "<stdin>", .unit = unit, .opts = &o,
                     .rows = (size_t)rows, .wide = wide};
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
    free(unit);
    return rc < 0 ? pg_die_last() : PG_EXIT_OK;
}
