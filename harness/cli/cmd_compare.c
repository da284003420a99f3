/* harness/cli/cmd_compare.c — `perfgate compare A B`: verdicts between two
 * revisions' (or two result files') results; exit 1 on a regression.
 *
 * The harness side of compare: resolve A and B (libgit2 or files), load their
 * runs from the store (measuring the missing ones with --run-missing), choose
 * the machine both were measured on, and hand report/ two pg_sides. Everything
 * statistical is in report/compare.h; every output format in report/render.h.
 */
#include "counters/sampler.h"
#include "harness/store/calibration.h"
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/measure/confirm.h"
#include "harness/store/gitdiff.h"
#include "harness/store/gitrepo.h"
#include "harness/store/notes.h"
#include "harness/store/notes_stacks.h"
#include "harness/store/results.h"
#include "harness/measure/plan.h"
#include "harness/measure/session.h"
#include "harness/store/store.h"
#include "report/calib.h"
#include "report/compare.h"
#include "report/confirm.h"
#include "report/control.h"
#include "report/coverage.h"
#include "harness/cli/explain.h"
#include "harness/cli/gatecheck.h"
#include "report/render.h"
#include "report/threshold.h"
#include "util/error.h"
#include "util/pair.h"
#include "util/fileio.h"
#include "util/metrics.h"
#include "util/text.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate compare",
    .usage = "usage: perfgate compare [OPTIONS] A B\n"
             "\n"
             "Compare the results of A (the baseline) and B (the candidate). Each is a revision\n"
             "(anything git rev-parse accepts: HEAD~1, a branch, a tag, a short id; its results\n"
             "come from the local store and the git notes), or the path of a result document (a\n"
             "store file or `perfgate run --format json` output), a directory of them, or several\n"
             "of either joined by commas: the shards of a `run --shard` suite are merged.\n"
             "Results are matched by benchmark name and by machine.\n",
    .footer = "When GITHUB_STEP_SUMMARY is set, the markdown report is appended to that file too.\n"
              "Exit status: 0 no regression, 1 at least one gating metric regressed (or, with\n"
              "--fail-on-divergence, a gating count and the native time diverged), 2 error (no\n"
              "results for a revision, bad arguments, different machines), " PG_XSTR(PG_EXIT_INTERRUPT)
              " interrupted.\n",
};


typedef struct opts {
    pg_thresholds thresholds;
    pg_gates gates;
    int format;
    const char *output, *flamegraph, *backend_name;
    pg_manifest_arg manifest;
    pg_backend_kind backend;
    int run_missing, cross_machine, allow_missing, verbose, repeat, sample, no_notes, notes_stacks, no_native, native_repeat,
        fail_on_divergence, allow_apart;
    pg_metric_set metrics;
    unsigned long sample_freq;
    double build_timeout;
    int jobs, reuse, control, require_coverage;
    pg_count_calls_arg calls;
    char *pass_env;             /* owned by ctx->args */
} opts;

/* One of A and B as the user named it. */
typedef struct input {
    const char *arg;
    int is_file;
    char commit[PG_OID_HEXSZ + 1];
    pg_rundoc_list runs;        /* n == 0: nothing stored */
    const pg_rundoc *only;      /* --control: the one run of `runs` compared (this measurement's) */
    char stacks_base[PATH_MAX];
} input;

/* One comparison: its two inputs, how it was asked for, and the machines
 * and backend chosen for its sides (choose_machines; backend "": any). */
typedef struct cmp {
    input *in[2];
    const opts *o;
    pg_ctx *ctx;
    char ida[16], idb[16], backend[16];
} cmp;

/* 0 and A and B; else 1 and the exit status in *status. */
static int parse_args(int *status, opts *o, pg_ctx *ctx, int argc, char **argv, const char **a, const char **b)
{
    const pg_opt table[] = {
        PG_OPT_CALLBACK('t', "threshold", "M=PCT", "regression threshold for metric M, like instructions=0.5%\n"
                        "(repeatable; a bare PCT applies to every metric); wins over\n"
                        "the manifest's thresholds and the defaults (docs/metrics.md)", &o->thresholds, pg_cmd_opt_threshold),
        PG_OPT_CALLBACK('g', "gate", "LIST", "metrics that decide the verdict (default: instructions)", &o->gates,
                        pg_cmd_opt_gates),
        PG_OPT_CHOICE('f', "format", "F", "text (default), markdown, json or junit", &o->format, pg_renderer_names),
        PG_OPT_STRING('o', "output", "FILE", "write the report to FILE (atomically) instead of stdout", &o->output),
        PG_OPT_STRING(0, "flamegraph", "DIR", "differential flamegraphs of regressed benchmarks that have\n"
                      "stacks on both sides (run --sample) into DIR", &o->flamegraph),
        PG_OPT_FLAG(0, "run-missing", "measure a revision that has no results on this machine: check\n"
                    "it out into a temporary directory, build it with the manifest's\n"
                    "build command, run it (A and B interleaved) and store it; a\n"
                    "regression of noisy gating metrics only is measured again,\n"
                    "interleaved, and fails only when confirmed", &o->run_missing),
        PG_OPT_CALLBACK(0, "manifest", "PATH", "with --run-missing: " PG_MANIFEST_HELP " (docs/manifest.md)",
                        &o->manifest, pg_cmd_opt_manifest),
        PG_OPT_CALLBACK(0, "bench", "PATH", NULL, &o->manifest, pg_cmd_opt_manifest, .renamed = "manifest"),
        PG_OPT_CALLBACK(0, "backend", "B", "{backends}: measure with B, and compare\n"
                        "only results B measured", &o->backend, pg_cmd_opt_backend),
        PG_OPT_INT('r', "repeat", "N", "with --run-missing: measured runs per benchmark", &o->repeat, 1, INT_MAX),
        PG_OPT_CALLBACK(0, "metrics", "LIST", "with --run-missing: " PG_METRICS_HELP, &o->metrics, pg_opt_metrics),
        PG_OPT_FLAG(0, "no-native", "with --run-missing and the {native-time} backend: do not also run\n"
                    "each benchmark natively for task-clock and wall-time", &o->no_native),
        PG_OPT_INT(0, "native-repeat", "N", "with --run-missing and the {native-time} backend: native runs per\n"
                   "benchmark (default: --repeat, else 5)", &o->native_repeat, 1, INT_MAX),
        PG_OPT_FLAG(0, "fail-on-divergence", "exit 1 when a gating count and the native time of a\n"
                    "benchmark disagree (docs/metrics.md)", &o->fail_on_divergence),
        PG_OPT_INT(0, "sample", "HZ", "with --run-missing: also sample stacks (function tables, flamegraphs)",
                   &o->sample_freq, 1, 1000000, .flags = PG_OPT_OPTARG, .seen = &o->sample,
                   .what = "a frequency in Hz >= 1"),
        PG_OPT_FLAG(0, "no-notes", "with --run-missing: store in the local store only, not in git notes",
                    &o->no_notes),
        PG_OPT_FLAG(0, "notes-stacks", "with --run-missing --sample: put the stacks in git notes too\n"
                    "(" PG_NOTES_STACKS_REF "; git config perfgate.notesStacks)", &o->notes_stacks),
        PG_OPT_COUNT_CALLS(&o->calls, "with --run-missing: "),
        PG_OPT_PASS_ENV(&o->pass_env),
        PG_OPT_BUILD_TIMEOUT(&o->build_timeout),
        PG_OPT_JOBS(&o->jobs),
        PG_OPT_FLAG(0, "reuse-unchanged", "with --run-missing: take a stored result's exact counts for a\n"
                    "benchmark nothing of which changed (docs/metrics.md)", &o->reuse),
        PG_OPT_FLAG(0, "control", "with --run-missing: measure the baseline twice beside the candidate\n"
                    "(A A' B, interleaved); a noisy metric's regression no larger than\n"
                    "A against A' is within the noise of this run, and an exact count\n"
                    "that differs between A and A' is said (docs/metrics.md)", &o->control),
        PG_OPT_FLAG(0, "require-coverage", "fail (exit 1) when a function the change from A to B touched\n"
                    "is run by no benchmark (its verdict: not covered), or when\n"
                    "the change could not be mapped (unknown); without it the\n"
                    "coverage is only reported (docs/coverage.md)", &o->require_coverage),
        PG_OPT_FLAG(0, "allow-cross-machine", "compare results from different machines anyway", &o->cross_machine),
        PG_OPT_FLAG(0, "allow-apart", "judge time (and other metrics the load moves) between sides\n"
                    "measured in different sessions as if comparable; without it\n"
                    "such rows say 'not compared: measured apart' (docs/metrics.md)", &o->allow_apart),
        PG_OPT_FLAG(0, "allow-missing", "decide on what was compared when a benchmark's gating metric\n"
                    "was not (on one side only, failed, not measured); without it\n"
                    "that is an error (exit 2)", &o->allow_missing),
        PG_OPT_FLAG('v', "verbose", "text: show every metric, not only gating and changed ones", &o->verbose),
        PG_OPT_END(),
    };
    if (pg_cmd_parse(status, ctx, &spec, table, argc, argv))
        return 1;
    o->backend_name = o->backend == PG_BACKEND_AUTO ? NULL : pg_backend_name(o->backend);
    if (ctx->args.nargs != 2) {
        *status = pg_die("compare takes two revisions or result files, A and B (got %d); see 'perfgate compare --help'",
                         ctx->args.nargs);
        return 1;
    }
    if (o->notes_stacks && (!o->run_missing || !(o->sample || o->flamegraph) || o->no_notes)) {
        *status = pg_die("--notes-stacks puts the stacks --run-missing records in git notes: it needs --run-missing "
                         "and --sample (or --flamegraph), and not --no-notes");
        return 1;
    }
    if (o->run_missing && pg_cmd_check_manifest(ctx, &o->manifest) < 0) {
        *status = pg_die_last();
        return 1;
    }
    if (o->control && !o->run_missing) {
        *status = pg_die("--control measures the baseline twice beside the candidate: it needs --run-missing");
        return 1;
    }
    *a = ctx->args.args[0];
    *b = ctx->args.args[1];
    if (!o->gates.n && pg_gates_parse(&o->gates, "instructions") < 0) {
        *status = pg_die_last();
        return 1;
    }
    return 0;
}

static int is_file_or_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
}

/* A result file, a directory of them, or several of either joined by commas
 * (every shard's results: `run --shard`). */
static int is_path(const char *arg)
{
    if (is_file_or_dir(arg))
        return 1;
    if (!strchr(arg, ','))
        return 0;
    char *copy = strdup(arg), *save = NULL;
    int all = copy != NULL;
    for (char *p = copy ? strtok_r(copy, ",", &save) : NULL; p && all; p = strtok_r(NULL, ",", &save))
        all = is_file_or_dir(p);
    free(copy);
    return all;
}

static int json_name(const struct dirent *e)
{
    size_t l = strlen(e->d_name);
    return e->d_name[0] != '.' && l > 5 && !strcmp(e->d_name + l - 5, ".json");
}

/* One file, or every *.json file of a directory (sorted: the same order each time). */
static int load_path(pg_rundoc_list *runs, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
        return pg_store_load_file(runs, path);
    struct dirent **names;
    int n = scandir(path, &names, json_name, alphasort), rc = 0;
    if (n < 0)
        return pg_error_errno(PG_EIO, "cannot list %s", path);
    for (int i = 0; i < n; i++) {
        char file[PATH_MAX * 2];
        snprintf(file, sizeof file, "%s/%s", path, names[i]->d_name);
        if (rc == 0)
            rc = pg_store_load_file(runs, file);
        free(names[i]);
    }
    free(names);
    if (rc == 0 && n == 0)
        rc = pg_error_set(PG_ENOTFOUND, "%s: no result files (*.json) in this directory", path);
    return rc;
}

static int load_paths(input *in)
{
    char *copy = strdup(in->arg), *save = NULL;
    if (!copy)
        return pg_error_set(PG_ENOMEM, "out of memory");
    int rc = 0;
    /* a file or directory whose name has a comma is one path */
    if (is_file_or_dir(in->arg))
        rc = load_path(&in->runs, in->arg);
    else
        for (char *p = strtok_r(copy, ",", &save); p && rc == 0; p = strtok_r(NULL, ",", &save))
            rc = load_path(&in->runs, p);
    free(copy);
    return rc;
}

/* A store file (<store>/results/<commit>/<machine>.json) names its stacks
 * relative to the store root: `dir` (the file's directory) becomes <store>. */
static void stacks_root_of_store_file(char *dir)
{
    char *last = strrchr(dir, '/');
    if (!last)
        return;
    *last = '\0';
    char *prev = strrchr(dir, '/');
    const char *name = prev ? prev + 1 : dir;
    if (strcmp(name, "results")) {
        *last = '/';
    } else if (prev) {
        *prev = '\0';
    } else {
        strcpy(dir, ".");
    }
}

/* Loads a file input, or resolves a revision and loads what the store has for it. */
static int load_input(input *in, pg_ctx *ctx)
{
    if (in->is_file) {
        int rc = load_paths(in);
        pg_path_dirname(in->stacks_base, sizeof in->stacks_base, in->arg);
        stacks_root_of_store_file(in->stacks_base);
        return rc;
    }
    int rc;
    if ((rc = pg_ctx_repo(ctx)) < 0)
        return rc == PG_ENOTFOUND ? pg_error_set(rc, "'%s' is neither a result file nor a revision: %s is in no git repository",
                                                 in->arg, ctx->cwd)
                                  : pg_error_wrap(rc, "'%s' is neither a result file nor a revision", in->arg);
    if ((rc = pg_ctx_store(ctx)) < 0)
        return rc;
    if ((rc = pg_repo_resolve(in->commit, ctx->repo, in->arg)) < 0)
        return pg_error_wrap(rc, "'%s' is neither a result file nor a revision", in->arg);
    snprintf(in->stacks_base, sizeof in->stacks_base, "%s", ctx->store);
    rc = pg_results_load(&in->runs, ctx->store, ctx->repo, in->commit);
    if (rc == PG_ENOTFOUND) {
        pg_error_clear();
        return 0;
    }
    return rc;
}

/* Work on both sides at once, when both are result files: reading them is
 * most of a large compare's time, and the sides are independent (a
 * revision's side asks git, on the one repository: those stay in turn). The
 * error is A's when both fail, as when done in turn. */
typedef struct side_task {
    const cmp *k;
    pg_side *sides;     /* collect_side's output, one per side */
    int i;
} side_task;

static int both_sides(pg_pair_fn fn, const cmp *k, pg_side *sides, int at_once)
{
    side_task a = {k, sides, 0}, b = {k, sides, 1};
    return pg_pair_run(fn, &a, &b, at_once && k->in[0]->is_file && k->in[1]->is_file);
}

/* The benchmarks of both sides' runs. */
static size_t benchmarks_read(const cmp *k)
{
    size_t n = 0;
    for (int i = 0; i < 2; i++)
        for (size_t r = 0; r < k->in[i]->runs.n; r++)
            n += k->in[i]->runs.v[r].nbench;
    return n;
}

static int load_side(void *arg)
{
    const side_task *t = arg;
    return load_input(t->k->in[t->i], t->k->ctx);
}

/* Whether `runs` hold a run of `machine_id` and `backend`. */
static int has_run(const pg_rundoc_list *runs, const char *machine_id, const char *backend)
{
    for (size_t i = 0; i < runs->n; i++)
        if (!strcmp(runs->v[i].machine.id, machine_id) && !strcmp(runs->v[i].backend, backend))
            return 1;
    return 0;
}

/* The registry metrics compare gates on: measured by --run-missing even
 * when another backend alone gives them (DHAT's heap-*). */
static pg_metric_set gated_metrics(const opts *o)
{
    pg_metric_set s = 0;
    for (size_t i = 0; i < o->gates.n; i++)
        if (pg_metric_find(o->gates.v[i]))
            pg_metric_set_add(&s, o->gates.v[i]);
    return s;
}

/* How --run-missing measures (and its confirmation round measures again);
 * `native`: the session's meter of native runs, or NULL. */
static pg_run_opts missing_run_opts(const opts *o, pg_meter *native)
{
    return (pg_run_opts){.also = gated_metrics(o), .repeat = o->repeat > 0 ? o->repeat : -1, .warmup = -1, .cpu = pg_runner_pick_cpu(),
                         .round = -1, .progress = isatty(2),
                         .sample = o->sample || o->flamegraph,   /* flamegraphs need stacks */
                         .metrics = o->metrics,
                         .sample_freq = o->sample_freq ? o->sample_freq : PG_SAMPLE_FREQ_DEFAULT,
                         .count_calls = o->calls.list[0] ? o->calls.list : NULL,
                         .native = native, .native_repeat = o->native_repeat, .build_timeout = o->build_timeout,
                         .jobs = pg_cmd_jobs(o->jobs), .pass_env = o->pass_env};
}

/* What --run-missing puts in the git notes. */
static int notes_of(const opts *o)
{
    return o->no_notes ? PG_NOTES_NONE : o->notes_stacks ? PG_NOTES_WITH_STACKS : PG_NOTES_RUNS;
}

static const char *missing_bench(char *buf, size_t len, const char *workdir, const opts *o)
{
    return pg_cmd_manifest_path(buf, len, workdir, &o->manifest);
}

/* --run-missing: measure the revisions pg_measure_missing finds without
 * results of this machine and backend (or without stacks, when they are
 * wanted), both in one session so they are measured alike, then reload
 * them. --control measures A, A' and B whatever is stored. */
static int run_missing(const cmp *k)
{
    input *const *in = k->in;
    pg_repo *repo = k->ctx->repo;
    const char *workdir = k->ctx->workdir, *root = k->ctx->store;
    const opts *o = k->o;
    if (o->control && (in[0]->is_file || in[1]->is_file))
        return pg_error_set(PG_EINVAL, "--control measures the baseline again: A and B must be revisions, not result "
                            "files ('%s')", in[0]->is_file ? in[0]->arg : in[1]->arg);
    if (in[0]->is_file && in[1]->is_file)
        return 0;
    pg_session sess;
    int rc = pg_session_open(&sess, o->backend, NULL, 1);
    if (rc == 0 && !o->no_native)
        rc = pg_session_open_native(&sess);
    if (rc < 0) {
        pg_session_close(&sess);
        return rc;
    }
    pg_session_tell(&sess);
    const char *commits[3];
    const pg_rundoc_list *stored[3] = {0};
    size_t n = 0, measured = 0;
    if (o->control) {   /* the control is of this measurement */
        commits[n++] = in[0]->commit;
        commits[n++] = in[0]->commit;
    }
    for (int i = 0; i < 2; i++)
        if (!in[i]->is_file && !(o->control && i == 0)) {
            stored[n] = &in[i]->runs;
            commits[n++] = in[i]->commit;
        }
    pg_run_opts ro = missing_run_opts(o, sess.native);
    /* (pg_measure sweeps what a killed perfgate left, and checks the store before measuring) */
    char bench[PATH_MAX + 8];
    pg_measure_plan plan = {.repo = repo, .commits = commits, .ncommits = n,
                            .bench_path = missing_bench(bench, sizeof bench, workdir, o), .worktree = workdir,
                            .sess = &sess, .ro = &ro, .store_root = root, .notes = notes_of(o), .reuse = o->reuse};
    if (o->control)
        rc = pg_measure(NULL, &plan);
    else
        rc = pg_measure_missing(&measured, &plan, stored);
    pg_session_close(&sess);
    for (int i = 0; i < 2 && rc == 0 && (o->control || measured); i++) {
        if (in[i]->is_file)
            continue;
        pg_rundoc_list_free(&in[i]->runs);
        rc = pg_results_load(&in[i]->runs, root, repo, in[i]->commit);
    }
    return rc;
}

/* The newest run of `runs` (stored in order) that `backend` (NULL: any) measured. */
static const pg_rundoc *latest(const pg_rundoc_list *runs, const char *backend)
{
    const pg_rundoc *found = NULL;
    for (size_t i = 0; i < runs->n; i++)
        if (!backend || !strcmp(runs->v[i].backend, backend))
            found = &runs->v[i];
    return found;
}

static void describe_machine(char *buf, size_t len, const pg_rundoc *run)
{
    const char *cpu = run->machine.cpu_model;
    snprintf(buf, len, "%s: %s, backend %s", run->machine.id, *cpu ? cpu : "unknown CPU", run->backend);
}

/* Chooses the machine and backend both sides are compared on: those of the
 * newest candidate run that the baseline has a run of too, so that neither
 * side mixes backends. Anything else is refused with what to do unless
 * allowed; then each side uses its newest run's machine, `backend` is ""
 * (any) and compare sets only metrics of one backend against each other. */
static int choose_machines(cmp *k)
{
    const input *a = k->in[0], *b = k->in[1];
    const opts *o = k->o;
    char *ida = k->ida, *idb = k->idb, *backend = k->backend;
    const pg_rundoc *found = NULL;
    for (size_t i = 0; i < b->runs.n; i++) {
        const pg_rundoc *r = &b->runs.v[i];
        if ((!o->backend_name || !strcmp(r->backend, o->backend_name)) && has_run(&a->runs, r->machine.id, r->backend))
            found = r;
    }
    if (found) {
        snprintf(ida, 16, "%s", found->machine.id);
        snprintf(idb, 16, "%s", found->machine.id);
        snprintf(backend, 16, "%s", found->backend);
        return 0;
    }
    snprintf(backend, 16, "%s", o->backend_name ? o->backend_name : "");
    const pg_rundoc *la = latest(&a->runs, o->backend_name), *lb = latest(&b->runs, o->backend_name);
    if (!la || !lb)
        return pg_error_set(PG_ENOTFOUND, "no results%s%s%s for %s", o->backend_name ? " measured by the " : "",
                            o->backend_name ? o->backend_name : "", o->backend_name ? " backend" : "", !la ? a->arg : b->arg);
    if (!o->cross_machine) {
        char da[256], db[256];
        describe_machine(da, sizeof da, la);
        describe_machine(db, sizeof db, lb);
        return pg_error_set(PG_EINVAL,
                            "%s and %s were measured on different machines or backends (%s; %s): their numbers are not "
                            "comparable. Measure both here (perfgate compare --run-missing ...) or pass --allow-cross-machine",
                            a->arg, b->arg, da, db);
    }
    snprintf(ida, 16, "%s", la->machine.id);
    snprintf(idb, 16, "%s", lb->machine.id);
    return 0;
}

static int missing_error(const input *in, const char *root)
{
    return pg_error_set(PG_ENOTFOUND,
                        "no results stored for %s (%.12s) in %s or in " PG_NOTES_REF "; measure it with 'git checkout %.12s && perfgate run', "
                        "or add --run-missing to measure it in a temporary checkout",
                        in->arg, in->commit, root, in->commit);
}

static int render_to(FILE *f, const pg_comparison *c, const pg_renderer *r, const opts *o, int color)
{
    pg_render_opts ro = {.color = color, .verbose = o->verbose};
    return r->render(f, c, &ro);
}

static int append_step_summary(const pg_comparison *c, const opts *o)
{
    const char *path = getenv("GITHUB_STEP_SUMMARY");
    if (!path || !*path)
        return 0;
    FILE *f = fopen(path, "a");
    int rc = f ? render_to(f, c, pg_renderer_find("markdown"), o, 0) : 0;
    int ok = f && !ferror(f);
    /* fclose once, whatever the write gave: a second fclose is undefined */
    if (f && fclose(f) != 0)
        ok = 0;
    if (rc == 0 && !ok)
        rc = pg_error_errno(PG_EIO, "cannot append to GITHUB_STEP_SUMMARY file %s", path);
    return rc;
}

/* What calibrate measured for the candidate's machine and backend, if the
 * store has it (comparing two files outside a repository: no store, none). */
static int load_floors(pg_floors *f, pg_ctx *ctx, const pg_side *cand)
{
    if (pg_ctx_store(ctx) < 0) {
        pg_error_clear();
        return 0;
    }
    return pg_calibration_load(f, ctx->store, cand->machine_id, cand->backend);
}

/* --run-missing and a regression resting on noisy gating metrics: a second
 * round measured now, interleaved, settles it (report/confirm.h). */
static int confirm(pg_round2 *r2, pg_comparison *c, const cmp *k, const pg_compare_opts *co)
{
    input *const *in = k->in;
    pg_ctx *ctx = k->ctx;
    const opts *o = k->o;
    if (!o->run_missing || in[0]->is_file || in[1]->is_file || !ctx->repo || !pg_confirm_count(c))
        return 0;
    pg_run_opts ro = missing_run_opts(o, NULL);     /* the round's own session gives the native meter */
    const char *commits[2] = {in[0]->commit, in[1]->commit};
    char bench[PATH_MAX + 8];
    pg_measure_plan plan = {.repo = ctx->repo, .commits = commits, .ncommits = 2,
                            .bench_path = missing_bench(bench, sizeof bench, ctx->workdir, o), .worktree = ctx->workdir,
                            .ro = &ro, .store_root = ctx->store, .notes = notes_of(o)};
    pg_round2_opts r2o = {.backend = o->backend, .native = !o->no_native, .co = co};
    return pg_round2_run(r2, c, &plan, &r2o);
}

/* --control: A against A' of this measurement, applied to `c` (report/control.h). */
static int control(pg_comparison *c, const pg_control_of *of)
{
    pg_round2 r = {0};
    int rc = pg_round2_control(&r, of);
    if (rc == 0)
        pg_control_apply(c, &r.c);
    pg_round2_free(&r);
    if (rc == 0 && c->nexact_drift)
        pg_text_warn("warning: --control: %zu exact count%s differ%s between the baseline's two runs of this "
                     "measurement: its exact counts do not repeat, and neither can its verdicts on them (the "
                     "benchmarks' notes name them; docs/metrics.md, \"The execution context\")", c->nexact_drift,
                     c->nexact_drift == 1 ? "" : "s", c->nexact_drift == 1 ? "s" : "");
    return rc;
}

/* --sample/--flamegraph on a side stored without stacks: say so, with the fix,
 * rather than leave the function tables and flamegraphs out silently. */
static void warn_no_stacks(const pg_comparison *c, const opts *o)
{
    for (int s = 0; s < 2; s++) {
        char names[512] = "", side[200];
        size_t n = 0, len = 0;
        for (size_t i = 0; i < c->nbench; i++) {
            const pg_bench_cmp *b = &c->bench[i];
            if ((s ? b->stacks_b || b->failed_b : b->stacks_a || b->failed_a))
                continue;
            if (n++ < 4 && len < sizeof names)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", b->name);
        }
        if (!n)
            continue;
        pg_render_side(side, sizeof side, s ? c->cand : c->base);
        pg_text_warn("warning: %s (%s) was stored without stacks for %zu benchmark%s (%s%s): no function table or "
                     "differential flamegraph for %s; fix: %s",
                     s ? "the candidate" : "the baseline", side, n, n == 1 ? "" : "s", names, n > 4 ? ", ..." : "",
                     n == 1 ? "it" : "them",
                     o->run_missing ? "--run-missing could not record them (a result file, or the recorder failed: "
                                      "'perfgate show' says why); re-run it with 'perfgate run --sample'"
                                    : "add --run-missing (it re-measures that revision with stacks), or check it out "
                                      "and run 'perfgate run --sample'");
    }
}

/* --control: A against B of this measurement only (A' is the control's),
 * with the same number of runs as the control: the run `back` places from
 * the newest of `in`'s on this machine and backend in the store (the
 * candidate's newest, 0; the baseline's A, 1, before A'). */
static int measured_now(input *in, const char *machine, const char *backend, int back, const char *root)
{
    pg_rundoc_list st = {0};
    int rc = pg_store_load(&st, root, in->commit), seen = 0;
    const char *want = NULL;
    for (size_t i = st.n; rc == 0 && i-- > 0 && !want;)
        if (!strcmp(st.v[i].machine.id, machine) && !strcmp(st.v[i].backend, backend) && seen++ == back)
            want = st.v[i].id;
    for (size_t i = 0; want && i < in->runs.n && !in->only; i++)
        if (!strcmp(in->runs.v[i].id, want))
            in->only = &in->runs.v[i];
    if (rc == 0 && !in->only)
        rc = pg_error_set(PG_ENOTFOUND, "--control: this measurement's run of %.12s is not in %s", in->commit, root);
    pg_rundoc_list_free(&st);
    return rc;
}

/* Both sides' runs as series; another clone's stacks from the stacks note. */
/* Side i's samples, into sides[i]. */
static int collect_side(void *arg)
{
    const side_task *t = arg;
    const cmp *k = t->k;
    int i = t->i;
    input *in = k->in[i];
    pg_side *side = &t->sides[i];
    const char *ids[2] = {k->ida, k->idb}, *backend = k->backend;
    snprintf(side->label, sizeof side->label, "%s", in->arg);
    snprintf(side->commit, sizeof side->commit, "%s", in->commit);
    if (!in->is_file)
        pg_notes_stacks_fill(&in->runs, k->ctx->store, k->ctx->repo, in->commit);
    pg_rundoc_list one = {.v = (pg_rundoc *)in->only, .n = 1};     /* borrowed */
    /* The side holds all that is compared from here on: the documents'
     * runs (most of a large compare's memory) go now, not at exit, and
     * benchmark by benchmark as they are gathered when all are. */
    int rc = in->only ? pg_results_collect(side, &one, ids[i], *backend ? backend : NULL, in->stacks_base)
                      : pg_results_take(side, &in->runs, ids[i], *backend ? backend : NULL, in->stacks_base);
    in->only = NULL;
    pg_rundoc_list_free(&in->runs);
    return rc < 0 ? pg_error_wrap(rc, "%s", in->arg) : rc;
}

/* The coverage of the change from A to B (report/coverage.h): when the
 * candidate has stacks to map it onto, or --require-coverage asks for it. */
static int coverage(pg_coverage *cv, pg_comparison *c, const cmp *k)
{
    const input *a = k->in[0], *b = k->in[1];
    int stacks = 0;
    for (size_t i = 0; i < c->nbench; i++)
        stacks |= c->bench[i].stacks_b != NULL;
    int commits = a->commit[0] && b->commit[0] && k->ctx->repo;
    if (!k->o->require_coverage && (!stacks || !commits))
        return 0;       /* result files of no commit: nothing to map, and nothing asked */
    pg_change ch = {0};
    int rc = 0;
    if (!commits)
        snprintf(ch.note, sizeof ch.note, "%s and %s are not both revisions of this repository (a result file is "
                 "compared as a file): there is no change to map", a->arg, b->arg);
    else
        rc = pg_repo_change(&ch, k->ctx->repo, a->commit, b->commit);
    if (rc == 0 && c->cand->dirty)
        snprintf(ch.note, sizeof ch.note, "the candidate %s was measured on a work tree with uncommitted changes: "
                 "its lines are not the commit's", b->arg);
    if (rc == 0 && (rc = pg_coverage_map(cv, &ch, c)) == 0) {
        cv->required = k->o->require_coverage;
        c->coverage = cv;
        c->coverage_fails = pg_coverage_fails(cv);
    }
    pg_change_free(&ch);
    return rc;
}

/* The report in its format, colored on a terminal unless NO_COLOR, to -o or
 * stdout, written as it is rendered: a report of 10^4 benchmarks is larger
 * than both documents, and buffering it whole was a third of compare's
 * memory. A regular file named by -o is replaced atomically (never seen
 * half-written); a device or pipe that exists (/dev/stdout, a FIFO) is
 * written as it is, since renaming over /dev/null would replace the device. */
static int publish(const pg_comparison *c, const opts *o)
{
    const char *nc = getenv("NO_COLOR");
    const pg_renderer *r = &pg_renderers[o->format];
    int color = !o->output && r->colors && isatty(1) && !(nc && *nc);
    struct stat st;
    if (o->output && (stat(o->output, &st) < 0 || S_ISREG(st.st_mode))) {
        pg_atomic_file af;
        int rc = pg_atomic_file_open(&af, o->output);
        if (rc == 0 && (rc = render_to(af.f, c, r, o, color)) < 0)
            pg_atomic_file_abort(&af);
        else if (rc == 0)
            rc = pg_atomic_file_commit(&af, 1);
        return rc;
    }
    FILE *f = o->output ? fopen(o->output, "w") : stdout;
    const char *name = o->output ? o->output : "the report to stdout";
    if (!f)
        return pg_error_errno(PG_EIO, "cannot write %s", name);
    int rc = render_to(f, c, r, o, color);
    int bad = ferror(f) || fflush(f) != 0;
    if (o->output && fclose(f) != 0)
        bad = 1;
    if (rc == 0 && bad)
        rc = pg_error_errno(PG_EIO, "cannot write %s", name);
    return rc;
}

/* What a comparison holds when it is done (10^5 blocks for 10^4
 * benchmarks) goes back with the exit that follows, at once: freed block by
 * block it was 3% of a large compare's time. A sanitizer build frees it, so
 * that what LeakSanitizer reports is a leak. */
#if defined(__SANITIZE_ADDRESS__)
#define FREE_AT_EXIT 1
#else
#define FREE_AT_EXIT 0
#endif

static int compare(const cmp *k)
{
    input *const *in = k->in;
    pg_ctx *ctx = k->ctx;
    const opts *o = k->o;
    const char *ida = k->ida, *idb = k->idb, *backend = k->backend;
    pg_side side[2];
    memset(side, 0, sizeof side);
    int rc = 0;
    if (o->control && ((rc = measured_now(in[0], ida, backend, 1, ctx->store)) < 0 ||
                       (rc = measured_now(in[1], idb, backend, 0, ctx->store)) < 0))
        return pg_exit_status(rc);
    /* Both sides at once, when both are files, as they were read. At once
     * they used to peak at both documents and both sides' samples (43-45
     * MiB for compare-scale.sh's 19.7 MiB of documents, over issue 25's 2x),
     * which is why they were gathered in turn. Now each side takes its
     * documents' benchmarks one by one (pg_results_take), freeing each as
     * its series are made, in the arena it was read into (this thread's for
     * A; for B, the one its reading thread left, which glibc hands the next
     * new thread): the side's blocks reuse its document's, and gathering
     * peaks at 28 MiB there, against 33 MiB one side after the other. A
     * small compare does it in turn: a thread costs more than it saves (two
     * documents of 3 benchmarks, fixed-costs.sh's: 1.05-1.13 ms of CPU in
     * turn, 1.10-1.47 ms at once, perf stat -r 200, the same wall time). */
    rc = both_sides(collect_side, k, side, benchmarks_read(k) >= 512);
    /* What the documents held, freed on two threads' arenas, back to the
     * system: the comparison's memory would be new pages beside it. */
    malloc_trim(0);
    pg_comparison c;
    pg_floors floors = {0};
    pg_round2 r2 = {0};
    pg_coverage cv = {0};
    pg_compare_opts co = {.thresholds = &o->thresholds, .gates = &o->gates, .floors = &floors,
                          .fail_on_divergence = o->fail_on_divergence, .allow_apart = o->allow_apart};
    if (rc == 0)
        rc = load_floors(&floors, ctx, &side[1]);
    pg_control_of of = {.root = ctx->store, .commit = in[0]->commit, .label = in[0]->arg, .machine_id = ida,
                        .backend = backend, .co = &co};
    if (rc == 0 && (rc = pg_compare(&c, &side[0], &side[1], &co)) == 0 &&
        ((o->control && (rc = control(&c, &of)) < 0) || (rc = confirm(&r2, &c, k, &co)) < 0 ||
         (rc = coverage(&cv, &c, k)) < 0))
        pg_comparison_free(&c);
    if (rc < 0) {
        pg_coverage_free(&cv);
        pg_round2_free(&r2);
        pg_floors_free(&floors);
        pg_side_free(&side[0]);
        pg_side_free(&side[1]);
        return pg_exit_status(rc);
    }
    pg_calibration_warn(&c);
    if (o->sample || o->flamegraph)
        warn_no_stacks(&c, o);
    /* Fail closed: the report is still written, then the exit status says
     * the gate could not decide. */
    int status = pg_comparison_fails(&c) ? PG_EXIT_FAIL : PG_EXIT_OK;
    int undecided = pg_gatecheck_missing(&c, o->allow_missing) < 0;
    char why[4096] = "";
    if (undecided)
        snprintf(why, sizeof why, "%s", pg_error_last());
    size_t written;
    if (pg_explain(&c, 10, o->flamegraph, &written) < 0)
        status = pg_die_last();
    else if (written)
        pg_text_warn("%zu differential flamegraph%s in %s", written, written == 1 ? "" : "s", o->flamegraph);
    if (publish(&c, o) < 0)
        status = pg_die_last();
    if (append_step_summary(&c, o) < 0)
        status = pg_die_last();
    if (undecided)
        status = pg_die("%s", why);
    if (FREE_AT_EXIT) {
        pg_comparison_free(&c);
        pg_coverage_free(&cv);
        pg_round2_free(&r2);
        pg_floors_free(&floors);
        pg_side_free(&side[0]);
        pg_side_free(&side[1]);
    }
    return status;
}

int pg_cmd_compare(pg_ctx *ctx, int argc, char **argv)
{
    opts o = {0};
    const char *arg_a = NULL, *arg_b = NULL;
    int status;
    if (parse_args(&status, &o, ctx, argc, argv, &arg_a, &arg_b)) {
        pg_thresholds_free(&o.thresholds);
        pg_gates_free(&o.gates);
        return status;
    }
    input a = {.arg = arg_a, .is_file = is_path(arg_a)}, b = {.arg = arg_b, .is_file = is_path(arg_b)};
    cmp k = {.in = {&a, &b}, .o = &o, .ctx = ctx};
    input *const *in = k.in;
    int rc = both_sides(load_side, &k, NULL, 1);
    /* A misspelt gate is refused before anything is measured. */
    const pg_rundoc_list *lists[2] = {&a.runs, &b.runs};
    const char *labels[2] = {arg_a, arg_b};
    if (rc == 0)
        rc = pg_gatecheck_names(&o.gates, &o.thresholds, lists, labels, 2);
    if (rc == 0 && o.run_missing && ctx->repo)
        rc = run_missing(&k);
    for (int i = 0; i < 2 && rc == 0; i++)
        if (!in[i]->runs.n)
            rc = missing_error(in[i], ctx->store);
    if (rc == 0)
        rc = choose_machines(&k);
    status = rc < 0 ? pg_exit_status(rc) : compare(&k);
    pg_rundoc_list_free(&a.runs);
    pg_rundoc_list_free(&b.runs);
    pg_thresholds_free(&o.thresholds);
    pg_gates_free(&o.gates);
    return status;
}
