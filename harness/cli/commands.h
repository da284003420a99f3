/* harness/cli/commands.h — the subcommands of the perfgate program.
 *
 * Each command takes a context and the arguments after its own name (argv[0]
 * is the subcommand name), parses them with pg_cmd_parse against its option
 * table (util/parseopt.h), and returns the process exit status: 0 success,
 * 1 the measured thing failed or regressed, 2 a usage or environment error,
 * PG_EXIT_INTERRUPT when the user interrupted it. Errors are printed as one
 * line "perfgate: ..." on stderr by the command itself.
 *
 * What several commands need from their surroundings — the git repository of
 * the current directory, the result store — is declared by flags in the
 * command table (commands.c) and looked up in one place, at most once, by
 * pg_ctx_repo and pg_ctx_store. The lookup is on first use rather than
 * before the command starts so that `run` can probe the measuring backend
 * while libgit2 initialises on the other core.
 */
#ifndef PG_HARNESS_COMMANDS_H
#define PG_HARNESS_COMMANDS_H

#include "harness/store/gitfacts.h"
#include "harness/store/gitrepo.h"
#include "util/parseopt.h"

#include <limits.h>
#include <stdio.h>

/* Exit statuses shared by every command. */
enum { PG_EXIT_OK = 0, PG_EXIT_FAIL = 1, PG_EXIT_USAGE = 2 };
/* Interrupted by the user (SIGINT): 128 + SIGINT, as a shell reports it. A
 * macro so that help texts can say it: PG_XSTR(PG_EXIT_INTERRUPT). */
#define PG_EXIT_INTERRUPT 130

/* Command flags. */
enum {
    PG_CMD_REPO = 1,    /* may look up the git repository (pg_ctx_repo) */
    PG_CMD_STORE = 2,   /* takes --store DIR and may look up the store (pg_ctx_store); implies REPO */
};

typedef struct pg_ctx {
    const char *name;           /* the command's name: "run" */
    int flags;                  /* PG_CMD_* */
    pg_opt_args args;           /* operands, after pg_cmd_parse */
    const char *store_opt;      /* --store DIR (PG_CMD_STORE), NULL when not given */
    /* Filled by the lookups; released by the dispatcher after the command. */
    int repo_rc, store_rc;      /* 1: not looked up yet; else the lookup's result */
    char repo_err[512], store_err[512];
    char cwd[PATH_MAX];         /* the current directory ("." when unknown) */
    pg_repo *repo;              /* NULL: not in a repository */
    const char *workdir;        /* the work tree root with '/', NULL: none (bare, or no repository) */
    pg_repo_facts *facts;       /* set by a command that finds the repository on a thread of its
                                   own (`run`): pg_ctx_repo takes it from there (borrowed) */
    int workdir_rc;             /* pg_ctx_workdir: 1 not looked up, else a PG_WORKTREE_* */
    char workdir_found[PATH_MAX];   /* its answer, when found without libgit2 */
    char store[PATH_MAX];       /* the store root, "" when there is none */
} pg_ctx;

typedef struct pg_command {
    const char *name;
    int (*fn)(pg_ctx *ctx, int argc, char **argv);
    int flags;
    const char *summary;        /* one line for `perfgate --help` */
} pg_command;

/* The commands, in the order `perfgate --help` lists them. */
extern const pg_command pg_commands[];
extern const size_t pg_ncommands;

/* The command called `name`, or NULL. */
const pg_command *pg_command_find(const char *name);

/* Runs `cmd` on argv (argv[0] its name) with a fresh context, then releases
 * what the context looked up. Returns the exit status. */
int pg_command_exec(const pg_command *cmd, int argc, char **argv);

/* Parses the command's options: `opts` plus --store for PG_CMD_STORE commands.
 * 0: parsed, the operands in ctx->args. 1: the command is done, *status is its
 * exit status (PG_EXIT_OK after --help, PG_EXIT_USAGE after printing the error):
 *     int status;
 *     if (pg_cmd_parse(&status, ctx, &spec, opts, argc, argv))
 *         return status; */
int pg_cmd_parse(int *status, pg_ctx *ctx, const pg_opt_cmd *spec, const pg_opt *opts, int argc, char **argv);

/* Option callbacks (PG_OPT_CALLBACK) several commands share: -t M=PCT into a
 * pg_thresholds, --gate LIST into a pg_gates, --backend B into a pg_backend_kind. */
int pg_cmd_opt_threshold(const pg_opt *opt, const char *name, const char *arg);
int pg_cmd_opt_gates(const pg_opt *opt, const char *name, const char *arg);
int pg_cmd_opt_backend(const pg_opt *opt, const char *name, const char *arg);

/* --count-calls LIST (run, compare): repeatable, each LIST checked and
 * appended to the comma list `dest` points at (a pg_count_calls_arg). */
typedef struct pg_count_calls_arg {
    char list[1024];
} pg_count_calls_arg;
int pg_opt_count_calls(const pg_opt *opt, const char *name, const char *arg);
#define PG_OPT_COUNT_CALLS(dest, with)                                                                  \
    PG_OPT_CALLBACK(0, "count-calls", "LIST", with "count the calls of these functions (comma-separated,\n" \
                    "repeatable) as metrics calls:<fn> (docs/markers.md)", (dest), pg_opt_count_calls)

/* --pass-env LIST (every command that measures): repeatable, names of
 * variables (or prefixes ending in '*') of perfgate's environment that the
 * benchmarks get besides the fixed list (harness/measure/canon.h), each LIST
 * checked and appended to the comma list *dest (a char *, for pg_run_opts'
 * pass_env). */
int pg_opt_pass_env(const pg_opt *opt, const char *name, const char *arg);
#define PG_OPT_PASS_ENV(dest)                                                                                   \
    PG_OPT_LIST(0, "pass-env", "LIST", "pass these variables of perfgate's environment to the benchmarks\n"     \
                "(comma-separated names, or prefixes ending in '*'; repeatable);\n"                             \
                "they get only PATH, HOME, LANG, LC_*, TZ and a few more\n"                                     \
                "otherwise (docs/metrics.md, \"The execution context\")", (dest), .cb = pg_opt_pass_env)

/* One word for each across the commands: --manifest PATH is the benchmarks'
 * manifest (or a directory with one), --benchmark NAME one benchmark by name
 * (docs/manifest.md, "Options"). Names have no '/', a manifest's path names
 * something on disk: each option refuses the other's value, saying which to use. */
typedef struct pg_manifest_arg {
    const char *path;           /* NULL: not given */
    char typed[32];             /* the option as typed: "--manifest", or an old spelling */
} pg_manifest_arg;
int pg_cmd_opt_manifest(const pg_opt *opt, const char *name, const char *arg);
#define PG_MANIFEST_HELP "the benchmarks: a manifest, or a directory with one, applied\n" \
    "to every revision; default: bench at the work tree root"
/* In a work tree, a --manifest that names nothing on disk (a benchmark's
 * name, given to the wrong option) is PG_EINVAL saying what to use; in a bare
 * repository a relative path is each revision's own, and is not checked. */
int pg_cmd_check_manifest(pg_ctx *ctx, const pg_manifest_arg *m);
/* The manifest a command measuring revisions applies, into buf: --manifest as
 * every path on the command line (from the current directory), else bench at
 * the work tree root (`workdir`, NULL for a bare repository). Returns buf. */
const char *pg_cmd_manifest_path(char *buf, size_t len, const char *workdir, const pg_manifest_arg *m);
/* run and calibrate: their PATH operands, --manifest's first when given, into
 * a malloc'd *paths (free() it) of *n. */
int pg_cmd_paths(char ***paths, int *n, const pg_ctx *ctx, const pg_manifest_arg *m);
/* --benchmark NAME into a const char *: a path (with a '/') is refused,
 * pointing at --manifest. */
int pg_cmd_opt_benchmark(const pg_opt *opt, const char *name, const char *arg);

/* --build-timeout SEC (every command that builds): into the double `dest`. */
/* --jobs: exact counts of several benchmarks at once (harness/measure/jobs.h);
 * `dest` starts at -1, which pg_cmd_jobs turns into the default. */
#define PG_OPT_JOBS(dest)                                                                                    \
    PG_OPT_INT('j', "jobs", "N", "exact counts ({exact}) of N benchmarks at once; native runs stay\n"     \
               "one at a time (default: the CPUs perfgate may use, less one)", (dest), 1, 256)
/* -1 (not given) to the default: the CPUs perfgate may use, less the one its
 * native runs are pinned to; at least 1. */
int pg_cmd_jobs(int given);

#define PG_OPT_BUILD_TIMEOUT(dest)                                                                          \
    PG_OPT_DOUBLE(0, "build-timeout", "SEC", "kill the manifest's build command, and all it started, after\n" \
                  "SEC seconds (default: the manifest's \"build_timeout\", else 1800)", (dest), 0, 1e9)

/* The repository of the current directory, looked up on the first call: 0 with
 * ctx->repo and ctx->workdir set, or the same error (message set) on every call. */
int pg_ctx_repo(pg_ctx *ctx);

/* The work tree root (with '/'), or NULL outside one: from the file system
 * when that can tell (harness/store/worktree.h: no libgit2), else from
 * pg_ctx_repo. ctx->repo may still be NULL after it. */
const char *pg_ctx_workdir(pg_ctx *ctx);

/* The result store root into ctx->store, resolved on the first call: --store,
 * else $PERFGATE_STORE, else .perfgate/ at the work tree root (PG_ENOTFOUND
 * outside a repository). */
int pg_ctx_store(pg_ctx *ctx);

/* Prints "perfgate: <msg>\n" to stderr (msg printf-style, escaped for the
 * terminal: pg_text_warn) and returns PG_EXIT_USAGE, for `return pg_die("...")`
 * in a command. */
int pg_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, with pg_error_last() as the message. */
int pg_die_last(void);

/* The exit status for a failed step's code `rc`: PG_EXIT_INTERRUPT after
 * printing "perfgate: <message>" for PG_EINTR, else pg_die_last(). */
int pg_exit_status(int rc);

/* The callback of a repeatable `--metrics LIST` option: adds LIST's names to
 * the pg_metric_set at opt->dest; an unknown name is a usage error with a
 * suggestion. */
int pg_opt_metrics(const pg_opt *opt, const char *name, const char *arg);

/* The help text of `--metrics`, the same for run and compare. */
#define PG_METRICS_HELP "measure only these metrics (comma-separated, repeatable);\n" \
    "with {selects}, no cache-misses or branch-misses leaves out that\n" \
    "simulation: about twice as fast (default: all)"

/* PG_EINVAL "--cpu N: this machine has CPUs 0 to M" when `cpu` is not online. */
int pg_check_cpu(int cpu);

#endif
