/* harness/cli/cmd_calibrate.c — `perfgate calibrate [PATH...]`: the noise floor of
 * every benchmark and metric on this machine, from A/A runs of the current
 * tree, and the thresholds it suggests (report/calib.h), kept in the store
 * for `compare` (harness/store/calibration.h) and printed as a manifest snippet.
 *
 * A pair's two sides are measured one after the other, each with the repeat
 * count a comparison would use, so that what differs between them is what
 * differs between any two measurements on this machine, in the execution
 * context every measurement gets (harness/measure/canon.h).
 */
#include "harness/bench/bench.h"
#include "harness/store/calibration.h"
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/store/leftovers.h"
#include "harness/measure/plan.h"
#include "harness/measure/runner.h"
#include "harness/measure/session.h"
#include "report/calib.h"
#include "report/format.h"
#include "report/stats.h"
#include "report/threshold.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/metrics.h"
#include "util/text.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate calibrate",
    .usage = "usage: perfgate calibrate [OPTIONS] [PATH...]\n"
             "\n"
             "Measure the current tree against itself (A/A pairs) and report the noise floor of\n"
             "every benchmark and metric on this machine: the largest relative difference of\n"
             "the two sides' medians over the pairs. Suggests thresholds (twice the floor,\n"
             "rounded up, at least " PG_XSTR(PG_CALIB_MIN_PCT) "%) and keeps them in the store's thresholds.json,\n"
             "keyed by machine and backend; compare uses them where neither --threshold nor the\n"
             "manifest sets a threshold, and warns when a threshold in force is below the floor.\n"
             "PATH is as for `perfgate run` (default: bench/).\n",
    .footer = "Exit status: 0 calibrated, 1 a benchmark failed (it is left out), 2 usage or\n"
              "environment error, " PG_XSTR(PG_EXIT_INTERRUPT) " interrupted (nothing written).\n",
};

typedef struct cal_args {
    pg_run_opts ro;
    int pairs, no_build, no_write, verbose;
    const char *filter;
    char *pass_env;             /* owned by ctx->args */
    pg_backend_kind backend;
    pg_manifest_arg manifest;
} cal_args;

static int parse_args(int *status, cal_args *a, pg_ctx *ctx, int argc, char **argv)
{
    *a = (cal_args){.ro = {.repeat = -1, .warmup = -1, .cpu = -1, .round = -1, .jobs = -1}, .pairs = 5,
                    .backend = PG_BACKEND_AUTO};
    const pg_opt opts[] = {
        PG_OPT_INT('n', "pairs", "N", "A/A pairs (default 5)", &a->pairs, 1, 1000),
        PG_OPT_INT('r', "repeat", "N", "measured runs per side (default: {repeat}; use\n"
                   "the count your comparisons use)", &a->ro.repeat, 1, INT_MAX),
        PG_OPT_INT('w', "warmup", "N", "unmeasured runs first (default: {warmup})", &a->ro.warmup, 0, INT_MAX),
        PG_OPT_INT(0, "cpu", "N", "pin benchmarks to CPU N (default: chosen)", &a->ro.cpu, 0, INT_MAX),
        PG_OPT_CALLBACK(0, "backend", "B", "{backends}", &a->backend, pg_cmd_opt_backend),
        PG_OPT_CALLBACK(0, "manifest", "PATH", "the benchmarks, as a PATH operand: a manifest, or a directory\n"
                        "with one (default: bench/)", &a->manifest, pg_cmd_opt_manifest),
        PG_OPT_STRING(0, "filter", "REGEX", "only benchmarks whose name matches (extended regex)", &a->filter),
        PG_OPT_FLAG(0, "no-build", "do not run the manifest's build command first", &a->no_build),
        PG_OPT_PASS_ENV(&a->pass_env),
        PG_OPT_BUILD_TIMEOUT(&a->ro.build_timeout),
        PG_OPT_JOBS(&a->ro.jobs),
        PG_OPT_FLAG(0, "no-write", "print the floors and suggestions, keep nothing", &a->no_write),
        PG_OPT_FLAG('v', "verbose", "list backend-specific metrics too (always kept)", &a->verbose),
        PG_OPT_END(),
    };
    int stop = pg_cmd_parse(status, ctx, &spec, opts, argc, argv);
    a->ro.jobs = pg_cmd_jobs(a->ro.jobs);
    a->ro.pass_env = a->pass_env;
    return stop;
}

typedef struct cal_state {
    const cal_args *a;
    pg_benchset set;
    pg_session sess;
    pg_measure_out out;         /* 2 * pairs documents: side s of pair p is docs[2p + s]; the runs'
                                   logs in an owned directory, which the sweep of the next run
                                   removes when this calibrate is killed */
    pg_floors floors;
    char commit[PG_OID_HEXSZ + 1];
    int have_commit;
} cal_state;

/* As `run` picks them: a manifest outside the work tree names its files (bench.h). */
static int select_benchmarks(cal_state *st, pg_ctx *ctx, const cal_args *a)
{
    int in_repo = pg_ctx_repo(ctx) == 0 && ctx->workdir;
    pg_error_clear();
    char **paths;
    int n, rc = pg_cmd_paths(&paths, &n, ctx, &a->manifest);
    if (rc == 0)
        rc = pg_bench_select(&st->set, paths, n, 1, in_repo ? ctx->workdir : NULL);
    free(paths);
    return rc;
}

static void progress(void *arg, const pg_benchset *set, size_t k)
{
    const cal_state *st = arg;
    (void)set;
    if (st->a->ro.progress)
        fprintf(stderr, "\rpair %zu of %d, side %c ", k / 2 + 1, st->a->pairs, k % 2 ? 'B' : 'A');
}

/* The pairs' sides one after the other, each measured whole as `run` does
 * (built, listed, filtered first: harness/measure/plan.h), nothing stored. */
static int measure(cal_state *st, cal_args *a, pg_ctx *ctx)
{
    const char *commit = st->commit;
    pg_measure_here here = {.set = &st->set, .filter = a->filter, .no_build = a->no_build,
                            .copies = 2 * (size_t)a->pairs, .logs_prefix = PG_LEFTOVERS_CALIBRATE_PREFIX,
                            .before = progress, .arg = st};
    a->ro.progress = isatty(2);
    pg_measure_plan plan = {.repo = ctx->repo, .commits = &commit, .ncommits = st->have_commit, .here = &here,
                            .worktree = ctx->workdir, .sess = &st->sess, .ro = &a->ro};
    int rc = pg_measure(&st->out, &plan);
    if (rc == PG_EINTR)
        return pg_error_set(PG_EINTR, "interrupted; nothing was written");
    return rc;
}

/* The median of `name` of benchmark `b` in doc k, NAN when it has none or failed. */
static double median_of(cal_state *st, size_t k, const char *bench, const char *name)
{
    pg_rundoc_bench *b = pg_rundoc_find_bench(&st->out.docs[k], bench);
    const pg_rundoc_metric *m = b && !b->failed ? pg_rundoc_metric_find(b, name) : NULL;
    return m && m->n ? pg_stats_median(m->samples, m->n) : NAN;
}

/* Floors of every (benchmark, metric) measured on both sides of every pair. */
static int compute(cal_state *st, const cal_args *a)
{
    size_t n = (size_t)a->pairs;
    double *base = malloc(n * sizeof *base), *cand = malloc(n * sizeof *cand);
    int rc = base && cand ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    const pg_rundoc *first = &st->out.docs[0];
    for (size_t i = 0; i < first->nbench && rc == 0; i++) {
        const pg_rundoc_bench *b = &first->bench[i];
        for (size_t j = 0; j < b->nmetrics && rc == 0; j++) {
            const char *name = b->metrics[j].name;
            size_t p = 0;
            for (; p < n; p++) {
                base[p] = median_of(st, 2 * p, b->name, name);
                cand[p] = median_of(st, 2 * p + 1, b->name, name);
                if (isnan(base[p]) || isnan(cand[p]))
                    break;
            }
            double floor_pct;
            if (p < n || pg_calib_floor(&floor_pct, base, cand, n) < 0) {
                pg_error_clear();
                continue;   /* failed in a run, or zero in every baseline: nothing to say */
            }
            rc = pg_floors_set(&st->floors, b->name, name, floor_pct, pg_calib_suggest(floor_pct));
        }
    }
    free(base);
    free(cand);
    return rc;
}

static void print_floor(char *buf, size_t len, double pct)
{
    if (pct == 0)
        snprintf(buf, len, "0%%");
    else
        snprintf(buf, len, "%.2g%%", pct);
}

static void print_report(const cal_state *st, const cal_args *a)
{
    int repeat = st->set.n ? pg_runner_repeat(&st->set, 0, &a->ro, st->sess.props) : 1;
    printf("perfgate calibrate: %zu benchmark%s, backend %s, %d A/A pair%s of %d run%s a side, machine %s",
           st->set.n, st->set.n == 1 ? "" : "s", pg_backend_name(st->sess.backend), a->pairs, a->pairs == 1 ? "" : "s",
           repeat, repeat == 1 ? "" : "s", st->sess.machine.id);
    if (st->have_commit)
        printf(", commit %.12s", st->commit);
    printf("\n\n%-24s %-16s %12s %10s %8s\n", "benchmark", "metric", "noise floor", "suggested", "default");
    for (size_t i = 0; i < st->floors.n; i++) {
        const pg_floor *f = &st->floors.v[i];
        /* valgrind's own counters (D1mr...) are kept but, as in `run`, not listed */
        if (!a->verbose && !pg_metric_find(f->metric))
            continue;
        char name[256], fl[32], sug[32], def[32];
        print_floor(fl, sizeof fl, f->floor_pct);
        pg_format_threshold(sug, sizeof sug, f->threshold_pct);
        pg_format_threshold(def, sizeof def, pg_threshold_default(f->metric));
        printf("%-24s %-16s %12s %10s %8s\n", pg_text_escape_buf(name, sizeof name, f->bench, PG_TEXT_TERM), f->metric,
               fl, sug, def);
    }
}

/* The suggestions as a manifest's "thresholds", per benchmark, for the registry's metrics. */
static void print_snippet(const cal_state *st)
{
    printf("\nTo keep them in the manifest instead (docs/manifest.md), per benchmark:\n");
    for (size_t i = 0; i < st->set.n; i++) {
        const char *bench = st->set.v[i].name;
        int any = 0;
        for (size_t j = 0; j < st->floors.n; j++) {
            const pg_floor *f = &st->floors.v[j];
            if (strcmp(f->bench, bench) || !pg_metric_find(f->metric))
                continue;
            if (!any) {
                printf("  ");
                pg_text_fputs(stdout, bench, PG_TEXT_TERM);
                printf(": \"thresholds\": { ");
            }
            char sug[32];
            pg_format_threshold(sug, sizeof sug, f->threshold_pct);
            printf("%s\"%s\": \"%s\"", any ? ", " : "", f->metric, sug);
            any = 1;
        }
        if (any)
            printf(" }\n");
    }
}

static int save(const cal_state *st, const cal_args *a, pg_ctx *ctx)
{
    if (a->no_write)
        return 0;
    int rc;
    char path[PATH_MAX + 32];
    int repeat = st->set.n ? pg_runner_repeat(&st->set, 0, &a->ro, st->sess.props) : 1;
    pg_calibration_meta meta = {.commit = st->have_commit ? st->commit : NULL, .pairs = a->pairs, .repeat = repeat};
    rc = pg_calibration_save(path, sizeof path, ctx->store, st->sess.machine.id, pg_backend_name(st->sess.backend),
                             &meta, &st->floors);
    if (rc == 0)
        printf("\nthresholds for machine %s (%s backend) written to %s;\n"
               "compare uses them where neither --threshold nor the manifest sets one.\n",
               st->sess.machine.id, pg_backend_name(st->sess.backend), path);
    return rc;
}

static void cal_state_free(cal_state *st)
{
    pg_measure_out_free(&st->out);
    pg_floors_free(&st->floors);
    pg_session_close(&st->sess);
    pg_benchset_free(&st->set);
}

int pg_cmd_calibrate(pg_ctx *ctx, int argc, char **argv)
{
    cal_args a;
    int status;
    if (parse_args(&status, &a, ctx, argc, argv))
        return status;
    cal_state st = {.a = &a};
    pg_benchset_init(&st.set);
    int rc = select_benchmarks(&st, ctx, &a);
    if (rc == 0)
        rc = pg_session_open(&st.sess, a.backend, NULL, 1);
    if (rc == 0 && pg_ctx_repo(ctx) == 0) {
        int dirty;
        st.have_commit = pg_repo_head(st.commit, &dirty, ctx->repo) == 0;
    }
    pg_error_clear();
    if (rc == 0 && a.ro.cpu == -1)
        a.ro.cpu = pg_runner_pick_cpu();
    else if (rc == 0 && a.ro.cpu >= 0)
        rc = pg_check_cpu(a.ro.cpu);
    /* Where the thresholds go, and that they can go there, before measuring. */
    if (rc == 0 && !a.no_write && (rc = pg_ctx_store(ctx)) < 0)
        pg_error_wrap(rc, "nowhere to keep the thresholds (give --store DIR, or --no-write)");
    if (rc == 0 && !a.no_write)
        rc = pg_calibration_check(ctx->store);
    if (rc == 0)
        rc = measure(&st, &a, ctx);
    if (a.ro.progress)
        fputc('\n', stderr);
    if (rc == 0)
        rc = compute(&st, &a);
    if (rc == 0) {
        print_report(&st, &a);
        print_snippet(&st);
        rc = save(&st, &a, ctx);
    }
    status = rc < 0 ? pg_exit_status(rc) : PG_EXIT_OK;
    if (rc == 0 && st.out.nfailed) {
        int n = st.out.nfailed;
        fprintf(stderr, "perfgate: %d benchmark run%s failed and %s left out; logs in %s\n", n, n == 1 ? "" : "s",
                n == 1 ? "its benchmark is" : "their benchmarks are", st.out.logs);
        status = PG_EXIT_FAIL;
    }
    fflush(stdout);
    cal_state_free(&st);
    return status;
}
