/* harness/cli/cmd_backfill.c — `perfgate backfill A..B`: every commit of a
 * range (or a list of revisions) that has no results on this machine and
 * backend, measured and stored, so that `history` and `bisect` start from a
 * filled range (asv's `asv run A..B`, rustc-perf's backfill).
 *
 * The range is the first-parent line, as history and bisect walk it
 * (pg_repo_first_parents). Each commit is checked out, built with the
 * manifest's build and measured on its own, and stored as soon as it is
 * (harness/measure/plan.h, pg_measure_each): a killed backfill loses only
 * the commit it was measuring, and the same command again measures only what
 * is missing. `--every N` thins the range, `--part I/N` splits it between CI
 * jobs (round robin, so every part spans the whole range); `--shard` is not
 * used for it because `run --shard` is a part of the suite.
 */
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/measure/plan.h"
#include "harness/measure/session.h"
#include "harness/store/gitrange.h"
#include "harness/store/gitrepo.h"
#include "harness/store/notes.h"
#include "util/error.h"
#include "util/text.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate backfill",
    .usage = "usage: perfgate backfill [OPTIONS] RANGE|REV...\n"
             "\n"
             "Measure and store every commit of the ranges and revisions given that has no\n"
             "results on this machine and backend (local store or git notes), one commit at\n"
             "a time: each is checked out into a temporary directory, built with the\n"
             "manifest's build command, measured and stored before the next, so a killed\n"
             "backfill is resumed by running it again. A..B is the first-parent line after A\n"
             "up to B (as history and bisect walk it; B defaults to HEAD); REV is that one\n"
             "commit. One line per commit says what happened to it.\n",
    .footer = "Exit status: 0 every commit is stored, 1 a commit could not be measured (its\n"
              "checkout or build failed) or a benchmark failed, 2 error (bad revisions or\n"
              "options, a store that cannot be written), " PG_XSTR(PG_EXIT_INTERRUPT) " interrupted (what was\n"
              "measured before stays stored).\n",
};

typedef struct opts {
    pg_manifest_arg manifest;
    pg_backend_kind backend;
    pg_metric_set metrics;
    int repeat, no_native, native_repeat, no_notes, reuse, jobs, every, dry_run;
    int part_index, part_count;
    double build_timeout;
    char *pass_env;             /* owned by ctx->args */
} opts;

/* --part I/N: 1 <= I <= N. */
static int opt_part(const pg_opt *opt, const char *name, const char *arg)
{
    opts *o = opt->dest;
    const char *slash = strchr(arg, '/');
    char i[32];
    long long vi, vn;
    snprintf(i, sizeof i, "%.*s", slash ? (int)(slash - arg) : 0, arg);
    if (!slash || pg_opt_whole(&vi, i, 1, 100000) < 0 || pg_opt_whole(&vn, slash + 1, 1, 100000) < 0 || vi > vn)
        return pg_error_set(PG_EINVAL, "%s '%s': expected I/N with 1 <= I <= N, like 2/4", name, arg);
    o->part_index = (int)vi, o->part_count = (int)vn;
    return 0;
}

/* The commits an operand names, oldest first, appended to *line (grown). */
static int add_operand(char (**line)[PG_OID_HEXSZ + 1], unsigned long *n, pg_repo *repo, const char *arg)
{
    char b[PG_OID_HEXSZ + 1];
    char (*part)[PG_OID_HEXSZ + 1] = NULL;
    unsigned long np = 1;
    int rc;
    if (!strstr(arg, "..")) {
        if ((rc = pg_repo_resolve(b, repo, arg)) < 0)
            return rc;
    } else if ((rc = pg_repo_range(&part, &np, repo, arg)) < 0)
        return rc;
    void *grown = realloc(*line, (*n + np + 1) * sizeof **line);
    if (!grown) {
        free(part);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    *line = grown;
    if (part)
        memcpy(*line + *n, part, np * sizeof **line);
    else
        memcpy((*line)[*n], b, sizeof b);
    *n += np;
    free(part);
    return 0;
}

/* The commits to measure: every operand's, each once (its first place
 * kept), thinned by --every (counted from the newest of the list, which is
 * always kept), then this --part's. */
static int choose(const char ***out, size_t *nout, size_t *nall, char (*line)[PG_OID_HEXSZ + 1], unsigned long n,
                  const opts *o)
{
    const char **keep = calloc(n ? n : 1, sizeof *keep);
    if (!keep)
        return pg_error_set(PG_ENOMEM, "out of memory");
    size_t k = 0, m = 0;
    for (unsigned long i = 0; i < n; i++) {
        int dup = 0;
        for (size_t j = 0; j < k && !dup; j++)
            dup = !strcmp(keep[j], line[i]);
        if (!dup)
            keep[k++] = line[i];
    }
    *nall = k;
    for (size_t i = 0; i < k; i++) {
        size_t from_newest = k - 1 - i, place = o->every > 1 ? from_newest / (size_t)o->every : i;
        if (o->every > 1 && from_newest % (size_t)o->every)
            continue;
        if (o->part_count && place % (size_t)o->part_count != (size_t)(o->part_index - 1))
            continue;
        keep[m++] = keep[i];
    }
    *out = keep;
    *nout = m;
    return 0;
}

typedef struct tally {
    pg_ctx *ctx;
    const char *const *commits;
    size_t n, measured, stored, failed, bench_failed;
    int dry_run;
} tally;

/* One line per commit: "[3/8] 1a2b3c4d5e6f measured  subject". */
static void told(void *arg, size_t i, pg_measure_fate fate, int nfailed, const char *why)
{
    tally *t = arg;
    char subject[256], esc[256], what[512], ewhy[400];
    pg_repo_summary(subject, sizeof subject, t->ctx->repo, t->commits[i]);
    pg_text_escape_buf(esc, sizeof esc, subject, PG_TEXT_TERM);
    if (fate == PG_MEASURE_STORED) {
        t->stored++;
        snprintf(what, sizeof what, "already stored");
    } else if (fate == PG_MEASURE_FAILED) {
        t->failed++;
        snprintf(what, sizeof what, "FAILED: %s", pg_text_escape_buf(ewhy, sizeof ewhy, why ? why : "", PG_TEXT_TERM));
    } else if (t->dry_run) {
        snprintf(what, sizeof what, "to measure");
    } else {
        t->measured++;
        t->bench_failed += nfailed > 0;
        if (nfailed)
            snprintf(what, sizeof what, "measured, %d benchmark run%s FAILED", nfailed, nfailed == 1 ? "" : "s");
        else
            snprintf(what, sizeof what, "measured");
    }
    char pos[48];
    snprintf(pos, sizeof pos, "[%zu/%zu]", i + 1, t->n);
    printf("%-9s %.12s %s  %s\n", pos, t->commits[i], what, esc);
    fflush(stdout);
}

/* --dry-run: each commit's fate without measuring. */
static int dry_each(const pg_measure_plan *p, tally *t)
{
    for (size_t i = 0; i < p->ncommits; i++) {
        int yes = 0;
        int rc = pg_measure_has_run(&yes, p, p->commits[i]);
        if (rc < 0)
            return rc;
        told(t, i, yes ? PG_MEASURE_STORED : PG_MEASURE_DONE, 0, NULL);
    }
    return 0;
}

/* The first line: how many commits, chosen how, measured how. */
static void header(const tally *t, size_t nall, const opts *o, const pg_session *sess)
{
    char how[96] = "";
    if (o->every > 1 && o->part_count)
        snprintf(how, sizeof how, " of %zu (every %d, part %d/%d)", nall, o->every, o->part_index, o->part_count);
    else if (o->every > 1)
        snprintf(how, sizeof how, " of %zu (every %d)", nall, o->every);
    else if (o->part_count)
        snprintf(how, sizeof how, " of %zu (part %d/%d)", nall, o->part_index, o->part_count);
    printf("backfill: %zu commit%s%s, backend %s, machine %.12s\n", t->n, t->n == 1 ? "" : "s", how,
           pg_backend_name(sess->backend), sess->machine.id);
    fflush(stdout);
}

/* Measures what is missing of the chosen commits with session `sess`. */
static int measure(tally *t, const opts *o, pg_ctx *ctx, pg_session *sess)
{
    char manifest[PATH_MAX + 8];
    pg_cmd_manifest_path(manifest, sizeof manifest, ctx->workdir, &o->manifest);
    pg_run_opts ro = {.repeat = o->repeat > 0 ? o->repeat : -1, .warmup = -1, .cpu = pg_runner_pick_cpu(),
                      .round = -1, .progress = isatty(2), .metrics = o->metrics, .native = sess->native,
                      .native_repeat = o->native_repeat,
                      .build_timeout = o->build_timeout, .jobs = pg_cmd_jobs(o->jobs), .pass_env = o->pass_env};
    pg_measure_plan plan = {.repo = ctx->repo, .commits = t->commits, .ncommits = t->n, .bench_path = manifest,
                            .worktree = ctx->workdir, .sess = sess, .ro = &ro, .store_root = ctx->store,
                            .notes = o->no_notes ? PG_NOTES_NONE : PG_NOTES_RUNS, .reuse = o->reuse};
    int rc = o->dry_run ? dry_each(&plan, t) : pg_measure_each(&plan, told, t);
    char err[512];
    snprintf(err, sizeof err, "%s", rc < 0 ? pg_error_last() : "");
    if (o->dry_run)
        printf("backfill: %zu to measure, %zu already stored\n", t->n - t->stored, t->stored);
    else
        printf("backfill: %zu measured, %zu already stored, %zu failed%s\n", t->measured, t->stored, t->failed,
               rc == PG_EINTR ? "; interrupted" : rc < 0 ? "; stopped" : "");
    fflush(stdout);
    return rc < 0 ? pg_error_set(rc, "%s", err) : 0;
}

static int backfill(tally *t, const opts *o, pg_ctx *ctx)
{
    char (*line)[PG_OID_HEXSZ + 1] = NULL;
    unsigned long n = 0;
    const char **commits = NULL;
    size_t nall = 0;
    int rc = 0;
    if ((rc = pg_ctx_repo(ctx)) < 0 || (rc = pg_ctx_store(ctx)) < 0 || (rc = pg_cmd_check_manifest(ctx, &o->manifest)) < 0)
        return rc;
    for (int i = 0; i < ctx->args.nargs && rc == 0; i++)
        rc = add_operand(&line, &n, ctx->repo, ctx->args.args[i]);
    if (rc == 0)
        rc = choose(&commits, &t->n, &nall, line, n, o);
    t->commits = commits;
    if (rc == 0) {
        pg_session sess;
        rc = pg_session_open(&sess, o->backend, NULL, 1);
        if (rc == 0 && !o->no_native && !o->dry_run)
            rc = pg_session_open_native(&sess);
        if (rc == 0) {
            pg_session_tell(&sess);
            header(t, nall, o, &sess);
            rc = measure(t, o, ctx, &sess);
        }
        pg_session_close(&sess);
    }
    free(commits);
    free(line);
    return rc;
}

int pg_cmd_backfill(pg_ctx *ctx, int argc, char **argv)
{
    opts o = {.jobs = -1};
    const pg_opt table[] = {
        PG_OPT_CALLBACK(0, "manifest", "PATH", PG_MANIFEST_HELP, &o.manifest, pg_cmd_opt_manifest),
        PG_OPT_INT(0, "every", "N", "only every Nth commit of the list, counted from the newest\n"
                   "(which is always one)", &o.every, 1, INT_MAX),
        PG_OPT_CALLBACK(0, "part", "I/N", "only part I of N of the commits (after --every), dealt round\n"
                        "robin: N CI jobs with parts 1/N to N/N measure the whole list\n"
                        "once (run's --shard is a part of the suite, not of the commits)", &o, opt_part),
        PG_OPT_CALLBACK(0, "backend", "B", "{backends}", &o.backend, pg_cmd_opt_backend),
        PG_OPT_INT('r', "repeat", "N", "measured runs per benchmark", &o.repeat, 1, INT_MAX),
        PG_OPT_CALLBACK(0, "metrics", "LIST", PG_METRICS_HELP, &o.metrics, pg_opt_metrics),
        PG_OPT_FLAG(0, "no-native", "{native-time} backend: do not also run each benchmark natively for\n"
                    "task-clock and wall-time", &o.no_native),
        PG_OPT_INT(0, "native-repeat", "N", "{native-time} backend: native runs per benchmark (default: --repeat,\n"
                   "else 5)", &o.native_repeat, 1, INT_MAX),
        PG_OPT_JOBS(&o.jobs),
        PG_OPT_PASS_ENV(&o.pass_env),
        PG_OPT_BUILD_TIMEOUT(&o.build_timeout),
        PG_OPT_FLAG(0, "reuse-unchanged", "take a stored result's exact counts for a benchmark nothing of\n"
                    "which changed (docs/metrics.md)", &o.reuse),
        PG_OPT_FLAG(0, "no-notes", "store in the local store only, not in git notes", &o.no_notes),
        PG_OPT_FLAG('n', "dry-run", "say which commits would be measured, measure nothing", &o.dry_run),
        PG_OPT_END(),
    };
    int status;
    if (pg_cmd_parse(&status, ctx, &spec, table, argc, argv))
        return status;
    if (ctx->args.nargs < 1)
        return pg_die("backfill takes a range A..B or revisions (got none); see 'perfgate backfill --help'");
    tally t = {.ctx = ctx, .dry_run = o.dry_run};
    int rc = backfill(&t, &o, ctx);
    if (rc < 0)
        return pg_exit_status(rc);
    return t.failed || t.bench_failed ? PG_EXIT_FAIL : PG_EXIT_OK;
}
