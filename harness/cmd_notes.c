/* harness/cmd_notes.c — `perfgate push [REMOTE]` and `perfgate fetch [REMOTE]`:
 * the results in git notes (refs/notes/perfgate) through a git remote. */
#include "harness/commands.h"
#include "harness/notes.h"
#include "harness/notesync.h"
#include "util/error.h"

#include <limits.h>
#include <stdio.h>

static const pg_opt_cmd push_spec = {
    .prog = "perfgate push",
    .usage = "usage: perfgate push [OPTIONS] [REMOTE]\n"
             "\n"
             "Push the results kept in git notes (" PG_NOTES_REF ") to REMOTE (a remote's name,\n"
             "a URL or a path; default origin). Never forced: when the remote has notes this\n"
             "repository lacks (another job pushed first), they are fetched and merged by run id,\n"
             "and the push is tried again.\n",
    .footer = "Exit status: 0 pushed (or already there), 2 error (no notes, no remote, still\n"
              "rejected after every try: nothing is lost, push again).\n",
};

static const pg_opt_cmd fetch_spec = {
    .prog = "perfgate fetch",
    .usage = "usage: perfgate fetch [REMOTE]\n"
             "\n"
             "Fetch the results kept in REMOTE's git notes (" PG_NOTES_REF "; default origin)\n"
             "and merge them into this repository's, by run id: nothing here is replaced.\n",
    .footer = "Exit status: 0 fetched (also when the remote has none), 2 error.\n",
};

static const char *remote_arg(const pg_ctx *ctx)
{
    return ctx->args.nargs ? ctx->args.args[0] : "origin";
}

int pg_cmd_push(pg_ctx *ctx, int argc, char **argv)
{
    int tries = 10, status;
    const pg_opt opts[] = {
        PG_OPT_INT(0, "tries", "N", "pushes at most, each rejected one followed by a fetch and merge\n(default 10)",
                   &tries, 1, 1000),
        PG_OPT_END(),
    };
    if (pg_cmd_parse(&status, ctx, &push_spec, opts, argc, argv))
        return status;
    if (ctx->args.nargs > 1)
        return pg_die("push takes one remote; see 'perfgate push --help'");
    int used, uptodate;
    int rc = pg_ctx_repo(ctx);
    if (rc == 0)
        rc = pg_notes_push(&used, &uptodate, ctx->repo, remote_arg(ctx), tries);
    if (rc < 0)
        return pg_die_last();
    if (uptodate)
        printf("perfgate push: %s already has every note of %s\n", remote_arg(ctx), PG_NOTES_REF);
    else
        printf("perfgate push: %s -> %s (push %d)\n", PG_NOTES_REF, remote_arg(ctx), used);
    return PG_EXIT_OK;
}

int pg_cmd_fetch(pg_ctx *ctx, int argc, char **argv)
{
    int status;
    const pg_opt opts[] = {PG_OPT_END()};
    if (pg_cmd_parse(&status, ctx, &fetch_spec, opts, argc, argv))
        return status;
    if (ctx->args.nargs > 1)
        return pg_die("fetch takes one remote; see 'perfgate fetch --help'");
    int result;
    int rc = pg_ctx_repo(ctx);
    if (rc == 0)
        rc = pg_notes_fetch(&result, ctx->repo, remote_arg(ctx));
    if (rc < 0)
        return pg_die_last();
    static const char *const said[] = {
        [PG_FETCH_NONE] = "has no perfgate notes yet",
        [PG_FETCH_UPTODATE] = "has no notes this repository lacks",
        [PG_FETCH_MERGED] = "notes merged into " PG_NOTES_REF,
    };
    printf("perfgate fetch: %s %s\n", remote_arg(ctx), said[result]);
    return PG_EXIT_OK;
}
