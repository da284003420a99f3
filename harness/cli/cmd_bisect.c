/* harness/cli/cmd_bisect.c — `perfgate bisect GOOD BAD`: the first commit on the
 * first-parent line from GOOD to BAD that regresses against GOOD.
 *
 * A binary search over that line. Each step compares one commit with GOOD by
 * the rules of `compare` (report/compare.h: the same thresholds and gates), on
 * this machine and backend; a commit without such results is built and
 * measured like `compare --run-missing` does (harness/measure/plan.h) and stored,
 * so a second bisect, or a compare, measures nothing again. Only "regressed"
 * counts as bad: unchanged, improved and inconclusive probes are good.
 *
 * A decision resting on a noisy gating metric near its cut is measured
 * again, interleaved, until two rounds agree (report/confirm.h,
 * pg_confirm_near; docs/bisect.md "Noisy metrics").
 *
 * The search assumes the regression, once in, stays. When the commit found
 * does not itself regress against its first parent (the change crept in over
 * several commits, none past the threshold alone, or it came and went), no
 * single commit explains it and bisect exits 1 saying so.
 */
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/store/gitrepo.h"
#include "harness/store/notes_stacks.h"
#include "harness/store/results.h"
#include "harness/measure/confirm.h"
#include "harness/measure/plan.h"
#include "harness/measure/session.h"
#include "report/compare.h"
#include "report/confirm.h"
#include "report/format.h"
#include "report/threshold.h"
#include "util/error.h"
#include "util/suggest.h"
#include "util/text.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate bisect",
    .usage = "usage: perfgate bisect [OPTIONS] GOOD BAD\n"
             "\n"
             "Find the first commit on the first-parent line from GOOD to BAD whose results\n"
             "regress against GOOD's, by binary search (about log2(N) steps for N commits).\n"
             "Each step compares a commit with GOOD like `perfgate compare GOOD COMMIT`;\n"
             "a commit without results on this machine is checked out into a temporary\n"
             "directory, built and measured like `compare --run-missing` does, and stored.\n",
    .footer = "Exit status: 0 the commit was found, 1 no single commit explains the change (BAD\n"
              "does not regress against GOOD, or the commit found does not regress against its\n"
              "own parent), 2 error (bad revisions, unknown benchmark or metric), " PG_XSTR(PG_EXIT_INTERRUPT)
              " interrupted.\n",
};

typedef struct opts {
    pg_thresholds thresholds;
    pg_gates gates;
    const char *bench;          /* --benchmark */
    pg_manifest_arg manifest;
    pg_backend_kind backend;
    pg_metric_set metrics;
    int repeat, no_notes;
    double build_timeout;
    int jobs;
    char *pass_env;             /* owned by ctx->args */
} opts;

/* One bisect: the line searched and what it needs to measure and compare. */
typedef struct search {
    pg_ctx *ctx;
    const opts *o;
    pg_session sess;
    char good[PG_OID_HEXSZ + 1], bad[PG_OID_HEXSZ + 1];
    char (*line)[PG_OID_HEXSZ + 1];     /* after GOOD, oldest first; BAD last */
    unsigned long n;
    size_t measured, steps;
    size_t confirmed, split;            /* decisions measured again; of those, decided 2 rounds to 1 */
    char unsure[160];                   /* the first decision that split, for the last line */
    int noisy;                          /* a gating metric is not an exact count */
    double alpha;                       /* the comparisons' significance level */
} search;

/* How bisect measures two commits (into `ro`, `bench`: the plan points at them). */
typedef struct bisect_plan {
    const char *both[2];
    pg_run_opts ro;
    char bench[PATH_MAX + 8];
    pg_measure_plan plan;
} bisect_plan;

static void plan_of(bisect_plan *bp, search *s, const char *a, const char *b)
{
    const char *wd = s->ctx->workdir;
    bp->both[0] = a, bp->both[1] = b;
    bp->ro = (pg_run_opts){.repeat = s->o->repeat > 0 ? s->o->repeat : -1, .warmup = -1, .cpu = pg_runner_pick_cpu(),
                           .round = -1, .progress = isatty(2), .metrics = s->o->metrics,
                           .build_timeout = s->o->build_timeout, .jobs = pg_cmd_jobs(s->o->jobs),
                           .pass_env = s->o->pass_env};
    pg_cmd_manifest_path(bp->bench, sizeof bp->bench, wd, &s->o->manifest);
    bp->plan = (pg_measure_plan){.repo = s->ctx->repo, .commits = bp->both, .ncommits = 2, .bench_path = bp->bench,
                                 .worktree = wd, .sess = &s->sess, .ro = &bp->ro, .store_root = s->ctx->store,
                                 .notes = !s->o->no_notes};
}

/* Measures whichever of `a` and `b` has no results on this machine and
 * backend yet (both at once, interleaved). */
static int measure(search *s, const char *a, const char *b)
{
    size_t measured;
    bisect_plan bp;
    plan_of(&bp, s, a, b);
    int rc = pg_measure_missing(&measured, &bp.plan, NULL);
    s->measured += measured;
    return rc;
}

/* The side of `commit` on this session's machine and backend. */
static int load_side(pg_side *side, search *s, const char *commit, const char *label)
{
    pg_rundoc_list runs = {0};
    int rc = pg_results_load(&runs, s->ctx->store, s->ctx->repo, commit);
    if (rc == 0) {
        pg_notes_stacks_fill(&runs, s->ctx->store, s->ctx->repo, commit);
        snprintf(side->label, sizeof side->label, "%s", label);
        snprintf(side->commit, sizeof side->commit, "%s", commit);
        rc = pg_results_collect(side, &runs, s->sess.machine.id, pg_backend_name(s->sess.backend), s->ctx->store);
    }
    pg_rundoc_list_free(&runs);
    return rc;
}

/* --bench and --gate must name what GOOD measured: else a did-you-mean error. */
static const char *closest(char *buf, size_t len, const char *typed, const char *const *names, size_t n)
{
    pg_suggest s;
    pg_suggest_init(&s, typed);
    for (size_t i = 0; i < n; i++)
        pg_suggest_offer(&s, names[i]);
    return pg_suggest_clause(&s, buf, len);
}

static int check_names(const pg_side *good, const opts *o)
{
    char mean[128];
    const char *names[256];
    size_t n = 0;
    const pg_bench_result *chosen = NULL;
    for (size_t i = 0; i < good->nb && n < 256; i++) {
        names[n++] = good->b[i].name;
        if (o->bench && !strcmp(good->b[i].name, o->bench))
            chosen = &good->b[i];
    }
    if (o->bench && !chosen) {
        struct stat st;     /* the manifest's directory given for a name */
        int path = stat(o->bench, &st) == 0;
        return pg_error_set(PG_EINVAL, "--benchmark '%s': no such benchmark in GOOD's results%s%s%s%s", o->bench,
                            closest(mean, sizeof mean, o->bench, names, n), path ? " ('" : "", path ? o->bench : "",
                            path ? "' is a file or directory here: for the benchmarks' manifest, use --manifest)" : "");
    }
    for (size_t g = 0; g < o->gates.n; g++) {
        n = 0;
        int seen = 0;
        for (size_t i = 0; i < good->nb && !seen; i++) {
            if (chosen && chosen != &good->b[i])
                continue;
            for (size_t k = 0; k < good->b[i].nm && !seen; k++) {
                seen = !strcmp(good->b[i].m[k].metric, o->gates.v[g]);
                if (n < 256)
                    names[n++] = good->b[i].m[k].metric;
            }
        }
        if (!seen) {
            return pg_error_set(PG_EINVAL, "--gate '%s': no such metric in GOOD's results%s", o->gates.v[g],
                                closest(mean, sizeof mean, o->gates.v[g], names, n));
        }
    }
    return 0;
}

/* The verdict that decides: --bench's, else the whole comparison's. */
static pg_verdict verdict_of(const pg_comparison *c, const opts *o)
{
    if (!o->bench)
        return c->verdict;
    for (size_t i = 0; i < c->nbench; i++)
        if (!strcmp(c->bench[i].name, o->bench))
            return c->bench[i].verdict;
    return PG_VERDICT_INCONCLUSIVE;     /* gone from the candidate */
}

/* The benchmarks a decision rests on (--bench's, else every one) whose
 * verdict could go either way on a noisy gating metric (report/confirm.h). */
static int near_cut(const pg_bench_cmp *b, const void *arg)
{
    const search *s = arg;
    return (!s->o->bench || !strcmp(b->name, s->o->bench)) && pg_confirm_near(b, s->alpha);
}

/* Whether round `c` decides "regressed": a benchmark regressed there; with
 * `only_near`, among those near the cut (the others keep round 1's verdict). */
static int regressed_in(const pg_comparison *c, const search *s, int only_near)
{
    for (size_t i = 0; i < c->nbench; i++)
        if ((!s->o->bench || !strcmp(c->bench[i].name, s->o->bench)) && c->bench[i].verdict == PG_VERDICT_REGRESSED &&
            (!only_near || near_cut(&c->bench[i], s)))
            return 1;
    return 0;
}

/* One more interleaved round of the benchmarks of `c` near the cut, at
 * `base` and `cand`, stored like the first: its vote, 1 for regressed. */
static int another_round(int *yes, search *s, pg_comparison *c, const char *base, const char *cand)
{
    bisect_plan bp;
    plan_of(&bp, s, base, cand);
    /* Runs stored by earlier commands are pooled: a noisy decision near the
     * cut is measured again, interleaved (pg_round2_run), before it is taken. */
    pg_compare_opts co = {.thresholds = &s->o->thresholds, .gates = &s->o->gates, .allow_apart = 1};
    pg_round2_opts r2o = {.backend = s->sess.backend, .co = &co, .want = near_cut, .want_arg = s,
                          .why = "near the threshold on noisy metrics", .keep = 1};
    pg_round2 r = {0};
    int rc = pg_round2_run(&r, c, &bp.plan, &r2o);
    if (rc == 0)
        *yes = regressed_in(&r.c, s, 0);
    pg_round2_free(&r);
    return rc;
}

/* A decision resting on a noisy metric near its cut is measured again,
 * interleaved, until two rounds agree: the second round, and a third when
 * the first two differ (docs/bisect.md, "Noisy metrics"). */
static int confirm(pg_verdict *verdict, search *s, pg_comparison *c, const char *base, const char *cand)
{
    size_t near = 0, clear = 0;
    s->alpha = c->alpha;
    for (size_t i = 0; i < c->nbench; i++) {
        const pg_bench_cmp *b = &c->bench[i];
        for (size_t k = 0; k < b->nm; k++)
            s->noisy |= b->m[k].gating && !b->m[k].deterministic && !b->m[k].not_compared;
        int in = !s->o->bench || !strcmp(b->name, s->o->bench), n = near_cut(b, s);
        near += n;
        clear += in && !n && b->verdict == PG_VERDICT_REGRESSED;
    }
    if (!near || clear)
        return 0;   /* nothing near the cut, or a clear regression elsewhere decides */
    int first = regressed_in(c, s, 1), yes, second, third = 0;
    int rc = another_round(&second, s, c, base, cand);
    if (rc == 0 && second != first)
        rc = another_round(&third, s, c, base, cand);
    if (rc < 0)
        return rc;
    s->confirmed++;
    yes = second == first ? first : third;
    printf("  %.12s against %.12s: near the threshold; rounds: %s, %s%s%s -> %s\n", cand, base,
           first ? "regressed" : "not", second ? "regressed" : "not", second != first ? ", " : "",
           second != first ? (third ? "regressed" : "not") : "", yes ? "regressed" : "not regressed");
    if (second != first && s->split++ == 0)
        snprintf(s->unsure, sizeof s->unsure, "%.12s against %.12s was decided 2 rounds to 1", cand, base);
    *verdict = yes ? PG_VERDICT_REGRESSED : *verdict == PG_VERDICT_REGRESSED ? PG_VERDICT_INCONCLUSIVE : *verdict;
    return 0;
}

/* Compares `base` (NULL: GOOD) with `cand` into *verdict, confirming a
 * decision near the cut; `print` (NULL: no) lists the gating metrics'
 * deltas of each regressed benchmark instead (of the runs stored by then). */
static int judge(pg_verdict *verdict, search *s, const char *base, const char *cand, const char *print)
{
    pg_side side[2];
    memset(side, 0, sizeof side);
    int rc = measure(s, base ? base : s->good, cand);
    if (rc == 0)
        rc = load_side(&side[0], s, base ? base : s->good, base ? "parent" : "GOOD");
    if (rc == 0)
        rc = load_side(&side[1], s, cand, "candidate");
    if (rc == 0 && !base && s->steps == 0)
        rc = check_names(&side[0], s->o);
    pg_comparison c;
    /* Runs stored by earlier commands are pooled: a noisy decision near the
     * cut is measured again, interleaved (pg_round2_run), before it is taken. */
    pg_compare_opts co = {.thresholds = &s->o->thresholds, .gates = &s->o->gates, .allow_apart = 1};
    if (rc == 0 && (rc = pg_compare(&c, &side[0], &side[1], &co)) == 0) {
        *verdict = verdict_of(&c, s->o);
        if (!print)
            rc = confirm(verdict, s, &c, base ? base : s->good, cand);
        for (size_t i = 0; print && i < c.nbench; i++) {
            const pg_bench_cmp *b = &c.bench[i];
            if ((s->o->bench && strcmp(b->name, s->o->bench)) || b->verdict != PG_VERDICT_REGRESSED)
                continue;
            for (size_t k = 0; k < b->nm; k++) {
                const pg_metric_cmp *m = &b->m[k];
                if (!m->gating)
                    continue;
                char va[48], vb[48], d[48], pct[24], name[160];
                pg_format_with_unit(va, sizeof va, m->base, m->unit, 0);
                pg_format_with_unit(vb, sizeof vb, m->cand, m->unit, 0);
                pg_format_with_unit(d, sizeof d, m->delta_abs, m->unit, 1);
                pg_format_pct(pct, sizeof pct, m->delta_pct);
                printf("  %s %s: %s -> %s (%s, %s) against %s\n", pg_text_escape_buf(name, sizeof name, b->name, PG_TEXT_TERM),
                       m->metric, va, vb, d, pct, print);
                if (m->spread > 0) {
                    pg_format_with_unit(d, sizeof d, m->spread, m->unit, 0);
                    printf("    %s does not repeat its %s: they vary by %s between runs of one commit (it prints "
                           "timings, or reads the clock or /proc); decided against that spread\n", name, m->metric, d);
                }
            }
        }
        pg_comparison_free(&c);
    }
    pg_side_free(&side[0]);
    pg_side_free(&side[1]);
    return rc;
}

/* One search step: line[i] against GOOD; *regressed says how it went. */
static int step(int *regressed, search *s, unsigned long i)
{
    size_t before = s->measured;
    pg_verdict v;
    int rc = judge(&v, s, NULL, s->line[i], NULL);
    if (rc < 0)
        return rc;
    s->steps++;
    *regressed = v == PG_VERDICT_REGRESSED;
    char subject[256], esc[256];
    pg_repo_summary(subject, sizeof subject, s->ctx->repo, s->line[i]);
    printf("step %zu: %.12s %s (%s)  %s\n", s->steps, s->line[i], pg_verdict_name(v),
           s->measured > before ? "measured" : "stored", pg_text_escape_buf(esc, sizeof esc, subject, PG_TEXT_TERM));
    fflush(stdout);
    return 0;
}

/* With a noisy gate, the answer is checked against its other neighbour:
 * the commit after it (when there is one) should not regress against it,
 * else the change goes on past it. line[hi - 1] is the answer. */
static int check_child(search *s, unsigned long hi)
{
    if (!s->noisy || hi >= s->n)
        return 0;
    pg_verdict v;
    int rc = judge(&v, s, s->line[hi - 1], s->line[hi], NULL);
    if (rc == 0)
        printf("the commit after it, %.12s, %s against it%s\n", s->line[hi],
               v == PG_VERDICT_REGRESSED ? "regresses too" : "does not regress",
               v == PG_VERDICT_REGRESSED ? ": the change goes on past the commit found" : "");
    return rc;
}

static int bisect(int *status, search *s)
{
    unsigned long lo = 0, hi = s->n;    /* line[lo - 1] good (0: GOOD itself), line[hi - 1] regressed */
    printf("bisect: %lu commit%s after GOOD %.12s up to BAD %.12s (log2 %lu = %.2f)\n", s->n, s->n == 1 ? "" : "s",
           s->good, s->bad, s->n, log2((double)s->n));
    int regressed, rc = step(&regressed, s, s->n - 1);
    if (rc < 0)
        return rc;
    if (!regressed) {
        printf("BAD %.12s does not regress against GOOD %.12s: nothing to bisect\n", s->bad, s->good);
        *status = PG_EXIT_FAIL;
        return 0;
    }
    while (hi - lo > 1) {
        unsigned long mid = lo + (hi - lo) / 2;    /* line[mid - 1] */
        if ((rc = step(&regressed, s, mid - 1)) < 0)
            return rc;
        if (regressed)
            hi = mid;
        else
            lo = mid;
    }
    const char *found = s->line[hi - 1], *parent = lo ? s->line[lo - 1] : s->good;
    char subject[256], esc[256];
    pg_repo_summary(subject, sizeof subject, s->ctx->repo, found);
    pg_text_escape_buf(esc, sizeof esc, subject, PG_TEXT_TERM);
    pg_verdict v;
    if ((rc = judge(&v, s, parent, found, NULL)) < 0)
        return rc;
    if (v != PG_VERDICT_REGRESSED) {
        printf("no single commit explains the regression: %.12s (%s) is the first to regress against GOOD, but not "
               "against its parent %.12s (%s): the change is spread over several commits\n",
               found, esc, parent, pg_verdict_name(v));
        *status = PG_EXIT_FAIL;
    } else {
        printf("first regressing commit: %s %s\n", found, esc);
        char label[64];
        snprintf(label, sizeof label, "its parent %.12s", parent);
        if ((rc = judge(&v, s, parent, found, label)) < 0 || (rc = judge(&v, s, NULL, found, "GOOD")) < 0 ||
            (rc = check_child(s, hi)) < 0)
            return rc;
        *status = PG_EXIT_OK;
    }
    if (s->confirmed && !s->split)
        printf("bisect: sure: %zu decision%s near the threshold measured again, and each second round agreed with "
               "the first\n", s->confirmed, s->confirmed == 1 ? " was" : "s were");
    else if (s->split)
        printf("bisect: not sure: %zu decision%s near the threshold measured again, and %zu took a third round: %s "
               "(more runs, --repeat, make it surer)\n", s->confirmed, s->confirmed == 1 ? " was" : "s were",
               s->split, s->unsure);
    /* The bound counts BAD's own check, which comes before the search. */
    printf("bisect: %zu step%s for %lu commit%s (at most 1 + ceil(log2 %lu) = %.0f); measured %zu commit%s, the rest "
           "were stored\n", s->steps, s->steps == 1 ? "" : "s", s->n, s->n == 1 ? "" : "s", s->n,
           1 + ceil(log2((double)s->n)), s->measured, s->measured == 1 ? "" : "s");
    return 0;
}

static int resolve(search *s, const char *good, const char *bad)
{
    int rc;
    if ((rc = pg_ctx_repo(s->ctx)) < 0 || (rc = pg_ctx_store(s->ctx)) < 0)
        return rc;
    if ((rc = pg_repo_resolve(s->good, s->ctx->repo, good)) < 0 || (rc = pg_repo_resolve(s->bad, s->ctx->repo, bad)) < 0)
        return rc;
    if (!strcmp(s->good, s->bad))
        return pg_error_set(PG_EINVAL, "GOOD and BAD are the same commit %.12s: nothing to bisect", s->good);
    if ((rc = pg_repo_first_parents(&s->line, &s->n, s->ctx->repo, s->good, s->bad)) < 0)
        return pg_error_wrap(rc, "GOOD must be an ancestor of BAD on its first-parent line (%s, %s)", good, bad);
    return 0;
}

int pg_cmd_bisect(pg_ctx *ctx, int argc, char **argv)
{
    opts o = {0};
    const pg_opt table[] = {
        PG_OPT_CALLBACK(0, "benchmark", "NAME", "bisect this benchmark's verdict (default: the comparison's,\n"
                        "any benchmark regressing)", &o.bench, pg_cmd_opt_benchmark),
        PG_OPT_CALLBACK(0, "bench", "NAME", NULL, &o.bench, pg_cmd_opt_benchmark, .renamed = "benchmark"),
        PG_OPT_CALLBACK('g', "gate", "LIST", "metrics that decide the verdict (default: instructions)", &o.gates,
                        pg_cmd_opt_gates),
        PG_OPT_CALLBACK('t', "threshold", "M=PCT", "regression threshold for metric M, as for compare", &o.thresholds,
                        pg_cmd_opt_threshold),
        PG_OPT_CALLBACK(0, "manifest", "PATH", PG_MANIFEST_HELP, &o.manifest, pg_cmd_opt_manifest),
        PG_OPT_CALLBACK(0, "bench-dir", "PATH", NULL, &o.manifest, pg_cmd_opt_manifest, .renamed = "manifest"),
        PG_OPT_CALLBACK(0, "backend", "B", "{backends}: measure and compare with B", &o.backend,
                        pg_cmd_opt_backend),
        PG_OPT_INT('r', "repeat", "N", "measured runs per benchmark of a commit measured", &o.repeat, 1, INT_MAX),
        PG_OPT_PASS_ENV(&o.pass_env),
        PG_OPT_BUILD_TIMEOUT(&o.build_timeout),
        PG_OPT_JOBS(&o.jobs),
        PG_OPT_CALLBACK(0, "metrics", "LIST", PG_METRICS_HELP, &o.metrics, pg_opt_metrics),
        PG_OPT_FLAG(0, "no-notes", "store what is measured in the local store only, not in git notes", &o.no_notes),
        PG_OPT_END(),
    };
    int status;
    search s = {.ctx = ctx, .o = &o};
    if (pg_cmd_parse(&status, ctx, &spec, table, argc, argv))
        goto out;
    if (ctx->args.nargs != 2) {
        status = pg_die("bisect takes two revisions, GOOD and BAD (got %d); see 'perfgate bisect --help'", ctx->args.nargs);
        goto out;
    }
    int rc = 0;
    if (!o.gates.n)
        rc = pg_gates_parse(&o.gates, "instructions");
    if (rc == 0)
        rc = resolve(&s, ctx->args.args[0], ctx->args.args[1]);
    if (rc == 0)
        rc = pg_cmd_check_manifest(ctx, &o.manifest);
    if (rc == 0) {
        rc = pg_session_open(&s.sess, o.backend, NULL, 1);
        if (rc == 0) {
            pg_session_tell(&s.sess);
            rc = bisect(&status, &s);
        }
        pg_session_close(&s.sess);
    }
    if (rc < 0)
        status = pg_exit_status(rc);
out:
    free(s.line);
    pg_thresholds_free(&o.thresholds);
    pg_gates_free(&o.gates);
    return status;
}
