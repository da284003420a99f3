/* harness/store/results.c — see results.h. */
#include "harness/store/results.h"
#include "counters/backend.h"
#include "harness/store/notes.h"
#include "harness/store/store.h"
#include "report/format.h"
#include "util/array.h"
#include "util/error.h"
#include "util/jsonfile.h"
#include "util/metrics.h"
#include "util/strindex.h"
#include "util/text.h"

#include <limits.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A run's metric strings are mostly the same few (rundoc.c keeps the known
 * words once) and a side's 5 * 10^4 series share them: what each string is
 * in the side's pool, and what a run's backend of a source says, are kept
 * by pointer for the length of one pg_results_collect (whose runs stay put),
 * not looked up per series. */
#define MEMO 32

typedef struct source_memo {
    const pg_rundoc *run;
    const char *source;
    int known;
    pg_rundoc_props props;
} source_memo;

typedef struct collector {
    pg_side *side;
    pg_strindex index;      /* bench name -> position in side->b */
    const char *in[MEMO], *pooled[MEMO];    /* a string -> the pool's copy */
    size_t nin;
    source_memo src[MEMO];
    size_t nsrc;
    const pg_rundoc *origin_run;            /* the last origin made: its run, directory and text */
    const char *origin_cwd, *origin;
    /* pg_results_take: each benchmark freed once gathered, with its strings.
     * A freed string's address is still safe to match by pointer: every
     * string still to come was made while it lived, so none shares it. Its
     * text is not, and origin_cwd's is compared: a copy is kept instead. */
    int take;
    char *cwd_copy;
} collector;

/* pg_strpool_intern(&side->pool, s), found by pointer when it was before. */
static const char *intern(collector *c, const char *s)
{
    for (size_t i = 0; i < c->nin; i++)
        if (c->in[i] == s)
            return c->pooled[i];
    const char *p = pg_strpool_intern(&c->side->pool, s);
    if (p && c->nin < MEMO) {
        c->in[c->nin] = s;
        c->pooled[c->nin++] = p;
    }
    return p;
}

/* pg_rundoc_backend_props(out, run, source), found by pointer when it was before. */
static int backend_props(collector *c, pg_rundoc_props *out, const pg_rundoc *run, const char *source)
{
    for (size_t i = 0; i < c->nsrc; i++)
        if (c->src[i].run == run && c->src[i].source == source) {
            *out = c->src[i].props;
            return c->src[i].known;
        }
    int known = pg_rundoc_backend_props(out, run, source);
    if (c->nsrc < MEMO)
        c->src[c->nsrc++] = (source_memo){run, source, known, *out};
    return known;
}

static pg_bench_result *bench_get(collector *c, const char *name)
{
    pg_side *s = c->side;
    size_t i;
    if (pg_array_grow(&s->b, &s->cap, s->nb, sizeof *s->b, 16) < 0)
        return NULL;
    pg_bench_result *b = &s->b[s->nb];
    memset(b, 0, sizeof *b);
    b->name = strdup(name);
    int added = b->name ? pg_strindex_add(&c->index, b->name, s->nb, &i) : PG_ENOMEM;
    if (added <= 0) {
        free(b->name);
        b->name = NULL;
        return added == 0 ? &s->b[i] : NULL;
    }
    s->nb++;
    return b;
}

/* The series of `name` by `backend` in `b`, a new one when there is none
 * (b->m has room for one more). A wall-time measured under valgrind is not
 * one measured natively: metrics are keyed by what measured them as well as
 * their name (measured_by()). */
static pg_series *metric_get(collector *c, pg_bench_result *b, const char *name, const char *unit,
                             const char *backend, const char *source, const pg_rundoc *run)
{
    for (size_t i = 0; i < b->nm; i++)
        if (!strcmp(b->m[i].metric, name) && !strcmp(b->m[i].backend, backend))
            return &b->m[i];
    pg_series *m = &b->m[b->nm];       /* collect_bench made room */
    memset(m, 0, sizeof *m);
    /* side->pooled: the side's strings are its pool's */
    m->metric = (char *)intern(c, name);
    m->unit = (char *)intern(c, unit);
    m->backend = (char *)intern(c, backend);
    m->source = (char *)intern(c, source);
    /* What its backend says of it (the run's "backends"): report/ asks these, never a name. */
    pg_rundoc_props p;
    int known = backend_props(c, &p, run, source);
    m->exact = known && p.exact && pg_metric_counted(name, unit);
    m->simulated = known && p.simulated;
    if (!m->metric || !m->unit || !m->backend || !m->source)
        return NULL;
    b->nm++;
    return m;
}

static int set_str(char **dst, const char *s)
{
    char *c = s ? strdup(s) : NULL;
    if (s && !c)
        return pg_error_set(PG_ENOMEM, "out of memory");
    free(*dst);
    *dst = c;
    return 0;
}

/* What measured a metric: its own backend ("perf" for the native time of a
 * valgrind run), else the run's. So the native time of a valgrind run is set
 * against native time only, and never against valgrind's slowed wall-time of
 * a document older than native runs. */
static const char *measured_by(collector *c, const char *source, const pg_rundoc *run)
{
    pg_rundoc_props p;
    if (backend_props(c, &p, run, source) || !*run->backend)
        return source;
    return run->backend;
}

/* Where the samples came from, should an exact metric disagree: the run
 * and the directory it ran in (a work tree, a temporary checkout). One a
 * run and directory, in the side's pool; most benchmarks of a run share
 * the last one made. */
static const char *origin_of(collector *c, const pg_rundoc *run, const char *cwd)
{
    if (c->origin && c->origin_run == run &&
        (cwd == c->origin_cwd || (cwd && c->origin_cwd && !strcmp(cwd, c->origin_cwd))))
        return c->origin;
    char buf[600];
    snprintf(buf, sizeof buf, "run %.100s%s%.400s", run->id ? run->id : "without id", cwd ? " in " : "",
             cwd ? cwd : "");
    const char *origin = pg_strpool_intern(&c->side->pool, buf);
    if (origin && c->take) {
        free(c->cwd_copy);
        c->cwd_copy = NULL;
        c->origin = NULL;
        if (cwd && !(c->cwd_copy = strdup(cwd)))
            return NULL;
        cwd = c->cwd_copy;
    }
    if (origin) {
        c->origin_run = run;
        c->origin_cwd = cwd;
        c->origin = origin;
    }
    return origin;
}

static int collect_bench(collector *c, pg_bench_result *b, const pg_rundoc_bench *rb, const pg_rundoc *run,
                         const char *stacks_base)
{
    const char *origin = origin_of(c, run, rb->cwd);
    if (!origin)
        return PG_ENOMEM;
    b->failed = rb->failed;
    int rc = set_str(&b->failure, rb->failed ? rb->failure.reason : NULL);
    if (rc == 0 && rb->has_thresholds) {
        pg_thresholds_free(&b->thresholds);
        rc = pg_thresholds_copy(&b->thresholds, &rb->thresholds);
    }
    if (rc == 0 && rb->stacks && *rb->stacks && stacks_base) {
        char path[4096];
        if (pg_results_stacks_path(path, sizeof path, rb->stacks, stacks_base) < 0) {
            pg_text_warn("warning: %s", pg_error_last());
            pg_error_clear();
        } else if ((rc = set_str(&b->stacks, path)) == 0) {
            rc = set_str(&b->stacks_note, rb->stacks_note);
            b->stacks_iterations = rb->stacks_iterations;
        }
    }
    if (rc == 0 && rb->reused_run) {    /* --reuse-unchanged: whose counts these are */
        char from[400];
        snprintf(from, sizeof from, "run %.200s%s%.12s", rb->reused_run, rb->reused_commit ? " of " : "",
                 rb->reused_commit ? rb->reused_commit : "");
        rc = set_str(&b->reused, from);     /* data: each renderer escapes it */
    }
    /* Room for every metric at once, given back below if some were there
     * already: a side's 5 * 10^4 series are not grown one by one. */
    pg_series *room = NULL;
    size_t want = b->nm + rb->nmetrics;
    if (rb->nmetrics) {
        if (!(room = realloc(b->m, want * sizeof *room)))
            return pg_error_set(PG_ENOMEM, "out of memory");
        b->m = room;
    }
    for (size_t i = 0; i < rb->nmetrics && rc == 0; i++) {
        const pg_rundoc_metric *rm = &rb->metrics[i];
        pg_series *m = metric_get(c, b, rm->name, rm->unit, measured_by(c, rm->source, run), rm->source, run);
        if (!m)
            return pg_error_set(PG_ENOMEM, "out of memory");
        /* "Ir" beside "instructions" is the same number: said once. */
        rc = pg_series_add_run(m, rm->samples, rm->n, origin);
    }
    if (b->nm < want && b->nm && (room = realloc(b->m, b->nm * sizeof *room)))
        b->m = room;
    return rc;
}

/* `session` among the side's, once. */
static int add_session(pg_side *side, const char *session)
{
    const char *s = pg_strpool_intern(&side->pool, session);
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < side->nsessions; i++)
        if (side->sessions[i] == s)
            return 0;
    const char **v = realloc(side->sessions, (side->nsessions + 1) * sizeof *v);
    if (!v)
        return pg_error_set(PG_ENOMEM, "out of memory");
    side->sessions = v;
    side->sessions[side->nsessions++] = s;
    return 0;
}

static int collect_run(collector *c, const pg_rundoc *run, const char *stacks_base)
{
    pg_side *side = c->side;
    const pg_machine *mach = &run->machine;
    side->nruns++;
    snprintf(side->machine_id, sizeof side->machine_id, "%s", mach->id);
    snprintf(side->machine_desc, sizeof side->machine_desc, "%.120s, %d cores, %.120s", mach->cpu_model, mach->cores,
             mach->kernel);
    snprintf(side->backend, sizeof side->backend, "%s", run->backend);
    pg_rundoc_props props;
    side->stacks_exact = pg_rundoc_backend_props(&props, run, run->backend) && props.exact;
    const pg_backend_props *bp = pg_backend_props_named(run->backend);
    snprintf(side->stacks_unit, sizeof side->stacks_unit, "%s", side->stacks_exact ? props.stacks_unit : "samples");
    snprintf(side->stacks_metric, sizeof side->stacks_metric, "%s",
             side->stacks_exact && bp && bp->stacks_metric ? bp->stacks_metric : "");
    side->dirty |= run->dirty;
    if (run->from_note && !side->nfetched++)
        snprintf(side->fetched_host, sizeof side->fetched_host, "%s", run->machine.hostname);
    if (run->load >= 0)
        side->load_sum += run->load, side->nload++;
    int rc = add_session(side, run->session ? run->session : run->id ? run->id : "");
    if (!side->commit[0] && run->commit && *run->commit)
        snprintf(side->commit, sizeof side->commit, "%s", run->commit);
    /* Room for the run's benchmarks at once: the first run of a side is
     * usually all of it, and doubling left a third of 10^4 records unused. */
    if (rc == 0 && !side->nb && (rc = pg_array_reserve(&side->b, &side->cap, run->nbench, sizeof *side->b)) == 0)
        rc = pg_strindex_reserve(&c->index, run->nbench);
    for (size_t i = 0; i < run->nbench && rc == 0; i++) {
        pg_bench_result *b = bench_get(c, run->bench[i].name);
        if (!b)
            return pg_error_set(PG_ENOMEM, "out of memory");
        rc = collect_bench(c, b, &run->bench[i], run, stacks_base);
        /* Taken: what the document held of it goes while the side grows, in
         * the same arena, which the side's next blocks then reuse. */
        if (c->take)
            pg_rundoc_bench_free((pg_rundoc_bench *)&run->bench[i]);
    }
    return rc;
}

/* Shards of one sharded run never share a benchmark; two sharded runs
 * partitioned differently (another N, other stored durations) do, and
 * merging them would mix two suites' measurements: refused. The same shard
 * measured twice (a retried job) is merged like any repeated run. */
static int check_shards(const pg_rundoc_list *runs, const char *machine_id, const char *backend)
{
    pg_strindex first = {0};       /* benchmark -> the shard run that had it first */
    int rc = 0;
    for (size_t i = 0; i < runs->n && rc == 0; i++) {
        const pg_rundoc *run = &runs->v[i];
        if (!run->shard_count || (machine_id && strcmp(run->machine.id, machine_id)) ||
            (backend && strcmp(run->backend, backend)))
            continue;
        for (size_t b = 0; b < run->nbench && rc == 0; b++) {
            size_t k;
            const char *name = run->bench[b].name;
            if (!pg_strindex_get(&first, name, &k)) {
                rc = pg_strindex_put(&first, name, i);
                continue;
            }
            const pg_rundoc *o = &runs->v[k];
            if (o->shard_index != run->shard_index || o->shard_count != run->shard_count)
                rc = pg_error_set(PG_EINVAL,
                                  "overlapping shards of different runs: benchmark '%s' is in shard %d/%d (run %s) "
                                  "and in shard %d/%d (run %s); compare the shards of one sharded run",
                                  name, o->shard_index, o->shard_count, o->id ? o->id : "?", run->shard_index,
                                  run->shard_count, run->id ? run->id : "?");
        }
    }
    pg_strindex_free(&first);
    return rc;
}

int pg_results_stacks_path(char *out, size_t len, const char *stacks, const char *base)
{
    char shown[200], real[PATH_MAX], real_base[PATH_MAX];
    pg_text_escape_buf(shown, sizeof shown, stacks, PG_TEXT_TERM);
    *out = '\0';
    if (!base || !*base || !pg_notedoc_path_ok(stacks))
        return pg_error_set(PG_EINVAL, "stacks '%s' not read: only a relative path inside the store is", shown);
    int n = snprintf(out, len, "%s/%s", base, stacks);
    if (n < 0 || (size_t)n >= len)
        return pg_error_set(PG_EINVAL, "stacks '%s' not read: the path is too long", shown);
    /* A link inside the store may point anywhere: where it leads must be inside too. */
    if (realpath(out, real) && realpath(base, real_base)) {
        size_t k = strlen(real_base);
        if (strncmp(real, real_base, k) || (real[k] != '/' && k > 1)) {
            *out = '\0';
            return pg_error_set(PG_EINVAL, "stacks '%s' not read: a link leads out of the store", shown);
        }
    }
    return 0;
}

static int collect(pg_side *side, const pg_rundoc_list *runs, const char *machine_id, const char *backend,
                   const char *stacks_base, int take)
{
    collector c = {.side = side, .take = take};
    if (side->nb && !side->pooled)
        return pg_error_set(PG_EINVAL, "internal error: collecting into a side built by hand");
    side->pooled = 1;
    int rc = check_shards(runs, machine_id, backend);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < side->nb && rc == 0; i++)
        rc = pg_strindex_put(&c.index, side->b[i].name, i);
    for (size_t i = 0; i < runs->n && rc == 0; i++) {
        const pg_rundoc *run = &runs->v[i];
        if (machine_id && strcmp(run->machine.id, machine_id))
            continue;
        if (backend && strcmp(run->backend, backend))
            continue;
        rc = collect_run(&c, run, stacks_base);
    }
    pg_strindex_free(&c.index);
    free(c.cwd_copy);
    return rc;
}

int pg_results_collect(pg_side *side, const pg_rundoc_list *runs, const char *machine_id, const char *backend,
                       const char *stacks_base)
{
    return collect(side, runs, machine_id, backend, stacks_base, 0);
}

int pg_results_take(pg_side *side, pg_rundoc_list *runs, const char *machine_id, const char *backend,
                    const char *stacks_base)
{
    int rc = collect(side, runs, machine_id, backend, stacks_base, 1);
    pg_rundoc_list_free(runs);
    return rc;
}

/* The smallest and largest value of `metric` (by `source`) of benchmark
 * `name` in the runs [from, to) of machine and backend of `like`; 0 when
 * none has it. */
static int local_range(double *lo, double *hi, const pg_rundoc_list *runs, size_t from, size_t to,
                       const pg_rundoc *like, size_t at, const char *name, const pg_rundoc_metric *metric)
{
    int found = 0;
    for (size_t i = from; i < to; i++) {
        const pg_rundoc *r = &runs->v[i];
        if (strcmp(r->machine.id, like->machine.id) || strcmp(r->backend, like->backend))
            continue;
        /* Runs of one suite list its benchmarks in one order: its place first. */
        const pg_rundoc_bench *b = at < r->nbench && r->bench[at].name && !strcmp(r->bench[at].name, name)
                                       ? &r->bench[at] : pg_rundoc_bench_find(r, name);
        for (size_t k = 0; b && k < b->nmetrics; k++) {
            const pg_rundoc_metric *m = &b->metrics[k];
            if (strcmp(m->name, metric->name) || !m->source || !metric->source || strcmp(m->source, metric->source))
                continue;
            for (size_t j = 0; j < m->n; j++) {
                *lo = found && *lo < m->samples[j] ? *lo : m->samples[j];
                *hi = found && *hi > m->samples[j] ? *hi : m->samples[j];
                found = 1;
            }
        }
    }
    return found;
}

/* Whether run `r` (from the note) has an exact count outside what this
 * clone's own runs [from, to) measured of it, widened by their own spread;
 * `why` says which. */
static int disagrees(char *why, size_t len, const pg_rundoc_list *runs, size_t from, size_t to, const pg_rundoc *r)
{
    for (size_t i = 0; i < r->nbench; i++) {
        const pg_rundoc_bench *b = &r->bench[i];
        for (size_t k = 0; k < b->nmetrics; k++) {
            const pg_rundoc_metric *m = &b->metrics[k];
            pg_rundoc_props p;
            double lo, hi;
            if (!m->source || !pg_rundoc_backend_props(&p, r, m->source) || !p.exact || !pg_metric_counted(m->name, m->unit) ||
                !local_range(&lo, &hi, runs, from, to, r, i, b->name, m))
                continue;
            for (size_t j = 0; j < m->n; j++) {
                double v = m->samples[j];
                if (v >= lo - (hi - lo) && v <= hi + (hi - lo))
                    continue;
                char a[48], x[48], y[48], name[200];
                pg_format_thousands(a, sizeof a, v);
                pg_format_thousands(x, sizeof x, lo);
                pg_format_thousands(y, sizeof y, hi);
                snprintf(why, len, "%s %s %s against %s%s%s here", pg_text_escape_buf(name, sizeof name, b->name, PG_TEXT_TERM),
                         m->name, a, x, lo == hi ? "" : "..", lo == hi ? "" : y);
                return 1;
            }
        }
    }
    return 0;
}

/* The note's runs [from, runs->n) that another clone measured on a machine
 * and backend this clone has runs of too ([local, from)), and whose exact
 * counts disagree with those: set aside, each said once. Anyone who can
 * push notes could otherwise widen a spread or move a median that this
 * clone measured itself, and fail (or pass) any gate (docs/notes.md, "Trust"). */
static void set_aside(pg_rundoc_list *runs, size_t local, size_t from, const char *commit)
{
    size_t keep = from;
    for (size_t i = from; i < runs->n; i++) {
        pg_rundoc *r = &runs->v[i];
        char why[600];
        r->from_note = 1;
        if (disagrees(why, sizeof why, runs, local, from, r)) {
            char id[120], host[120];
            pg_text_warn("warning: %.12s: run %s from %s (machine %s, host %s) disagrees with this clone's own runs: "
                         "%s; set aside", commit, pg_text_escape_buf(id, sizeof id, r->id ? r->id : "?", PG_TEXT_TERM),
                         PG_NOTES_REF, r->machine.id, pg_text_escape_buf(host, sizeof host, r->machine.hostname, PG_TEXT_TERM),
                         why);
            pg_rundoc_free(r);
            continue;
        }
        if (keep != i)
            runs->v[keep] = *r;
        keep++;
    }
    runs->n = keep;
}

int pg_results_load(pg_rundoc_list *runs, const char *store_root, pg_repo *repo, const char *commit)
{
    size_t before = runs->n, added = 0;
    int rc = store_root && *store_root ? pg_store_load(runs, store_root, commit) : PG_ENOTFOUND;
    if (rc == PG_ENOTFOUND) {
        pg_error_clear();
        rc = 0;
    }
    size_t local = runs->n;
    if (rc == 0 && repo)
        rc = pg_notes_load(runs, &added, repo, commit);
    if (rc == 0)
        set_aside(runs, before, local, commit);
    if (rc == 0 && runs->n == before)
        rc = pg_error_set(PG_ENOTFOUND, "no results for %.12s in %s or in %s", commit,
                          store_root && *store_root ? store_root : "(no store)", PG_NOTES_REF);
    if (rc < 0)
        pg_rundoc_list_truncate(runs, before);
    return rc;
}

/* One line for each benchmark of `side` whose exact counts do not repeat:
 * its first such metric, both values and where each came from. */
static void say_varies(const pg_side *side, const char *commit)
{
    for (size_t i = 0; i < side->nb; i++) {
        const pg_bench_result *b = &side->b[i];
        for (size_t j = 0; j < b->nm; j++) {
            const pg_series *s = &b->m[j];
            if (!s->disagreement || pg_series_duplicate_alias(b, s))
                continue;
            char name[300], spread[48];
            pg_format_thousands(spread, sizeof spread, pg_series_spread(s));
            pg_text_warn("note: %.12s %s does not repeat its exact %s (spread %s over %zu runs): %s; compare "
                         "pools them and decides against that spread (docs/metrics.md, \"Counts that do not repeat\")",
                         commit, pg_text_escape_buf(name, sizeof name, b->name, PG_TEXT_TERM), s->metric, spread, s->n,
                         s->disagreement);
            break;
        }
    }
}

void pg_results_check_exact(const pg_rundoc_list *runs)
{
    for (size_t i = 0; i < runs->n; i++) {
        const pg_rundoc *r = &runs->v[i];
        size_t k = 0;
        while (k < i && (strcmp(runs->v[k].machine.id, r->machine.id) || strcmp(runs->v[k].backend, r->backend)))
            k++;
        if (k < i)
            continue;           /* that machine and backend were checked with run k */
        pg_side side = {0};
        if (pg_results_collect(&side, runs, r->machine.id, r->backend, NULL) < 0)
            pg_error_clear();
        else
            say_varies(&side, r->commit ? r->commit : "");
        pg_side_free(&side);
    }
}

int pg_results_history_add(pg_history *h, const pg_rundoc_list *runs, const char *commit, const char *store,
                           const char *machine, const char *backend)
{
    for (size_t i = 0; i < runs->n; i++) {
        const pg_rundoc *r = &runs->v[i];
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(runs->v[j].machine.id, r->machine.id) && !strcmp(runs->v[j].backend, r->backend);
        if (seen || (machine && strncmp(r->machine.id, machine, strlen(machine))) || (backend && strcmp(r->backend, backend)))
            continue;
        pg_side *side = calloc(1, sizeof *side);
        if (!side)
            return pg_error_set(PG_ENOMEM, "out of memory");
        snprintf(side->label, sizeof side->label, "%.12s", commit);
        snprintf(side->commit, sizeof side->commit, "%.40s", commit);
        int rc = pg_results_collect(side, runs, r->machine.id, r->backend, store);
        if (rc < 0) {
            pg_side_free(side);
            free(side);
            return rc;
        }
        if ((rc = pg_history_add_side(h, side)) < 0)
            return rc;
    }
    return 0;
}
