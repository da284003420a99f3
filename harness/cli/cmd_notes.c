/* harness/cli/cmd_notes.c — `perfgate push [REMOTE]` and `perfgate fetch [REMOTE]`:
 * the results in git notes (refs/notes/perfgate, and the stacks in
 * refs/notes/perfgate-stacks) through a git remote. */
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/store/notes.h"
#include "harness/store/notes_stacks.h"
#include "harness/store/notesync.h"
#include "util/error.h"

#include <limits.h>
#include <stdio.h>

static const pg_opt_cmd push_spec = {
    .prog = "perfgate push",
    .usage = "usage: perfgate push [OPTIONS] [REMOTE]\n"
             "\n"
             "Push the results kept in git notes (" PG_NOTES_REF ", and " PG_NOTES_STACKS_REF "\n"
             "when there is one) to REMOTE (a remote's name, a URL or a path; default origin).\n"
             "Never forced: when the remote has notes this repository lacks (another job pushed\n"
             "first), they are fetched and merged by run id, and the push is tried again.\n",
    .footer = "Exit status: 0 pushed (or already there), 2 error (no notes, no remote, still\n"
              "rejected after every try: nothing is lost, push again).\n",
};

static const pg_opt_cmd fetch_spec = {
    .prog = "perfgate fetch",
    .usage = "usage: perfgate fetch [REMOTE]\n"
             "\n"
             "Fetch the results kept in REMOTE's git notes (" PG_NOTES_REF ", and its stacks in\n"
             PG_NOTES_STACKS_REF " when it has any; default origin) and merge them into this\n"
             "repository's, by run id: nothing here is replaced.\n",
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
    int rc = pg_ctx_repo(ctx);
    static const char *const refs[] = {PG_NOTES_REF, PG_NOTES_STACKS_REF};
    for (size_t i = 0; i < 2 && rc == 0; i++) {
        int used, uptodate;
        if (i == 1 && !pg_notes_exist(ctx->repo, refs[i]))
            break;                          /* no stacks in notes here: nothing more to push */
        if ((rc = pg_notes_push(&used, &uptodate, ctx->repo, remote_arg(ctx), refs[i], tries)) < 0)
            break;
        if (uptodate)
            printf("perfgate push: %s already has every note of %s\n", remote_arg(ctx), refs[i]);
        else
            printf("perfgate push: %s -> %s (push %d)\n", refs[i], remote_arg(ctx), used);
    }
    return rc < 0 ? pg_die_last() : PG_EXIT_OK;
}

int pg_cmd_fetch(pg_ctx *ctx, int argc, char **argv)
{
    int status;
    const pg_opt opts[] = {PG_OPT_END()};
    if (pg_cmd_parse(&status, ctx, &fetch_spec, opts, argc, argv))
        return status;
    if (ctx->args.nargs > 1)
        return pg_die("fetch takes one remote; see 'perfgate fetch --help'");
    int result, stacks;
    int rc = pg_ctx_repo(ctx);
    if (rc == 0)
        rc = pg_notes_fetch(&result, &stacks, ctx->repo, remote_arg(ctx));
    if (rc < 0)
        return pg_die_last();
    static const char *const said[] = {
        [PG_FETCH_NONE] = "has no perfgate notes yet",
        [PG_FETCH_UPTODATE] = "has no notes this repository lacks",
        [PG_FETCH_MERGED] = ("notes merged into " PG_NOTES_REF),
    };
    printf("perfgate fetch: %s %s\n", remote_arg(ctx), said[result]);
    if (stacks == PG_FETCH_MERGED)
        printf("perfgate fetch: %s stacks merged into %s\n", remote_arg(ctx), PG_NOTES_STACKS_REF);
    return PG_EXIT_OK;
}
