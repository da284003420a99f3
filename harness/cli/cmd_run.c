/* harness/cli/cmd_run.c — `perfgate run`: measure, store under the current commit, print. */
#include "counters/backend.h"
#include "counters/probe.h"
#include "counters/sampler.h"
#include "harness/bench/bench.h"
#include "harness/measure/gbench_list.h"
#include "harness/measure/build.h"
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/store/gitrepo.h"
#include "harness/store/leftovers.h"
#include "harness/store/machine.h"
#include "harness/store/notes.h"
#include "harness/store/notes_record.h"
#include "harness/store/notes_stacks.h"
#include "harness/measure/reuse.h"
#include "harness/measure/runner.h"
#include "harness/measure/session.h"
#include "harness/bench/shard.h"
#include "harness/measure/stacks.h"
#include "harness/store/store.h"
#include "util/error.h"
#include "util/text.h"
#include "util/fileio.h"
#include "util/jsonfile.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate run",
    .usage = "usage: perfgate run [OPTIONS] [PATH...] [-- CMD [ARG...]]\n"
             "\n"
             "Measure benchmarks and store the results under the current git commit.\n"
             "PATH is a directory (its perfgate.json manifest, else every executable file in it),\n"
             "a manifest file, or an executable. With no PATH and no CMD: bench/.\n",
    .footer = "Exit status: 0 every benchmark ran, 1 one failed (crash, timeout, non-zero exit),\n"
              "2 usage or environment error, " PG_XSTR(PG_EXIT_INTERRUPT) " interrupted (nothing stored).\n",
    .rest = 1,
};

/* What the command line asked for. */
typedef struct run_args {
    pg_run_opts ro;
    char *events;               /* owned by ctx->args */
    const char *filter;
    pg_backend_kind backend;
    int json, no_store, no_build, user_only, no_notes, no_native, notes_stacks, reuse;
    pg_shard shard;
    pg_count_calls_arg calls;
} run_args;

/* Everything a run holds, released by run_state_free whatever happened. */
typedef struct run_state {
    pg_benchset set;
    pg_session sess;
    pg_rundoc doc;
    pg_rundoc_list reuse;       /* --reuse-unchanged: what may be reused */
    pg_stacks *stacks;
    pg_owned_dir logs;          /* stored runs: this run's logs in the store */
    char logdir[PATH_MAX + 16], stacks_dir[PATH_MAX * 2];
    char commit[PG_OID_HEXSZ + 1];
    int dirty, have_commit, have_store, stored, nfailed;
} run_state;

static int parse_shard(const pg_opt *opt, const char *name, const char *arg)
{
    return pg_shard_parse(opt->dest, arg);
}

/* 0, or 1 with the exit status in *status. */
static int parse_args(int *status, run_args *a, pg_ctx *ctx, int argc, char **argv)
{
    static const char *const formats[] = {"text", "json", NULL};
    *a = (run_args){.ro = {.repeat = -1, .warmup = -1, .cpu = -1, .round = -1, .sample_freq = PG_SAMPLE_FREQ_DEFAULT,
                           .jobs = -1},
                    .backend = PG_BACKEND_AUTO, .user_only = 1};
    const pg_opt opts[] = {
        PG_OPT_INT('r', "repeat", "N", "measured runs per benchmark (default: 5 perf, 1 valgrind)", &a->ro.repeat, 1,
                   INT_MAX),
        PG_OPT_INT('w', "warmup", "N", "unmeasured runs first (default: 1 perf, 0 valgrind)", &a->ro.warmup, 0, INT_MAX),
        PG_OPT_INT(0, "cpu", "N", "pin benchmarks to CPU N (default: chosen, and named)", &a->ro.cpu, 0, INT_MAX),
        PG_OPT_JOBS(&a->ro.jobs),
        PG_OPT_SET_INT(0, "no-pin", "do not pin", &a->ro.cpu, -2),
        PG_OPT_LIST('e', "events", "LIST", "perf events, comma-separated libpfm4 names (repeatable)\n"
                    "(default instructions,cycles,cache-misses,branch-misses)", &a->events),
        PG_OPT_CALLBACK(0, "backend", "B", "auto (default), perf or valgrind", &a->backend, pg_cmd_opt_backend),
        PG_OPT_CALLBACK(0, "metrics", "LIST", PG_METRICS_HELP, &a->ro.metrics, pg_opt_metrics),
        PG_OPT_FLAG(0, "no-native", "valgrind backend: do not also run each benchmark natively for\n"
                    "task-clock and wall-time (docs/metrics.md)", &a->no_native),
        PG_OPT_INT(0, "native-repeat", "N", "valgrind backend: native runs per benchmark (default: --repeat,\n"
                   "else 5)", &a->ro.native_repeat, 1, INT_MAX),
        PG_OPT_SET_INT(0, "all-events", "count kernel-mode too (default: user space only)", &a->user_only, 0),
        PG_OPT_DOUBLE(0, "timeout", "SEC", "kill a benchmark's process group after SEC seconds", &a->ro.timeout, 0,
                      HUGE_VAL, .what = "a number of seconds > 0"),
        PG_OPT_INT(0, "sample", "HZ", "also sample stacks (default " PG_XSTR(PG_SAMPLE_FREQ_DEFAULT) " Hz) and store them",
                   &a->ro.sample_freq, 1, INT_MAX, .flags = PG_OPT_OPTARG, .seen = &a->ro.sample),
        PG_OPT_COUNT_CALLS(&a->calls, ""),
        PG_OPT_PASS_ENV(),
        PG_OPT_BUILD_TIMEOUT(&a->ro.build_timeout),
        PG_OPT_STRING(0, "filter", "REGEX", "only benchmarks whose name matches (extended regex)", &a->filter),
        PG_OPT_CALLBACK(0, "shard", "I/N", "only part I of N of the benchmarks (after --filter), balanced by\n"
                        "the wall times stored for the nearest ancestor that has some", &a->shard, parse_shard),
        PG_OPT_FLAG(0, "no-store", "measure and print, store nothing", &a->no_store),
        PG_OPT_FLAG(0, "no-notes", "store in the local store only, not in git notes (" PG_NOTES_REF ")",
                    &a->no_notes),
        PG_OPT_FLAG(0, "notes-stacks", "with --sample: put the stacks in git notes too (" PG_NOTES_STACKS_REF "),\n"
                    "each benchmark's up to 1 MiB of folded text (git config perfgate.notesStacks)",
                    &a->notes_stacks),
        PG_OPT_FLAG(0, "no-build", "do not run the manifest's build command first", &a->no_build),
        PG_OPT_FLAG(0, "reuse-unchanged", "valgrind backend: take a stored result's exact counts for a\n"
                    "benchmark whose executable, shared objects, arguments, input files\n"
                    "and environment are byte for byte the same (docs/metrics.md)", &a->reuse),
        PG_OPT_CHOICE(0, "format", "F", "text (default) or json (the run document, on stdout)", &a->json, formats),
        PG_OPT_FLAG('v', "verbose", "show backend-specific metrics too", &a->ro.verbose),
        PG_OPT_END(),
    };
    if (pg_cmd_parse(status, ctx, &spec, opts, argc, argv))
        return 1;
    if (a->notes_stacks && (!a->ro.sample || a->no_notes)) {
        *status = pg_die("--notes-stacks puts the stacks of --sample in git notes: it needs --sample, and not "
                         "--no-notes");
        return 1;
    }
    a->ro.count_calls = a->calls.list[0] ? a->calls.list : NULL;
    a->ro.jobs = pg_cmd_jobs(a->ro.jobs);
    return 0;
}

/* With no PATH and no command: bench/, which must be there. */
static int check_default_dir(const pg_opt_args *args)
{
    if (args->nargs || args->dashdash || access("bench", F_OK) == 0)
        return 0;
    char cwd[PATH_MAX];
    return pg_error_set(PG_ENOTFOUND,
                        "nothing to run: no bench/ in %s (looked for bench/perfgate.json, or executables in bench/); "
                        "make bench/perfgate.json (docs/manifest.md), or name them: perfgate run PATH... or perfgate run -- CMD",
                        getcwd(cwd, sizeof cwd) ? cwd : ".");
}

/* The benchmarks the operands and the command after "--" name. A manifest
 * outside the work tree names the work tree's files (bench.h). */
static int select_benchmarks(run_state *st, const run_args *a, pg_ctx *ctx)
{
    const pg_opt_args *args = &ctx->args;
    int in_repo = pg_ctx_repo(ctx) == 0 && ctx->workdir;
    pg_error_clear();
    int rc = pg_bench_select(&st->set, args->args, args->nargs, !args->dashdash, in_repo ? ctx->workdir : NULL);
    if (rc == 0 && args->nrest > 0)
        rc = pg_bench_add_command(&st->set, args->rest, args->nrest);
    if (rc == 0 && args->dashdash && args->nrest == 0)
        rc = pg_error_set(PG_EINVAL, "nothing after '--': give the command to run");
    return rc;
}

/* After the build: Google Benchmark suites listed (they need their
 * executables), then --filter over every benchmark's name. */
static int expand_benchmarks(run_state *st, const run_args *a)
{
    int rc = pg_benchset_expand(&st->set);
    if (rc == 0 && a->filter) {
        rc = pg_benchset_filter(&st->set, a->filter);
        if (rc == 0 && st->set.n == 0)
            rc = pg_error_set(PG_ENOTFOUND, "--filter '%s' matches no benchmark", a->filter);
    }
    return rc;
}

/* The commit results are keyed to, and the store they go to (outside a
 * repository: no commit, and a store only when one is named). */
static void locate_results(run_state *st, const run_args *a, pg_ctx *ctx)
{
    int in_repo = pg_ctx_repo(ctx) == 0;
    st->have_commit = in_repo && pg_repo_head(st->commit, &st->dirty, ctx->repo) == 0;
    st->have_store = !a->no_store && pg_ctx_store(ctx) == 0;
    if (!st->have_commit && !a->no_store)
        fprintf(stderr, "perfgate: note: %s: results are keyed to no commit%s\n",
                in_repo ? "the repository has no commit yet" : "not in a git repository",
                st->have_store ? "" : " and not stored (give --store DIR to keep them)");
}

/* --shard I/N: this shard's benchmarks only. */
static int select_shard(run_state *st, const run_args *a, pg_ctx *ctx)
{
    if (!a->shard.count)
        return 0;
    pg_rundoc_list hist = {0};
    char from[PG_OID_HEXSZ + 1] = "";
    size_t all = st->set.n;
    int balanced = 0;
    int rc = pg_shard_history(&hist, from, st->have_commit ? ctx->repo : NULL, st->have_store ? ctx->store : NULL,
                              st->have_commit ? st->commit : NULL);
    if (rc == 0)
        rc = pg_shard_select(&st->set, &balanced, &a->shard, &hist);
    pg_rundoc_list_free(&hist);
    if (rc == 0 && !a->json) {
        if (balanced)
            printf("shard %d/%d: %zu of %zu benchmarks, balanced by the wall times stored for %.12s\n", a->shard.index,
                   a->shard.count, st->set.n, all, from);
        else
            printf("shard %d/%d: %zu of %zu benchmarks, dealt by name (no stored wall times)\n", a->shard.index,
                   a->shard.count, st->set.n, all);
    }
    return rc;
}

/* The manifest's build command, run from the work tree root (else the manifest's directory). */
static int build(const run_state *st, const run_args *a, const pg_ctx *ctx)
{
    if (!st->set.build || a->no_build)
        return 0;
    char mdir[PATH_MAX], log[PATH_MAX + 128];
    pg_path_dirname(mdir, sizeof mdir, st->set.build_manifest);
    /* Into the store's logs, beside the runs' (a run without a store: $TMPDIR). */
    if (st->have_store)
        snprintf(log, sizeof log, "%s/logs/%s/build.log", ctx->store, st->have_commit ? st->commit : PG_NO_COMMIT);
    pg_build b = {.cmd = st->set.build, .dir = ctx->workdir ? ctx->workdir : mdir,
                  .timeout = pg_build_timeout(a->ro.build_timeout, st->set.build_timeout),
                  .log = st->have_store ? log : NULL};
    return pg_build_run(&b);
}

static int choose_cpu(pg_run_opts *ro)
{
    if (ro->cpu == -1)
        ro->cpu = pg_runner_pick_cpu();
    else if (ro->cpu >= 0)
        return pg_check_cpu(ro->cpu);
    return 0;
}

/* Logs go to the store, or else to a temporary directory kept only for a failure's logs. */
static int open_logs(run_state *st, run_args *a, const pg_ctx *ctx)
{
    if (st->have_store) {
        /* (the run's own log directory is made with its run id: open_run_dirs) */
        /* What a killed perfgate left goes first: it may be what fills the store. */
        pg_leftovers_sweep(ctx->store);
        /* A read-only or full store, or a store document that cannot be
         * appended to, is an environment error before anything runs:
         * measuring first would lose the measurements. */
        int rc = pg_store_check(ctx->store, st->have_commit ? st->commit : NULL, st->sess.machine.id);
        if (rc < 0)
            return rc;
    } else {
        pg_leftovers_sweep(NULL);     /* what a killed perfgate left in TMPDIR */
        int rc = pg_mkdtemp(st->logdir, sizeof st->logdir, "perfgate-logs-");
        if (rc < 0)
            return rc;
    }
    a->ro.log_dir = st->logdir;
    a->ro.tree = ctx->workdir;
    a->ro.progress = isatty(2);
    a->ro.out = a->json ? NULL : stdout;
    return 0;
}

static void print_header(const run_state *st, const run_args *a)
{
    if (a->json)
        return;
    printf("perfgate run: %zu benchmark%s, backend %s, ", st->set.n, st->set.n == 1 ? "" : "s",
           pg_backend_name(st->sess.backend));
    if (a->ro.cpu >= 0)
        printf("pinned to CPU %d", a->ro.cpu);
    else
        printf("not pinned");
    if (st->have_commit)
        printf(", commit %.12s%s\n\n", st->commit, st->dirty ? " (dirty work tree)" : "");
    else
        printf(", no commit\n\n");
    fflush(stdout);
}

/* Logs and stacks are written into the store, in directories of this run's
 * own, removed again by run_state_free when the run is not stored. */
static int open_run_dirs(run_state *st, run_args *a, const pg_ctx *ctx)
{
    int rc;
    const char *commit = st->have_commit ? st->commit : NULL;
    if (st->have_store) {
        if ((rc = pg_store_logs_open(&st->logs, ctx->store, commit, st->sess.machine.id, st->doc.id)) < 0)
            return rc;
        a->ro.log_dir = st->logs.path;
    }
    if (!a->ro.sample)
        return 0;
    if (st->have_store) {
        const char *id = st->doc.id;
        rc = pg_stacks_new_in_store(&st->stacks, st->stacks_dir, sizeof st->stacks_dir, st->sess.backend,
                                    a->ro.sample_freq, ctx->store, commit, st->sess.machine.id, id);
    } else {
        snprintf(st->stacks_dir, sizeof st->stacks_dir, "%s/stacks", st->logdir);
        rc = pg_stacks_new(&st->stacks, st->sess.backend, a->ro.sample_freq, st->stacks_dir, st->stacks_dir);
    }
    a->ro.stacks = st->stacks;
    return rc;
}

static int measure(run_state *st, const run_args *a)
{
    int rc = pg_runner_run(&st->doc, &st->nfailed, &st->set, st->sess.meter, &a->ro);
    if (rc == 0)
        rc = pg_session_finish_doc(&st->sess, &st->doc);
    if (rc == PG_EINTR)
        return pg_error_set(PG_EINTR, "interrupted; nothing was stored");
    return rc;
}

/* Stores the run document (when there is a store) and prints it or where it went. */
static int store_results(run_state *st, const run_args *a, pg_ctx *ctx)
{
    if (st->have_store) {
        char path[PATH_MAX + 64];
        int rc = pg_store_append(path, sizeof path, ctx->store, st->have_commit ? st->commit : NULL,
                                 st->sess.machine.id, &st->doc);
        if (rc < 0)
            return rc;
        st->stored = 1;
        pg_stacks_keep(st->stacks);
        if (!a->json) {
            printf("stored: %s\n", path);
            if (st->stacks_dir[0] && !access(st->stacks_dir, F_OK))
                printf("stacks: %s/\n", st->stacks_dir);
        }
        if (st->have_commit && !a->no_notes)
            pg_notes_record(ctx->repo, &st->doc, ctx->store, a->notes_stacks);
    } else if (a->ro.sample && !a->json) {
        printf("stacks (not stored): %s/\n", st->stacks_dir);
    }
    if (a->json) {
        char *text;
        int rc = pg_rundoc_write(&text, &st->doc);
        if (rc < 0)
            return rc;
        fputs(text, stdout);
        free(text);
    }
    return 0;
}

static void run_state_free(run_state *st, const run_args *a)
{
    pg_stacks_free(st->stacks);     /* with its directory in the store, unless the run was stored */
    pg_owned_release(&st->logs, !st->stored);
    if (!st->have_store && st->logdir[0] && !st->nfailed && !a->ro.sample)
        pg_remove_tree(st->logdir);         /* temporary, worth keeping only for a failure's logs */
    pg_rundoc_free(&st->doc);
    pg_rundoc_list_free(&st->reuse);
    pg_session_close(&st->sess);
    pg_benchset_free(&st->set);
}

/* How to measure, before a long build, so that a bad event name fails at
 * once (and while libgit2 initialises on the other core); then what to run,
 * which needs the work tree, and this shard's part of it (*empty: none). */
static int prepare(int *empty, run_state *st, run_args *a, pg_ctx *ctx)
{
    int rc = check_default_dir(&ctx->args);
    if (rc == 0)
        rc = pg_session_open(&st->sess, a->backend, a->events, a->user_only);
    if (rc == 0 && !a->no_native)
        rc = pg_session_open_native(&st->sess);
    a->ro.native = st->sess.native;
    if (rc == 0)
        rc = select_benchmarks(st, a, ctx);
    if (rc < 0)
        return rc;
    pg_session_tell(&st->sess);      /* after the benchmarks: bad input is said in one line */
    locate_results(st, a, ctx);
    rc = select_shard(st, a, ctx);
    if (rc == 0 && a->reuse && !st->sess.props->exact)
        pg_text_warn("note: --reuse-unchanged: the %s backend's counts depend on the machine's load, so every "
                     "benchmark is measured", pg_backend_name(st->sess.backend));
    if (rc == 0 && a->reuse && st->have_commit) {
        rc = pg_reuse_candidates(&st->reuse, ctx->repo, st->have_store ? ctx->store : NULL, st->commit);
        a->ro.reuse_from = &st->reuse;
        a->ro.reuse_machine = st->sess.machine.id;
    }
    if (rc == 0 && st->set.n == 0) {
        fprintf(stderr, "perfgate: shard %d/%d has no benchmark (the suite has fewer than %d); nothing to run\n",
                a->shard.index, a->shard.count, a->shard.count);
        *empty = 1;
    }
    return rc;
}

int pg_cmd_run(pg_ctx *ctx, int argc, char **argv)
{
    run_args a;
    int status;
    if (parse_args(&status, &a, ctx, argc, argv))
        return status;
    run_state st = {0};
    pg_benchset_init(&st.set);
    pg_owned_init(&st.logs);
    int empty = 0;
    int rc = prepare(&empty, &st, &a, ctx);
    if (rc == 0 && empty) {
        run_state_free(&st, &a);
        return PG_EXIT_OK;
    }
    if (rc == 0)
        rc = choose_cpu(&a.ro);
    /* The store is checked before the build and the measuring, which it would waste. */
    if (rc == 0)
        rc = open_logs(&st, &a, ctx);
    if (rc == 0)
        rc = build(&st, &a, ctx);
    if (rc == 0)
        rc = expand_benchmarks(&st, &a);
    if (rc == 0) {
        print_header(&st, &a);
        rc = pg_session_new_doc(&st.doc, &st.sess, st.have_commit ? st.commit : NULL, st.dirty, a.ro.cpu);
        st.doc.shard_index = a.shard.index;
        st.doc.shard_count = a.shard.count;
        if (rc == 0)
            rc = open_run_dirs(&st, &a, ctx);
    }
    if (rc == 0)
        rc = measure(&st, &a);
    if (rc == 0)
        rc = store_results(&st, &a, ctx);
    if (rc == PG_EINTR)
        fputc('\n', stderr);            /* after the progress line */
    status = rc < 0 ? pg_exit_status(rc) : PG_EXIT_OK;
    if (rc == 0 && st.nfailed) {
        fprintf(stderr, "perfgate: %d of %zu benchmarks failed\n", st.nfailed, st.set.n);
        status = PG_EXIT_FAIL;
    }
    run_state_free(&st, &a);
    return status;
}
