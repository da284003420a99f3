/* harness/cli/cmd_run.c — `perfgate run`: measure, store under the current commit, print. */
#include "counters/backend.h"
#include "counters/probe.h"
#include "counters/sampler.h"
#include "harness/bench/bench.h"
#include "harness/bench/shard.h"
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/measure/plan.h"
#include "harness/measure/runner.h"
#include "harness/measure/session.h"
#include "harness/store/gitrepo.h"
#include "harness/store/leftovers.h"
#include "harness/store/notes.h"
#include "harness/store/notes_stacks.h"
#include "harness/store/worktree.h"
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
    char *events, *pass_env;    /* owned by ctx->args */
    const char *filter;
    pg_backend_kind backend;
    int json, no_store, no_build, user_only, no_notes, no_native, notes_stacks, reuse;
    pg_shard shard;
    pg_count_calls_arg calls;
    pg_manifest_arg manifest;
} run_args;

/* Everything a run holds, released by run_state_free whatever happened. */
typedef struct run_state {
    const run_args *a;
    pg_benchset set;
    pg_session sess;
    pg_measure_out out;         /* the run document, and where it went */
    char commit[PG_OID_HEXSZ + 1];
    int dirty, have_commit, have_store;
    int commit_known, dirty_known;  /* have_commit and commit, dirty: asked of `facts` */
    pg_repo_facts *facts;       /* the repository, HEAD and the status walk, found meanwhile */
    pg_ctx *ctx;
    size_t header_n;            /* the header is due, for this many benchmarks (0: not due) */
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
        PG_OPT_INT('r', "repeat", "N", "measured runs per benchmark (default: {repeat})", &a->ro.repeat, 1,
                   INT_MAX),
        PG_OPT_INT('w', "warmup", "N", "unmeasured runs first (default: {warmup})", &a->ro.warmup, 0, INT_MAX),
        PG_OPT_INT(0, "cpu", "N", "pin benchmarks to CPU N (default: chosen, and named)", &a->ro.cpu, 0, INT_MAX),
        PG_OPT_JOBS(&a->ro.jobs),
        PG_OPT_SET_INT(0, "no-pin", "do not pin", &a->ro.cpu, -2),
        PG_OPT_LIST('e', "events", "LIST", "{takes-events} events, comma-separated libpfm4 names (repeatable)\n"
                    "(default instructions,cycles,cache-misses,branch-misses)", &a->events),
        PG_OPT_CALLBACK(0, "backend", "B", "{backends}", &a->backend, pg_cmd_opt_backend),
        PG_OPT_CALLBACK(0, "metrics", "LIST", PG_METRICS_HELP, &a->ro.metrics, pg_opt_metrics),
        PG_OPT_FLAG(0, "no-native", "{native-time} backend: do not also run each benchmark natively for\n"
                    "task-clock and wall-time (docs/metrics.md)", &a->no_native),
        PG_OPT_INT(0, "native-repeat", "N", "{native-time} backend: native runs per benchmark (default: --repeat,\n"
                   "else 5)", &a->ro.native_repeat, 1, INT_MAX),
        PG_OPT_SET_INT(0, "all-events", "count kernel-mode too (default: user space only)", &a->user_only, 0),
        PG_OPT_DOUBLE(0, "timeout", "SEC", "kill a benchmark's process group after SEC seconds", &a->ro.timeout, 0,
                      HUGE_VAL, .what = "a number of seconds > 0"),
        PG_OPT_INT(0, "sample", "HZ", "also sample stacks (default " PG_XSTR(PG_SAMPLE_FREQ_DEFAULT) " Hz) and store them",
                   &a->ro.sample_freq, 1, INT_MAX, .flags = PG_OPT_OPTARG, .seen = &a->ro.sample),
        PG_OPT_COUNT_CALLS(&a->calls, ""),
        PG_OPT_PASS_ENV(&a->pass_env),
        PG_OPT_BUILD_TIMEOUT(&a->ro.build_timeout),
        PG_OPT_CALLBACK(0, "manifest", "PATH", "the benchmarks, as a PATH operand: a manifest, or a directory\n"
                        "with one (default: bench/)", &a->manifest, pg_cmd_opt_manifest),
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
        PG_OPT_FLAG(0, "reuse-unchanged", "{exact} backend: take a stored result's exact counts for a\n"
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
    a->ro.pass_env = a->pass_env;
    a->ro.jobs = pg_cmd_jobs(a->ro.jobs);
    return 0;
}

/* With no PATH and no command: bench/, which must be there. */
static int check_default_dir(const pg_opt_args *args, const run_args *a)
{
    if (args->nargs || a->manifest.path || args->dashdash || access("bench", F_OK) == 0)
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
    const char *wd = pg_ctx_workdir(ctx);
    char **paths;
    int n, rc = pg_cmd_paths(&paths, &n, ctx, &a->manifest);
    if (rc == 0)
        rc = pg_bench_select(&st->set, paths, n, !args->dashdash, wd);
    free(paths);
    if (rc == 0 && args->nrest > 0)
        rc = pg_bench_add_command(&st->set, args->rest, args->nrest);
    if (rc == 0 && args->dashdash && args->nrest == 0)
        rc = pg_error_set(PG_EINVAL, "nothing after '--': give the command to run");
    return rc;
}

/* The commit results are keyed to, and whether the work tree differs from
 * it, found on another thread (harness/store/gitfacts.h) from when they are
 * first asked for: before measuring when results are stored (their logs go
 * under the commit), else when the first benchmark starts. Not sooner: the
 * thread's loading of libgit2 would stall this one's start-up (both share
 * one address space), which is on the measured path; the runs' is not. */
static void start_facts(run_state *st)
{
    char cwd[PATH_MAX];
    /* Outside every repository (the file system said so when the work tree
     * was looked for, pg_ctx_workdir), there is nothing to find: no thread
     * (its stack, its start and its end were some 0.1 ms of `run -- CMD`'s
     * CPU in /tmp), and no commit, as the thread would have found. */
    if (st->ctx->workdir_rc == PG_WORKTREE_NONE)
        return;
    if (st->facts || !getcwd(cwd, sizeof cwd) || pg_repo_facts_start(&st->facts, cwd) < 0)
        return;     /* out of memory, or no current directory: keyed to no commit */
    st->ctx->facts = st->facts;
}

static void know_commit(run_state *st)
{
    /* What finding the commit says is dropped; an error already pending (a
     * measurement that failed, its message still to be printed) is kept. */
    char kept[1024];
    snprintf(kept, sizeof kept, "%s", pg_error_last());
    start_facts(st);
    if (!st->commit_known && st->facts)
        st->have_commit = pg_repo_facts_commit(st->commit, st->facts);
    st->commit_known = 1;
    pg_error_clear();
    if (*kept)
        pg_error_set(PG_EIO, "%s", kept);
}

static void know_dirty(run_state *st)
{
    know_commit(st);
    if (!st->dirty_known && st->facts)
        st->dirty = pg_repo_facts_dirty(st->facts);
    st->dirty_known = 1;
}

/* Before the manifest's build: the walk must not race a build that writes tracked files. */
static void know_dirty_now(void *arg) { know_dirty(arg); }

/* The store results go to (outside a repository: no commit, and a store only
 * when one is named). A stored run needs its commit before it starts (its
 * logs go under it); --no-store learns it when the runs are done. */
static void locate_results(run_state *st, const run_args *a, pg_ctx *ctx)
{
    if (a->no_store)
        return;
    st->have_store = pg_ctx_store(ctx) == 0;
    know_commit(st);
    if (!st->have_commit)
        fprintf(stderr, "perfgate: note: %s: results are keyed to no commit%s\n",
                pg_ctx_repo(ctx) == 0 ? "the repository has no commit yet" : "not in a git repository",
                st->have_store ? "" : " and not stored (give --store DIR to keep them)");
    pg_error_clear();
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
    know_commit(st);
    if (st->have_commit && pg_ctx_repo(ctx) < 0)
        pg_error_clear();
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

static int choose_cpu(pg_run_opts *ro)
{
    if (ro->cpu == -1)
        ro->cpu = pg_runner_pick_cpu();
    else if (ro->cpu >= 0)
        return pg_check_cpu(ro->cpu);
    return 0;
}

/* The header, once it is due: it says whether the work tree is dirty, and
 * that walk goes on beside the first benchmark's runs when it has not ended
 * by then (on another CPU than theirs). */
static void print_header(run_state *st)
{
    const run_args *a = st->a;
    size_t n = st->header_n;
    if (!n)
        return;
    st->header_n = 0;
    know_dirty(st);
    if (a->json)
        return;
    printf("perfgate run: %zu benchmark%s, backend %s, ", n, n == 1 ? "" : "s", pg_backend_name(st->sess.backend));
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

static void print_header_now(void *arg) { print_header(arg); }

/* Before measuring, once the benchmarks are built and listed: the header
 * now if the walk is over, else before the first table. */
static void header_due(void *arg, const pg_benchset *set, size_t copy)
{
    run_state *st = arg;
    (void)copy;     /* run measures one */
    st->header_n = set->n;
    start_facts(st);
    pg_repo_facts_avoid_cpu(st->facts, st->a->ro.cpu);
    if (pg_repo_facts_walked(st->facts))
        print_header(st);
}

/* The document's commit (unless it had it from the start) and "dirty",
 * when its runs are done. */
static int finish_doc(void *arg, pg_rundoc *doc)
{
    run_state *st = arg;
    know_dirty(st);
    doc->dirty = st->dirty;
    return st->have_commit && !doc->commit ? pg_rundoc_set(&doc->commit, st->commit) : 0;
}

/* Measures the work tree in place (harness/measure/plan.h): stored, with a
 * store (checked before the build, which it would waste), and put into the
 * notes, with a commit. */
static int measure(run_state *st, run_args *a, pg_ctx *ctx)
{
    const char *commit = st->commit;
    pg_measure_here here = {.set = &st->set, .filter = a->filter, .no_build = a->no_build, .finish = finish_doc,
                            .shard_index = a->shard.index, .shard_count = a->shard.count, .copies = 1,
                            .logs_prefix = PG_LEFTOVERS_LOGS_PREFIX, .before_build = know_dirty_now,
                            .before = header_due, .arg = st};
    a->ro.progress = isatty(2);
    a->ro.out = a->json ? NULL : stdout;
    a->ro.out_begin = print_header_now;
    a->ro.out_arg = st;
    /* Stored, reused: the commit, and the repository for the notes, before
     * the first run; else both come when the runs are done (finish_doc). */
    if (st->have_store || a->reuse) {
        know_commit(st);
        if (pg_ctx_repo(ctx) < 0)
            pg_error_clear();
    }
    pg_measure_plan plan = {.repo = ctx->repo, .commits = &commit, .ncommits = st->commit_known && st->have_commit,
                            .here = &here, .worktree = pg_ctx_workdir(ctx), .sess = &st->sess, .ro = &a->ro,
                            .store_root = st->have_store ? ctx->store : NULL,
                            .notes = a->no_notes ? 0 : a->notes_stacks ? PG_NOTES_WITH_STACKS : PG_NOTES_RUNS,
                            .reuse = a->reuse && st->have_commit};
    return pg_measure(&st->out, &plan);
}

/* Prints the run document, or where it went. */
static int print_results(run_state *st, const run_args *a)
{
    const pg_measure_out *out = &st->out;
    if (out->stored[0] && !a->json) {
        printf("stored: %s\n", out->stored);
        if (out->stacks_dir[0] && !access(out->stacks_dir, F_OK))
            printf("stacks: %s/\n", out->stacks_dir);
    } else if (a->ro.sample && !a->json) {
        printf("stacks (not stored): %s/\n", out->stacks_dir);
    }
    if (a->json) {
        char *text;
        int rc = pg_rundoc_write(&text, &out->docs[0]);
        if (rc < 0)
            return rc;
        fputs(text, stdout);
        free(text);
    }
    return 0;
}

static void run_state_free(run_state *st)
{
    pg_repo_facts_free(st->facts);  /* a run that ended early still waits for the walk */
    st->facts = NULL;
    pg_measure_out_free(&st->out);
    pg_session_close(&st->sess);
    pg_benchset_free(&st->set);
}

/* How to measure, before a long build, so that a bad event name fails at
 * once; then what to run, which needs the work tree, and this shard's part
 * of it (*empty: none). */
static int prepare(int *empty, run_state *st, run_args *a, pg_ctx *ctx)
{
    int rc = check_default_dir(&ctx->args, a);
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
    run_state st = {.a = &a, .ctx = ctx};
    pg_benchset_init(&st.set);
    int empty = 0;
    int rc = prepare(&empty, &st, &a, ctx);
    if (rc == 0 && empty) {
        run_state_free(&st);
        ctx->facts = NULL;
        return PG_EXIT_OK;
    }
    if (rc == 0)
        rc = choose_cpu(&a.ro);
    if (rc == 0)
        rc = measure(&st, &a, ctx);
    print_header(&st);      /* when no table was printed */
    if (rc == 0)
        rc = print_results(&st, &a);
    if (rc == PG_EINTR)
        fputc('\n', stderr);            /* after the progress line */
    status = rc < 0 ? pg_exit_status(rc) : PG_EXIT_OK;
    if (rc == 0 && st.out.nfailed) {
        fprintf(stderr, "perfgate: %d of %zu benchmarks failed\n", st.out.nfailed, st.set.n);
        status = PG_EXIT_FAIL;
    }
    run_state_free(&st);
    ctx->facts = NULL;
    return status;
}
