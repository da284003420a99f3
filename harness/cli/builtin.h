/* harness/cli/builtin.h — every command's entry point, as git's builtin.h.
 *
 * One prototype per `perfgate <command>`, defined in harness/cmd_<command>.c
 * (push and fetch share cmd_notes.c) and listed in the command table of
 * commands.c, which runs the set-up a command's flags ask for (PG_CMD_REPO,
 * PG_CMD_STORE) before calling it. Each takes the context the dispatcher
 * filled and its own arguments (argv[0] is the command's name), parses its
 * options, calls one layer below, and returns the process's exit status
 * (PG_EXIT_*, commands.h).
 */
#ifndef PG_HARNESS_BUILTIN_H
#define PG_HARNESS_BUILTIN_H

/* The context the dispatcher fills (harness/cli/commands.h); declared, not
 * included: commands.c includes this header for its table. */
struct pg_ctx;

int pg_cmd_run(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_compare(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_calibrate(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_show(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_push(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_fetch(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_bisect(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_backfill(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_history(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_record(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_flamegraph(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_top(struct pg_ctx *ctx, int argc, char **argv);
int pg_cmd_doctor(struct pg_ctx *ctx, int argc, char **argv);

#endif
