#include "harness/cli/commands.h"
#include "harness/measure/jobs.h"
#include "harness/cli/builtin.h"
#include "harness/measure/canon.h"
#include "counters/backend.h"
#include "harness/bench/bench.h"
#include "harness/store/store.h"
#include "harness/store/worktree.h"
#include "report/threshold.h"
#include "util/error.h"
#include "util/metrics.h"
#include "util/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


const pg_command pg_commands[] = {
    {"run", pg_cmd_run, PG_CMD_STORE, "measure benchmarks and store the results under the current commit"},
    {"compare", pg_cmd_compare, PG_CMD_STORE, "compare two commits' results: verdicts, exit 1 on a regression"},
    {"calibrate", pg_cmd_calibrate, PG_CMD_STORE, "measure the noise floor of every benchmark here (A/A runs), suggest thresholds"},
    {"show", pg_cmd_show, PG_CMD_STORE, "print the results stored for a commit (default HEAD)"},
    {"push", pg_cmd_push, PG_CMD_REPO, "push the results kept in git notes to a remote (merging, never forcing)"},
    {"fetch", pg_cmd_fetch, PG_CMD_REPO, "fetch a remote's results from its git notes and merge them"},
    {"bisect", pg_cmd_bisect, PG_CMD_STORE, "find the first commit between two that regressed (binary search)"},
    {"backfill", pg_cmd_backfill, PG_CMD_STORE, "measure and store every commit of a range that has no results here"},
    {"history", pg_cmd_history, PG_CMD_STORE, "write an HTML page of every benchmark over the commits of a range"},
    {"record", pg_cmd_record, 0, "sample one command's stacks and write a flamegraph"},
    {"flamegraph", pg_cmd_flamegraph, 0, "folded stacks as a flamegraph SVG (or a differential one), pprof or speedscope"},
    {"top", pg_cmd_top, PG_CMD_STORE, "a profile's functions by self and total cost, as pprof --text"},
    {"doctor", pg_cmd_doctor, 0, "say which backends and events work on this machine, and why not"},
};
const size_t pg_ncommands = sizeof pg_commands / sizeof pg_commands[0];

const pg_command *pg_command_find(const char *name)
{
    for (size_t i = 0; i < pg_ncommands; i++)
        if (!strcmp(pg_commands[i].name, name))
            return &pg_commands[i];
    return NULL;
}

int pg_command_exec(const pg_command *cmd, int argc, char **argv)
{
    pg_ctx ctx = {.name = cmd->name, .flags = cmd->flags, .repo_rc = 1, .store_rc = 1, .workdir_rc = 1};
    if (ctx.flags & PG_CMD_STORE)
        ctx.flags |= PG_CMD_REPO;
    /* libgit2 is opened by the first command that needs git (pg_ctx_repo),
     * or by `run`'s own thread (gitfacts.h); compare A.json B.json and show
     * FILE never open it (pg_ctx_workdir finds the store without it). */
    int status = cmd->fn(&ctx, argc, argv);
    pg_repo_free(ctx.repo);
    pg_opt_args_free(&ctx.args);
    return status;
}

static const char store_help[] = "result store (default: $PERFGATE_STORE, else .perfgate/\n"
                                 "at the work tree root)";

int pg_cmd_parse(int *status, pg_ctx *ctx, const pg_opt_cmd *spec, const pg_opt *opts, int argc, char **argv)
{
    /* The command's options, and those the dispatcher adds for every command of its kind. */
    size_t n = 0;
    while (opts[n].kind != PG_OPT_KIND_END)
        n++;
    pg_opt *all = malloc((n + 2) * sizeof *all);
    if (!all) {
        *status = pg_die("out of memory");
        return 1;
    }
    memcpy(all, opts, n * sizeof *all);
    /* Help texts name backends through the registry's words ({backends}...). */
    char (*helps)[1024] = calloc(n ? n : 1, sizeof *helps);
    if (!helps) {
        free(all);
        *status = pg_die("out of memory");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        if (all[i].help && strchr(all[i].help, '{'))
            all[i].help = pg_backend_expand(helps[i], sizeof helps[i], all[i].help);
    if (ctx->flags & PG_CMD_STORE)
        all[n++] = (pg_opt)PG_OPT_STRING(0, "store", "DIR", store_help, &ctx->store_opt);
    all[n] = (pg_opt)PG_OPT_END();
    int rc = pg_opt_parse(&ctx->args, spec, all, argc, argv);
    free(helps);
    free(all);
    *status = rc > 0 ? PG_EXIT_OK : rc < 0 ? pg_die_last() : PG_EXIT_OK;
    return rc != 0;
}

int pg_cmd_opt_threshold(const pg_opt *opt, const char *name, const char *arg)
{
    (void)name;
    return pg_thresholds_add(opt->dest, arg);
}

int pg_cmd_opt_gates(const pg_opt *opt, const char *name, const char *arg)
{
    (void)name;
    return pg_gates_parse(opt->dest, arg);
}

int pg_cmd_opt_backend(const pg_opt *opt, const char *name, const char *arg)
{
    (void)name;
    return pg_backend_parse(opt->dest, arg);
}

int pg_cmd_opt_manifest(const pg_opt *opt, const char *name, const char *arg)
{
    pg_manifest_arg *m = opt->dest;
    m->path = arg;
    snprintf(m->typed, sizeof m->typed, "%s", name);
    return 0;
}

int pg_cmd_check_manifest(pg_ctx *ctx, const pg_manifest_arg *m)
{
    struct stat st;
    if (!m->path || stat(m->path, &st) == 0 || !pg_ctx_workdir(ctx))
        return 0;
    return pg_error_set(PG_EINVAL, "%s '%s': no such file or directory (%s is the benchmarks' manifest, or a directory "
                        "with one; a benchmark's name is --benchmark NAME, in bisect)", m->typed, m->path, m->typed);
}

const char *pg_cmd_manifest_path(char *buf, size_t len, const char *workdir, const pg_manifest_arg *m)
{
    snprintf(buf, len, "%s%s", m->path || !workdir ? "" : workdir, m->path ? m->path : "bench");
    return buf;
}

int pg_cmd_paths(char ***paths, int *n, const pg_ctx *ctx, const pg_manifest_arg *m)
{
    *n = 0;
    *paths = malloc((size_t)(ctx->args.nargs + 1) * sizeof **paths);
    if (!*paths)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if (m->path)
        (*paths)[(*n)++] = (char *)m->path;
    for (int i = 0; i < ctx->args.nargs; i++)
        (*paths)[(*n)++] = ctx->args.args[i];
    return 0;
}

int pg_cmd_opt_benchmark(const pg_opt *opt, const char *name, const char *arg)
{
    if (strchr(arg, '/'))
        return pg_error_set(PG_EINVAL, "%s '%s': a benchmark's name has no '/': for the benchmarks' manifest, use "
                            "--manifest %s", name, arg, arg);
    *(const char **)opt->dest = arg;
    return 0;
}

int pg_opt_count_calls(const pg_opt *opt, const char *name, const char *arg)
{
    pg_count_calls_arg *d = opt->dest;
    const char *bad;
    int badlen;
    if (pg_count_calls_check(arg, &bad, &badlen) < 0)
        return pg_error_set(PG_EINVAL, "--%s: %s%.*s%s", name, badlen ? "'" : "no function names in '",
                            badlen ? badlen : (int)strlen(arg), badlen ? bad : arg,
                            badlen ? "' is not a function name" : "'");
    size_t used = strlen(d->list);
    if (used + strlen(arg) + 2 > sizeof d->list)
        return pg_error_set(PG_EINVAL, "--%s: too many functions", name);
    snprintf(d->list + used, sizeof d->list - used, "%s%s", used ? "," : "", arg);
    return 0;
}

int pg_opt_pass_env(const pg_opt *opt, const char *name, const char *arg)
{
    (void)opt;
    (void)name;
    return pg_canon_pass_env_check(arg);
}

/* A lookup's result, kept so that a second call gives the same answer. */
static int remember(int *rc_out, char *err, size_t len, int rc)
{
    *rc_out = rc;
    if (rc < 0)
        snprintf(err, len, "%s", pg_error_last());
    return rc;
}

static int replay(int rc, const char *err)
{
    return rc < 0 ? pg_error_set(rc, "%s", err) : rc;
}

int pg_ctx_repo(pg_ctx *ctx)
{
    if (ctx->repo_rc != 1)
        return replay(ctx->repo_rc, ctx->repo_err);
    if (!(ctx->flags & PG_CMD_REPO))
        return pg_error_set(PG_ERROR, "%s: the command table does not let it open the repository", ctx->name);
    int rc = 0;
    if (!getcwd(ctx->cwd, sizeof ctx->cwd)) {
        snprintf(ctx->cwd, sizeof ctx->cwd, ".");
        rc = pg_error_errno(PG_EIO, "cannot determine the current directory");
    }
    if (rc == 0)
        rc = ctx->facts ? pg_repo_facts_repo(&ctx->repo, ctx->facts) : pg_repo_open(&ctx->repo, ctx->cwd);
    if (rc == 0)
        ctx->workdir = pg_repo_workdir(ctx->repo);
    return remember(&ctx->repo_rc, ctx->repo_err, sizeof ctx->repo_err, rc);
}

const char *pg_ctx_workdir(pg_ctx *ctx)
{
    if (ctx->repo_rc != 1)
        return ctx->workdir;
    if (ctx->workdir_rc == 1) {
        char cwd[PATH_MAX];
        ctx->workdir_rc = getcwd(cwd, sizeof cwd) ? pg_worktree_find(ctx->workdir_found, sizeof ctx->workdir_found, cwd)
                                                  : PG_WORKTREE_ASK_GIT;
    }
    if (ctx->workdir_rc == PG_WORKTREE_FOUND)
        return ctx->workdir_found;
    if (ctx->workdir_rc == PG_WORKTREE_NONE)
        return NULL;
    pg_ctx_repo(ctx);
    pg_error_clear();
    return ctx->workdir;
}

int pg_ctx_store(pg_ctx *ctx)
{
    if (ctx->store_rc != 1)
        return replay(ctx->store_rc, ctx->store_err);
    if (!(ctx->flags & PG_CMD_STORE))
        return pg_error_set(PG_ERROR, "%s: the command table does not let it use the store", ctx->name);
    /* without a work tree, only --store or $PERFGATE_STORE say where */
    int rc = pg_store_root(ctx->store, sizeof ctx->store, ctx->store_opt, pg_ctx_workdir(ctx));
    if (rc < 0)
        ctx->store[0] = '\0';
    return remember(&ctx->store_rc, ctx->store_err, sizeof ctx->store_err, rc);
}

int pg_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pg_text_vwarn(fmt, ap);     /* messages quote names and file contents: escaped */
    va_end(ap);
    return PG_EXIT_USAGE;
}

int pg_die_last(void) { return pg_die("%s", pg_error_last()); }

int pg_exit_status(int rc)
{
    if (rc != PG_EINTR)
        return pg_die_last();
    pg_text_warn("%s", pg_error_last());
    return PG_EXIT_INTERRUPT;
}

int pg_opt_metrics(const pg_opt *opt, const char *name, const char *arg)
{
    return pg_metric_set_parse(opt->dest, arg);
}

int pg_check_cpu(int cpu)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpu >= ncpu)
        return pg_error_set(PG_EINVAL, "--cpu %d: this machine has CPUs 0 to %ld", cpu, ncpu - 1);
    return 0;
}

int pg_cmd_jobs(int given)
{
    if (given > 0)
        return given;
    int cpus = pg_jobs_cpus();
    return cpus > 1 ? cpus - 1 : 1;
}
