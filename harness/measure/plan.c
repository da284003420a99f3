/* harness/measure/plan.c — see plan.h. */
#include "harness/measure/plan.h"
#include "harness/measure/build.h"
#include "harness/measure/canon.h"
#include "harness/measure/cargo.h"
#include "harness/measure/contain.h"
#include "harness/measure/gbench_list.h"
#include "harness/measure/reuse.h"
#include "harness/measure/spawn.h"
#include "harness/measure/stacks.h"
#include "harness/store/leftovers.h"
#include "harness/store/notes.h"
#include "harness/store/notes_record.h"
#include "harness/store/results.h"
#include "harness/store/store.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/owned_dir.h"
#include "util/text.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* One revision being measured, or one copy of the work tree's measurement. */
typedef struct side {
    const char *commit;             /* NULL: none (the work tree of no repository) */
    const char *tree;               /* where it runs: dir.path, or the work tree */
    pg_owned_dir dir;               /* the checkout: a killed perfgate's is swept by the next */
    pg_benchset own, *set;          /* set: &own, or the caller's (here) */
    pg_rundoc doc;
    pg_stacks *stacks;              /* --sample: this revision's stacks, beside its results */
    pg_owned_dir logs;              /* this revision's run's logs, in the store */
    char stacks_dir[PATH_MAX * 2];
    pg_rundoc *pre;                 /* --jobs: its backend series, made beforehand */
} side;

/* The revision's tree, in a temporary directory as long as the work tree's
 * path: what a program reads of its own path (static glibc does at start-up)
 * is then as long too. */
static int check_out(const pg_measure_plan *p, side *s, int first)
{
    char wt[PATH_MAX];
    int matched = 1;
    size_t want = p->worktree && realpath(p->worktree, wt) ? strlen(wt) : 0;
    int rc = pg_owned_mkdtemp_len(&s->dir, &matched, "perfgate-rev-", want);
    if (rc < 0)
        return pg_error_wrap(rc, "revision %.12s", s->commit);
    if (want && !matched && first && !pg_canon_tree_ready())
        pg_text_warn("note: the checkout's path (%zu characters) is longer than the work tree's (%zu): a program "
                     "that reads its own path may count a few instructions more there; a shorter TMPDIR avoids it "
                     "(docs/metrics.md, \"The execution context\")", strlen(s->dir.path), want);
    /* what is true: stacks are only a reason when they were asked for */
    const char *why = p->only ? "again, to confirm"
                    : p->ro->sample ? "no stored results with stacks" : "no stored results";
    fprintf(stderr, "perfgate: measuring %.12s (%s): checking out into %s\n", s->commit, why, s->dir.path);
    s->tree = s->dir.path;
    return pg_repo_export(p->repo, s->commit, s->dir.path);
}

/* The manifest's build command when there is one, then cargo for its cargo
 * targets, whose argv[0] become the executables cargo names (cargo.h). */
static int build_all(const pg_build *b, pg_benchset *set)
{
    int rc = b->cmd ? pg_build_run(b) : 0;
    if (rc == 0 && set->has_cargo)
        rc = pg_cargo_build(set, b);
    return rc;
}

/* Today's benchmarks placed in the checkout, built and listed there. */
static int benchmarks(const pg_measure_plan *p, side *s)
{
    char bp[PATH_MAX + 64], log[PATH_MAX];
    snprintf(bp, sizeof bp, "%s/%s", s->dir.path, p->bench_path);
    /* A bare repository has no tree of today: a relative path is the revision's own. */
    pg_bench_place at = {.worktree = p->worktree ? p->worktree : s->dir.path, .root = s->dir.path};
    int rc = pg_bench_discover(s->set, p->worktree || p->bench_path[0] == '/' ? p->bench_path : bp, &at);
    snprintf(log, sizeof log, "%s/logs/%s/build.log", p->store_root, s->commit);
    pg_build b = {.cmd = s->set->build, .dir = s->dir.path, .checkout = 1,
                  .timeout = pg_build_timeout(p->ro->build_timeout, s->set->build_timeout), .log = log};
    if (rc == 0)
        rc = build_all(&b, s->set);
    if (rc == 0)
        rc = pg_benchset_expand(s->set, p->ro->pass_env);
    if (rc < 0)
        return pg_error_wrap(rc, "revision %.12s", s->commit);
    if (p->only)    /* after the expansion: a suite's benchmarks are named only then */
        pg_benchset_keep_named(s->set, p->only, p->nonly);
    return 0;
}

/* A side's document, and its logs and stacks directories: in the store
 * under the document's run id, else (the work tree, nothing stored) in
 * `tmp`, the one temporary directory of the whole measurement. */
static int open_side(const pg_measure_plan *p, side *s, const char *tmp)
{
    const pg_session *sess = p->sess;
    const pg_measure_here *h = p->here;
    int rc = pg_session_new_doc(&s->doc, sess, s->commit, p->ro->cpu);
    if (h) {
        s->doc.shard_index = h->shard_index;
        s->doc.shard_count = h->shard_count;
    }
    if (rc == 0 && p->store_root)
        rc = pg_store_logs_open(&s->logs, p->store_root, s->commit, sess->machine.id, s->doc.id);
    if (rc < 0 || !p->ro->sample)
        return rc;
    if (p->store_root)
        return pg_stacks_new_in_store(&s->stacks, s->stacks_dir, sizeof s->stacks_dir, sess->backend,
                                      p->ro->sample_freq, p->store_root, s->commit, sess->machine.id, s->doc.id);
    snprintf(s->stacks_dir, sizeof s->stacks_dir, "%s/stacks", tmp);
    return pg_stacks_new(&s->stacks, sess->backend, p->ro->sample_freq, s->stacks_dir, s->stacks_dir);
}

/* Everything revision `s` needs before its first run. A store that cannot
 * take the results fails before any measuring. */
static int prepare(const pg_measure_plan *p, side *s, int first)
{
    int rc;
    if ((rc = pg_store_check(p->store_root, s->commit, p->sess->machine.id)) < 0 || (rc = check_out(p, s, first)) < 0 ||
        (rc = benchmarks(p, s)) < 0)
        return rc;
    return open_side(p, s, NULL);
}

/* One run (round k) of benchmark b of revision i, merged into its document. */
static int run_one(const pg_measure_plan *p, side *s, size_t b, int k, int *nfailed)
{
    pg_run_opts o = *p->ro;
    o.out = NULL;
    o.round = k;
    o.one = b + 1;
    o.stacks = s->stacks;
    o.log_dir = s->logs.path;
    o.tree = s->tree;
    o.pre = s->pre;
    pg_rundoc round = {0};
    int nf = 0;
    int rc = pg_runner_run(&round, &nf, s->set, p->sess->meter, &o);
    *nfailed += nf;
    int mrc = pg_runner_merge(&s->doc, &round);
    pg_rundoc_free(&round);
    return rc < 0 ? rc : mrc;
}

/* Round by round, and in each round benchmark by benchmark, every revision's
 * run of it side by side, in an order drawn anew for each benchmark (ABBA...,
 * as tango and asv's continuous mode do): a machine whose load changes
 * midway (a CPU hog starting after the base's first runs) then slows both
 * revisions of a benchmark alike, instead of all of one revision's runs.
 * Failed benchmark runs into *nfailed. */
/* --jobs: every revision's exact series at once, before the rounds (which
 * then interleave the native runs alone): a count does not depend on what
 * runs beside it, a time does. */
static int exact_first(const pg_measure_plan *p, side *sides)
{
    const pg_benchset **sets = calloc(p->ncommits, sizeof *sets);
    pg_run_opts *o = calloc(p->ncommits, sizeof *o);
    const pg_run_opts **op = calloc(p->ncommits, sizeof *op);
    pg_rundoc **pre = calloc(p->ncommits, sizeof *pre);
    int rc = sets && o && op && pre ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < p->ncommits; i++) {
        sets[i] = sides[i].set;
        o[i] = *p->ro;
        o[i].log_dir = sides[i].logs.path;
        o[i].tree = sides[i].tree;
        op[i] = &o[i];
    }
    if (rc == 0)
        rc = pg_runner_exact(pre, p->ncommits, sets, p->sess->meter, op);
    for (size_t i = 0; rc == 0 && i < p->ncommits; i++)
        sides[i].pre = pre[i];
    free(sets);
    free(o);
    free(op);
    free(pre);
    return rc;
}

static int run_rounds(const pg_measure_plan *p, side *sides, int *nfailed)
{
    int rounds = 0, rc = exact_first(p, sides);
    size_t most = 0;
    for (size_t i = 0; i < p->ncommits; i++) {
        most = sides[i].set->n > most ? sides[i].set->n : most;
        for (size_t b = 0; b < sides[i].set->n; b++) {
            int r = pg_runner_rounds(sides[i].set, b, p->ro, p->sess->props);
            rounds = r > rounds ? r : rounds;
        }
    }
    unsigned seed = 0;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    for (int k = 0; k < rounds && rc == 0; k++)
        for (size_t b = 0; b < most && rc == 0; b++) {
            size_t first = (size_t)rand_r(&seed) % p->ncommits;
            for (size_t t = 0; t < p->ncommits && rc == 0; t++) {
                side *s = &sides[(first + t) % p->ncommits];
                if (b < s->set->n)
                    rc = run_one(p, s, b, k, nfailed);
            }
        }
    return rc;
}

/* A side's finished run into the store (its path into `path`), and into the notes. */
static int store_side(char *path, size_t len, const pg_measure_plan *p, side *s)
{
    int rc = pg_store_append(path, len, p->store_root, s->commit, p->sess->machine.id, &s->doc);
    if (rc < 0)
        return rc;
    pg_stacks_keep(s->stacks);
    pg_owned_release(&s->logs, 0);
    /* Its line on stderr after the tables already printed, also when stdout
     * is a pipe (buffered) and both go to one place. */
    fflush(stdout);
    if (p->notes && s->commit)
        pg_notes_record(p->repo, &s->doc, p->store_root, p->notes == PG_NOTES_WITH_STACKS);
    return 0;
}

/* Each revision's run into the store, and into the notes. */
static int store_all(const pg_measure_plan *p, side *sides)
{
    int rc = 0;
    for (size_t i = 0; i < p->ncommits && rc == 0; i++) {
        char path[PATH_MAX + 64];
        if ((rc = pg_session_finish_doc(p->sess, &sides[i].doc)) == 0 &&
            (rc = store_side(path, sizeof path, p, &sides[i])) == 0)
            fprintf(stderr, "perfgate: stored %.12s: %s\n", sides[i].commit, path);
    }
    return rc;
}

/* The checkouts always go; logs and stacks of what was not stored too. */
static void release(side *sides, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pg_owned_release(&sides[i].dir, 1);
        pg_owned_release(&sides[i].logs, 1);
        pg_stacks_free(sides[i].stacks);
        const pg_benchset *set = sides[i].set;
        pg_runner_exact_free(&sides[i].pre, 1, &set);
        pg_benchset_free(&sides[i].own);
        pg_rundoc_free(&sides[i].doc);
    }
    free(sides);
}

/* --reuse-unchanged: what every commit of the plan may reuse, in *ro. */
static int reuse_from(pg_rundoc_list *runs, pg_run_opts *ro, const pg_measure_plan *p)
{
    int rc = 0;
    for (size_t i = 0; p->reuse && i < p->ncommits && rc == 0; i++)
        rc = pg_reuse_candidates(runs, p->repo, p->store_root, p->commits[i]);
    ro->reuse_from = p->reuse ? runs : NULL;
    ro->reuse_machine = p->sess->machine.id;
    return rc;
}

/* The work tree's build (from its root, else the manifest's directory; its
 * log in the store, beside the runs'), its suites listed, then --filter. */
static int build_here(const pg_measure_plan *p, pg_benchset *set)
{
    const pg_measure_here *h = p->here;
    int rc = 0;
    /* --no-build skips the command; cargo still builds its targets (nothing,
     * when they are fresh): its output is what names their executables. */
    const char *cmd = h->no_build ? NULL : set->build;
    if (cmd || set->has_cargo) {
        if (h->before_build)    /* cargo may write Cargo.lock too */
            h->before_build(h->arg);
        char mdir[PATH_MAX] = ".", log[PATH_MAX + 128];
        if (set->build_manifest)
            pg_path_dirname(mdir, sizeof mdir, set->build_manifest);
        if (p->store_root)
            snprintf(log, sizeof log, "%s/logs/%s/build.log", p->store_root,
                     p->ncommits ? p->commits[0] : PG_NO_COMMIT);
        pg_build b = {.cmd = cmd, .dir = p->worktree ? p->worktree : cmd ? mdir : NULL,
                      .timeout = pg_build_timeout(p->ro->build_timeout, set->build_timeout),
                      .log = p->store_root ? log : NULL};
        rc = build_all(&b, set);
    }
    if (rc == 0)
        rc = pg_benchset_expand(set, p->ro->pass_env);
    if (rc == 0 && h->filter && (rc = pg_benchset_filter(set, h->filter)) == 0 && set->n == 0)
        rc = pg_error_set(PG_ENOTFOUND, "--filter '%s' matches no benchmark", h->filter);
    return rc;
}

/* The work tree in place: its copies measured whole, one after the other,
 * the first stored. A store that cannot take the run fails before the build. */
static int measure_here(pg_measure_out *out, const pg_measure_plan *p, side *sides, pg_owned_dir *tmp)
{
    const pg_measure_here *h = p->here;
    /* Unstored, the logs directory is made when a benchmark fails (runner.h,
     * log_lazy); here for stacks, and for workers (--jobs), which cannot
     * hand back a directory they made. */
    int lazy = !p->store_root && !p->ro->sample && p->ro->jobs <= 1;
    int rc = pg_runner_check(h->set, p->sess->meter, p->ro);    /* before the build and the header */
    if (rc == 0 && p->store_root)
        rc = pg_store_check(p->store_root, sides[0].commit, p->sess->machine.id);
    else if (rc == 0 && !lazy)
        rc = pg_owned_mkdtemp(tmp, h->logs_prefix);
    if (rc == 0)
        rc = build_here(p, h->set);
    if (rc == 0)        /* again: a Google Benchmark suite is listed by now */
        rc = pg_runner_check(h->set, p->sess->meter, p->ro);
    if (rc == 0)
        pg_contain_prepare();   /* while `before` may still wait for its caller's other thread */
    for (size_t k = 0; k < h->copies && rc == 0; k++) {
        side *s = &sides[k];
        if (h->before)
            h->before(h->arg, h->set, k);
        if ((rc = open_side(p, s, tmp->path)) < 0)
            break;
        pg_run_opts o = *p->ro;
        o.log_dir = p->store_root ? s->logs.path : NULL;
        o.log_lazy = p->store_root ? NULL : tmp;
        o.log_lazy_prefix = h->logs_prefix;
        o.tree = s->tree;
        o.stacks = s->stacks;
        int nf = 0;
        rc = pg_runner_run(&s->doc, &nf, h->set, p->sess->meter, &o);
        out->nfailed += nf;
        if (rc == 0 && h->finish)
            rc = h->finish(h->arg, &s->doc);
        if (rc == 0)
            rc = pg_session_finish_doc(p->sess, &s->doc);
    }
    if (rc == 0 && p->store_root)
        rc = store_side(out->stored, sizeof out->stored, p, &sides[0]);
    snprintf(out->stacks_dir, sizeof out->stacks_dir, "%s", sides[0].stacks_dir);
    snprintf(out->logs, sizeof out->logs, "%s", tmp->path);
    for (size_t k = 0; rc == 0 && k < h->copies; k++) {     /* the documents are the caller's */
        out->docs[out->ndocs++] = sides[k].doc;
        sides[k].doc = (pg_rundoc){0};
    }
    return rc;
}

/* The sides of a plan: its revisions, or the copies of the work tree. */
static side *sides_new(const pg_measure_plan *p, size_t *n)
{
    *n = p->here ? p->here->copies : p->ncommits;
    side *sides = calloc(*n ? *n : 1, sizeof *sides);
    for (size_t i = 0; sides && i < *n; i++) {
        sides[i].commit = p->here ? (p->ncommits ? p->commits[0] : NULL) : p->commits[i];
        sides[i].tree = p->worktree ? p->worktree : PG_CANON_OWN_CWD;
        pg_owned_init(&sides[i].dir);
        pg_owned_init(&sides[i].logs);
        pg_benchset_init(&sides[i].own);
        sides[i].set = p->here ? p->here->set : &sides[i].own;
    }
    return sides;
}

int pg_measure(pg_measure_out *out, const pg_measure_plan *plan)
{
    pg_run_opts ro = *plan->ro;
    pg_measure_plan q = *plan, *p = &q;
    q.ro = &ro;
    pg_rundoc_list reuse = {0};
    pg_owned_dir tmp;
    pg_owned_init(&tmp);
    size_t n;
    side *sides = sides_new(p, &n);
    if (out)
        *out = (pg_measure_out){.docs = calloc(n ? n : 1, sizeof *out->docs)};
    if (!sides || (out && !out->docs)) {
        free(sides);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    pg_leftovers_sweep(p->store_root);     /* what a killed perfgate left: it may be what fills the store */
    pg_contain_protect(p->store_root);     /* read-only to the benchmarks, where they get a namespace */
    pg_spawn_install_sigint();
    int nfailed = 0;
    int rc = reuse_from(&reuse, &ro, p);
    for (size_t i = 0; !p->here && i < n && rc == 0; i++)
        rc = prepare(p, &sides[i], i == 0);
    if (rc == 0 && p->here)
        rc = measure_here(out, p, sides, &tmp);
    else if (rc == 0)
        rc = run_rounds(p, sides, &nfailed);
    if (rc == 0 && !p->here)
        rc = store_all(p, sides);
    if (rc == PG_EINTR)
        pg_error_set(PG_EINTR, "interrupted; nothing was stored");
    release(sides, n);
    pg_contain_protect(NULL);
    pg_rundoc_list_free(&reuse);
    /* Without a store, the logs are worth keeping for a failure's logs, or the stacks in them. */
    pg_owned_release(&tmp, out && !out->nfailed && !ro.sample);
    if (out && !p->here)
        out->nfailed = nfailed;
    else if (rc == 0 && nfailed)
        fprintf(stderr, "perfgate: %d benchmark run%s failed while measuring (see the comparison)\n", nfailed,
                nfailed == 1 ? "" : "s");
    return rc;
}

void pg_measure_out_free(pg_measure_out *out)
{
    for (size_t i = 0; i < out->ndocs; i++)
        pg_rundoc_free(&out->docs[i]);
    free(out->docs);
    *out = (pg_measure_out){0};
}

/* Whether `runs` hold a run of `machine` and `backend`. */
static int has_run(const pg_rundoc_list *runs, const char *machine, const char *backend)
{
    for (size_t i = 0; i < runs->n; i++)
        if (!strcmp(runs->v[i].machine.id, machine) && !strcmp(runs->v[i].backend, backend))
            return 1;
    return 0;
}

/* Whether the newest run of `runs` on `machine` and `backend` has a
 * benchmark that did not fail and whose stacks no such run stored. */
static int lacks_stacks(const pg_rundoc_list *runs, const char *machine, const char *backend)
{
    const pg_rundoc *last = NULL;
    for (size_t i = 0; i < runs->n; i++)
        if (!strcmp(runs->v[i].machine.id, machine) && !strcmp(runs->v[i].backend, backend))
            last = &runs->v[i];
    for (size_t j = 0; last && j < last->nbench; j++) {
        const pg_rundoc_bench *b = &last->bench[j];
        int has = b->failed;
        for (size_t i = 0; i < runs->n && !has; i++) {
            const pg_rundoc *r = &runs->v[i];
            if (strcmp(r->machine.id, machine) || strcmp(r->backend, backend))
                continue;
            for (size_t k = 0; k < r->nbench && !has; k++)
                has = r->bench[k].stacks && *r->bench[k].stacks && !strcmp(r->bench[k].name, b->name);
        }
        if (!has)
            return 1;
    }
    return 0;
}

/* The runs stored for `commit` (store or notes); none is no error. */
static int stored_runs(pg_rundoc_list *runs, const pg_measure_plan *p, const char *commit)
{
    int rc = pg_results_load(runs, p->store_root, p->repo, commit);
    if (rc == PG_ENOTFOUND) {
        pg_error_clear();
        rc = 0;
    }
    return rc;
}

int pg_measure_has_run(int *yes, const pg_measure_plan *p, const char *commit)
{
    pg_rundoc_list runs = {0};
    int rc = stored_runs(&runs, p, commit);
    *yes = has_run(&runs, p->sess->machine.id, pg_backend_name(p->sess->backend));
    pg_rundoc_list_free(&runs);
    return rc;
}

/* Whether pg_measure_missing measures a commit whose stored runs are `runs`. */
static int is_missing(const pg_measure_plan *p, const pg_rundoc_list *runs)
{
    const char *machine = p->sess->machine.id, *backend = pg_backend_name(p->sess->backend);
    return !has_run(runs, machine, backend) || (p->ro->sample && lacks_stacks(runs, machine, backend));
}

int pg_measure_missing(size_t *measured, const pg_measure_plan *plan, const pg_rundoc_list *const *stored)
{
    *measured = 0;
    const char **todo = calloc(plan->ncommits ? plan->ncommits : 1, sizeof *todo);
    if (!todo)
        return pg_error_set(PG_ENOMEM, "out of memory");
    int rc = 0;
    size_t k = 0;
    for (size_t i = 0; i < plan->ncommits && rc == 0; i++) {
        int dup = 0;
        for (size_t j = 0; j < k && !dup; j++)
            dup = !strcmp(todo[j], plan->commits[i]);
        if (dup)
            continue;
        pg_rundoc_list own = {0};
        const pg_rundoc_list *runs = stored && stored[i] ? stored[i] : &own;
        if (runs == &own)
            rc = stored_runs(&own, plan, plan->commits[i]);
        if (rc == 0 && is_missing(plan, runs))
            todo[k++] = plan->commits[i];
        pg_rundoc_list_free(&own);
    }
    if (rc == 0 && k > 0) {
        pg_measure_plan p = *plan;
        p.commits = todo, p.ncommits = k, p.only = NULL, p.nonly = 0;
        rc = pg_measure(NULL, &p);
        if (rc == 0)
            *measured = k;
    }
    free(todo);
    return rc;
}

int pg_measure_each(const pg_measure_plan *plan, pg_measure_each_fn *each, void *arg)
{
    pg_spawn_install_sigint();
    size_t done = 0;
    for (size_t i = 0; i < plan->ncommits; i++) {
        const char *commit = plan->commits[i];
        int stored = 0, rc = 0;
        if (pg_spawn_interrupted())
            rc = PG_EINTR;
        else if ((rc = pg_measure_has_run(&stored, plan, commit)) == 0 && !stored)
            rc = pg_store_check(plan->store_root, commit, plan->sess->machine.id);
        if (rc < 0 && rc != PG_EINTR)
            return rc;
        if (rc == 0 && stored) {
            each(arg, i, PG_MEASURE_STORED, 0, NULL);
            continue;
        }
        pg_measure_plan p = *plan;
        p.commits = &plan->commits[i], p.ncommits = 1, p.only = NULL, p.nonly = 0;
        pg_measure_out out = {0};
        if (rc == 0)
            rc = pg_measure(&out, &p);
        int nfailed = out.nfailed;
        pg_measure_out_free(&out);
        if (rc == PG_EINTR || pg_spawn_interrupted())
            return pg_error_set(PG_EINTR, "interrupted: %zu commit%s measured and stored before it; %.12s was not "
                                "(run the same command again to measure what is missing)", done,
                                done == 1 ? "" : "s", commit);
        each(arg, i, rc < 0 ? PG_MEASURE_FAILED : PG_MEASURE_DONE, nfailed, rc < 0 ? pg_error_last() : NULL);
        pg_error_clear();
        done += rc == 0;
    }
    return 0;
}
