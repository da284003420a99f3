/* report/compare.c — see compare.h. */
#include "report/compare.h"
#include "report/format.h"
#include "report/calib.h"
#include "util/array.h"
#include "report/divergence.h"
#include "report/stats.h"
#include "util/error.h"
#include "util/pair.h"
#include "util/metrics.h"
#include "util/strindex.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Gating metrics first, then the registry's order (util/metrics.h). */
static size_t order_of(const pg_gates *g, const char *metric)
{
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->v[i], metric))
            return i;
    return g->n + pg_metric_order(metric);
}

static int cmp_metric(const void *x, const void *y)
{
    const pg_metric_cmp *a = x, *b = y;
    if (a->order != b->order)
        return a->order < b->order ? -1 : 1;
    int c = strcmp(a->metric, b->metric);
    return c ? c : strcmp(a->backend, b->backend);
}

/* A benchmark's metrics in report order. No two share a name and a backend,
 * so the order is total and any sort gives it: a handful by insertion, not
 * through qsort's calls (10^4 benchmarks). */
static void sort_metrics(pg_metric_cmp *m, size_t n)
{
    if (n > 16) {
        qsort(m, n, sizeof *m, cmp_metric);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        pg_metric_cmp x = m[i];
        size_t j = i;
        for (; j > 0 && cmp_metric(&m[j - 1], &x) > 0; j--)
            m[j] = m[j - 1];
        m[j] = x;
    }
}


/* What follows from a metric's name alone: the registry's metric it is an
 * alias of, its threshold when the benchmark has none of its own, its place
 * in the report and whether it gates. The series of a side share their
 * names (a side's string pool), so a name is known by its pointer, and a
 * comparison of 10^4 benchmarks looks each up once, not 10^5 times. */
typedef struct known {
    const char *metric;
    const pg_metric_info *alias;
    double pct;
    pg_threshold_source src;
    size_t order;
    int gating;
} known;

typedef struct memo {
    const pg_compare_opts *o;
    size_t n;
    known k[16], spare;     /* spare: a name past the 16 kept, found every time */
} memo;

static const known *known_of(memo *m, const char *metric)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->k[i].metric == metric)
            return &m->k[i];
    known *k = m->n < sizeof m->k / sizeof *m->k ? &m->k[m->n++] : &m->spare;
    k->metric = metric;
    k->alias = pg_metric_find_alias(metric);
    k->pct = pg_threshold_for(m->o->thresholds, NULL, metric, &k->src);
    k->order = order_of(m->o->gates, metric);
    k->gating = pg_gates_has(m->o->gates, metric);
    return k;
}

/* pg_series_duplicate_alias, its alias looked up once. */
static int duplicate_alias(const pg_bench_result *b, const pg_series *s, memo *m)
{
    const known *k = known_of(m, s->metric);
    return k->alias && pg_bench_find_series(b, k->alias->name, s->backend) != NULL;
}

/* The threshold in force (command line, manifest, calibration, default:
 * threshold.h) and the measured noise floor, when calibrate measured one. */
static void set_threshold(pg_metric_cmp *mc, const pg_bench_result *cand, const pg_compare_opts *o, memo *m)
{
    if (cand->thresholds.n) {
        mc->threshold_pct = pg_threshold_for(o->thresholds, &cand->thresholds, mc->metric, &mc->threshold_source);
    } else {
        const known *k = known_of(m, mc->metric);
        mc->threshold_pct = k->pct;
        mc->threshold_source = k->src;
    }
    const pg_floor *f = pg_floors_find(o->floors, cand->name, mc->metric);
    mc->floor_pct = f ? f->floor_pct : NAN;
    if (f && mc->threshold_source == PG_TH_DEFAULT) {
        mc->threshold_pct = f->threshold_pct;
        mc->threshold_source = PG_TH_CALIBRATED;
    }
}

/* A series' samples sorted once, for its median and its U test; `v` NULL
 * when they could not be (a NaN among them, or no memory): then the
 * unsorted samples are handed to pg_stats, which sorts them itself. */
typedef struct sorted {
    double *v;
    double small[64];
} sorted;

static void sorted_free(sorted *s)
{
    if (s->v != s->small)
        free(s->v);
    s->v = NULL;
}

static void sort_series(sorted *s, const pg_series *ser)
{
    s->v = ser->n <= 64 ? s->small : malloc(ser->n * sizeof *s->v);
    for (size_t i = 0; s->v && i < ser->n; i++) {
        if (isnan(ser->v[i])) {
            sorted_free(s);
            return;
        }
        s->v[i] = ser->v[i];
    }
    if (s->v)
        pg_stats_sort(s->v, ser->n);
}

static double median_of(const sorted *s, const pg_series *ser)
{
    return s->v ? pg_stats_median_sorted(s->v, ser->n) : pg_stats_median(ser->v, ser->n);
}

static void measure_sorted(pg_metric_cmp *mc, const pg_series *sa, const pg_series *sb, const sorted *wa,
                           const sorted *wb, const pg_bench_result *cb, const pg_compare_opts *o, size_t min_samples,
                           const pg_comparison *c, memo *m)
{
    mc->metric = sa->metric;
    mc->unit = sa->unit;
    mc->backend = sa->backend;
    mc->simulated = sa->simulated;
    mc->na = sa->n;
    mc->nb = sb->n;
    mc->base = median_of(wa, sa);
    mc->cand = median_of(wb, sb);
    mc->delta_abs = mc->cand - mc->base;
    mc->delta_pct = mc->base != 0 ? 100 * mc->delta_abs / fabs(mc->base) : (mc->delta_abs == 0 ? 0 : NAN);
    set_threshold(mc, cb, o, m);
    mc->p = mc->q = NAN;
    if (sa->n == 0 || sb->n == 0) {
        mc->verdict = PG_VERDICT_INCONCLUSIVE;
        pg_note_set(&mc->note, PG_NOTE_METRIC, "no samples in the %s", sa->n == 0 ? "baseline" : "candidate");
        return;
    }
    /* An exact backend's counts (valgrind's simulation): the same program gives
     * the same count. Its wall-time and max-rss are still the machine's, and
     * noisy. A call count is exact with either backend (a uprobe, or callgrind). */
    int exact = pg_series_exact(sa) && pg_series_exact(sb);
    /* Time measured at two moments: each sample says as much of the load as
     * of the program, so no verdict is drawn (docs/metrics.md, "Time across sessions"). */
    if (c->apart && !exact && pg_metric_load_bound(sa->metric, sa->unit)) {
        char la[24] = "unknown", lb[24] = "unknown";
        if (!isnan(c->load_base))
            snprintf(la, sizeof la, "%.2f", c->load_base);
        if (!isnan(c->load_cand))
            snprintf(lb, sizeof lb, "%.2f", c->load_cand);
        mc->not_compared = 1;
        mc->verdict = PG_VERDICT_INCONCLUSIVE;
        pg_note_set(&mc->note, PG_NOTE_METRIC, "not compared: measured apart (load %s against %s); --run-missing "
                    "measures both together", la, lb);
        return;
    }
    mc->deterministic = exact ||
                        (sa->n >= 2 && sb->n >= 2 && pg_stats_all_equal(sa->v, sa->n) && pg_stats_all_equal(sb->v, sb->n));
    /* A change from zero is infinitely many percent: beyond any threshold. */
    double mag = isnan(mc->delta_pct) ? INFINITY : fabs(mc->delta_pct);
    mc->exceeds = mag > mc->threshold_pct;
    int enough = sa->n >= min_samples && sb->n >= min_samples;
    if (exact) {
        double ssa = pg_series_spread(sa), ssb = pg_series_spread(sb);
        mc->spread = ssa > ssb ? ssa : ssb;
    }
    if (!mc->exceeds) {
        mc->verdict = PG_VERDICT_UNCHANGED;
    } else if (mc->spread > 0 && fabs(mc->delta_abs) < PG_SPREAD_FACTOR * mc->spread) {
        /* A count that does not repeat, moved by about its own spread: the
         * wobble or the change, which one is not known. */
        char d[48], w[48];
        pg_format_thousands(d, sizeof d, fabs(mc->delta_abs));
        pg_format_thousands(w, sizeof w, mc->spread);
        int within = fabs(mc->delta_abs) <= mc->spread;
        mc->verdict = within ? PG_VERDICT_UNCHANGED : PG_VERDICT_INCONCLUSIVE;
        pg_note_set(&mc->note, PG_NOTE_METRIC, "%s: its counts vary by %s between runs, the delta is %s%s",
                    within ? "within its spread" : "does not repeat", w, d,
                    within ? "" : " (a verdict needs 3 spreads)");
    } else if (mc->deterministic) {
        mc->verdict = mc->delta_abs > 0 ? PG_VERDICT_REGRESSED : PG_VERDICT_IMPROVED;
    } else if (!enough) {
        mc->verdict = PG_VERDICT_INCONCLUSIVE;
        pg_note_set(&mc->note, PG_NOTE_METRIC, "noisy metric: %zu and %zu samples, %zu per side needed to test significance",
                 sa->n, sb->n, min_samples);
    } else {
        mc->verdict = PG_VERDICT_INCONCLUSIVE;  /* decided once every p-value is known */
    }
    /* Every noisy pair that can be tested is, within its threshold or not: the
     * false-discovery correction must count all the tests, not only the ones
     * that looked large. */
    pg_mwu u;
    if (!mc->deterministic && enough &&
        (wa->v && wb->v ? pg_stats_mannwhitney_sorted(&u, wa->v, sa->n, wb->v, sb->n)
                        : pg_stats_mannwhitney(&u, sa->v, sa->n, sb->v, sb->n)) == 0) {
        mc->tested = 1;
        mc->p = u.p;
    }
}

/* Medians, delta, threshold and — for deterministic pairs — the verdict. */
static void measure(pg_metric_cmp *mc, const pg_series *sa, const pg_series *sb, const pg_bench_result *cb,
                    const pg_compare_opts *o, size_t min_samples, const pg_comparison *c, memo *m)
{
    sorted wa, wb;
    sort_series(&wa, sa);
    sort_series(&wb, sb);
    measure_sorted(mc, sa, sb, &wa, &wb, cb, o, min_samples, c, m);
    sorted_free(&wa);
    sorted_free(&wb);
}

pg_verdict pg_verdict_combine(const size_t count[4])
{
    if (count[PG_VERDICT_REGRESSED])
        return PG_VERDICT_REGRESSED;
    if (count[PG_VERDICT_INCONCLUSIVE])
        return PG_VERDICT_INCONCLUSIVE;
    if (count[PG_VERDICT_IMPROVED])
        return PG_VERDICT_IMPROVED;
    return PG_VERDICT_UNCHANGED;
}

static int add_metric(pg_bench_cmp *bc, size_t *cap, pg_metric_cmp **out)
{
    int rc = pg_array_grow(&bc->m, cap, bc->nm, sizeof *bc->m, 8);
    if (rc < 0)
        return rc;
    *out = &bc->m[bc->nm++];
    memset(*out, 0, sizeof **out);
    (*out)->p = (*out)->q = (*out)->floor_pct = NAN;
    return 0;
}

/* A metric that cannot be compared: measured on one side only (`s`, of the
 * baseline when `in_base`), or by another backend on the other side. */
static void one_sided(pg_metric_cmp *mc, const pg_series *s, int in_base, const pg_bench_result *cand,
                      const pg_compare_opts *o, memo *m)
{
    mc->metric = s->metric;
    mc->unit = s->unit;
    mc->backend = s->backend;
    mc->simulated = s->simulated;
    mc->base = mc->cand = mc->delta_abs = mc->delta_pct = NAN;
    if (in_base) {
        mc->na = s->n;
        mc->base = pg_stats_median(s->v, s->n);
    } else {
        mc->nb = s->n;
        mc->cand = pg_stats_median(s->v, s->n);
    }
    set_threshold(mc, cand, o, m);
    mc->not_compared = 1;
    mc->verdict = PG_VERDICT_INCONCLUSIVE;
}

/* Every metric pair of one benchmark present on both sides. */
static int compare_bench(pg_bench_cmp *bc, const pg_bench_result *a, const pg_bench_result *b,
                         const pg_compare_opts *o, size_t min_samples, const pg_comparison *c, memo *m)
{
    /* Sized for the usual case, both sides measured the same metrics: in a
     * suite of 10^4 benchmarks, a doubling array's slack was 10 MB. */
    size_t cap = a->nm;
    pg_metric_cmp *mc;
    int rc;
    if (cap && !(bc->m = malloc(cap * sizeof *bc->m)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < a->nm; i++) {
        const pg_series *sa = &a->m[i];
        if (duplicate_alias(a, sa, m))
            continue;
        const pg_series *sb = pg_bench_find_series(b, sa->metric, sa->backend);
        if ((rc = add_metric(bc, &cap, &mc)) < 0)
            return rc;
        if (sb) {
            measure(mc, sa, sb, b, o, min_samples, c, m);
            continue;
        }
        const pg_series *other = pg_bench_find_series(b, sa->metric, NULL);
        one_sided(mc, sa, 1, b, o, m);
        if (other)
            pg_note_set(&mc->note, PG_NOTE_METRIC, "not compared: measured by %s in the baseline, by %s in the candidate",
                     sa->backend, other->backend);
        else
            pg_note_set(&mc->note, PG_NOTE_METRIC, "not compared: not measured in the candidate");
    }
    for (size_t i = 0; i < b->nm; i++) {
        const pg_series *sb = &b->m[i];
        if (pg_bench_find_series(a, sb->metric, NULL) || duplicate_alias(b, sb, m))
            continue;   /* compared above, or already named as measured by another backend */
        if ((rc = add_metric(bc, &cap, &mc)) < 0)
            return rc;
        one_sided(mc, sb, 0, b, o, m);
        pg_note_set(&mc->note, PG_NOTE_METRIC, "not compared: not measured in the baseline");
    }
    if (bc->nm && bc->nm < cap) {
        pg_metric_cmp *fit = realloc(bc->m, bc->nm * sizeof *fit);
        if (fit)
            bc->m = fit;
    }
    return 0;
}

/* Appends "; what" to a missing entry's reason. */
__attribute__((format(printf, 2, 3)))
static void reason_add(pg_missing *ms, const char *fmt, ...)
{
    size_t len = strlen(ms->reason);
    if (len + 3 >= sizeof ms->reason)
        return;
    if (len)
        len += (size_t)snprintf(ms->reason + len, sizeof ms->reason - len, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ms->reason + len, sizeof ms->reason - len, fmt, ap);
    va_end(ap);
}

/* The benchmark's verdict from its gating metrics (see compare.h); what kept
 * a gating metric from being compared goes into *ms. */
static void bench_verdict(pg_bench_cmp *bc, pg_missing *ms, size_t *ngated, const pg_bench_result *a,
                          const pg_bench_result *b, const pg_gates *g, memo *mm)
{
    size_t count[4] = {0};
    for (size_t i = 0; i < bc->nm; i++) {
        pg_metric_cmp *m = &bc->m[i];
        m->gating = known_of(mm, m->metric)->gating;
        if (!m->gating)
            continue;
        count[m->verdict]++;
        if (!m->not_compared && m->na && m->nb)
            ++*ngated;
        else if (!a->failed && !b->failed)  /* a failure says why by itself, below */
            reason_add(ms, "%s %s", m->metric, m->note ? m->note : "not compared");
    }
    for (size_t i = 0; i < g->n; i++) {
        if (!pg_bench_find_series(a, g->v[i], NULL) && !pg_bench_find_series(b, g->v[i], NULL)) {
            count[PG_VERDICT_INCONCLUSIVE]++;
            pg_note_add(&bc->note, PG_NOTE_BENCH, "gating metric %s was measured on neither side", g->v[i]);
            if (!a->failed && !b->failed)
                reason_add(ms, "%s measured on neither side", g->v[i]);
        }
    }
    if (a->failed || b->failed) {
        count[PG_VERDICT_INCONCLUSIVE]++;
        if (a->failed)
            pg_note_add(&bc->note, PG_NOTE_BENCH, "failed in the baseline: %s",
                        a->failure ? a->failure : "(no reason stored)");
        if (b->failed)
            pg_note_add(&bc->note, PG_NOTE_BENCH, "failed in the candidate: %s",
                        b->failure ? b->failure : "(no reason stored)");
        if (a->failed)
            reason_add(ms, "failed in the %s: %s", "baseline", a->failure ? a->failure : "(no reason stored)");
        if (b->failed)
            reason_add(ms, "failed in the %s: %s", "candidate", b->failure ? b->failure : "(no reason stored)");
    }
    bc->verdict = pg_verdict_combine(count);
}

/* --reuse-unchanged: a side whose exact counts a stored run gave says so. */
static void note_reused(pg_bench_cmp *bc, const pg_bench_result *a, const pg_bench_result *b)
{
    for (int s = 0; s < 2; s++) {
        const char *from = s ? b->reused : a->reused;
        if (from)
            pg_note_add(&bc->note, PG_NOTE_BENCH, "the %s's exact counts reused from %s (nothing they depend on "
                        "changed)", s ? "candidate" : "baseline", from);
    }
}

/* Appends *ms to out->missing: a list of the few not gated, not a record
 * per benchmark (10^4 of them were 5 MB). */
static int missing_add(pg_comparison *out, size_t *cap, const pg_missing *ms)
{
    int rc = pg_array_grow(&out->missing, cap, out->nmissing, sizeof *out->missing, 8);
    if (rc == 0)
        out->missing[out->nmissing++] = *ms;
    return rc;
}

/* Pass 1 of pg_compare over benchmarks [from, to) of out->bench. */
typedef struct half {
    pg_comparison *out;
    const pg_bench_result **a, **b;
    const pg_compare_opts *o;
    size_t min_samples, from, to;
} half;

static int compare_half(void *arg)
{
    const half *h = arg;
    memo m = {.o = h->o};
    int rc = 0;
    for (size_t i = h->from; i < h->to && rc == 0; i++) {
        const pg_bench_result *a = h->a[i], *b = h->b[i];
        pg_bench_cmp *bc = &h->out->bench[i];
        bc->stacks_a = a->stacks;
        bc->stacks_b = b->stacks;
        bc->iter_a = a->stacks_iterations;
        bc->iter_b = b->stacks_iterations;
        bc->failed_a = a->failed;
        bc->failed_b = b->failed;
        bc->stacks_note = b->stacks_note ? b->stacks_note : a->stacks_note;
        rc = compare_bench(bc, a, b, h->o, h->min_samples, h->out, &m);
        note_reused(bc, a, b);
    }
    pg_stats_forget();      /* a thread's cached table goes with it (this one rebuilds it once) */
    return rc;
}

/* Whether two sides' runs were measured in no common session. Sides that
 * name none (built by hand) are not said to be apart. */
static int measured_apart(const pg_side *a, const pg_side *b)
{
    if (!a->nsessions || !b->nsessions)
        return 0;
    for (size_t i = 0; i < a->nsessions; i++)
        for (size_t j = 0; j < b->nsessions; j++)
            if (!strcmp(a->sessions[i], b->sessions[j]))
                return 0;
    return 1;
}

/* Whether both sides list the same benchmarks in the same order, as two
 * runs of one suite do: then the i-th pairs with the i-th, and nothing is
 * new or gone, without two indexes of every name (3.5 ms of the 26 ms
 * pg_compare took for 10^4 benchmarks). A side's names are unique
 * (pg_results_collect merges a name's runs). */
static int same_names(const pg_side *a, const pg_side *b)
{
    if (a->nb != b->nb)
        return 0;
    for (size_t i = 0; i < a->nb; i++)
        if (strcmp(a->b[i].name, b->b[i].name))
            return 0;
    return 1;
}

int pg_compare(pg_comparison *out, const pg_side *base, const pg_side *cand, const pg_compare_opts *o)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    out->cand = cand;
    out->gates = o->gates;
    out->alpha = o->alpha > 0 ? o->alpha : 0.05;
    out->cross_machine = strcmp(base->machine_id, cand->machine_id) != 0;
    out->apart = !o->allow_apart && measured_apart(base, cand);
    out->load_base = base->nload ? base->load_sum / (double)base->nload : NAN;
    out->load_cand = cand->nload ? cand->load_sum / (double)cand->nload : NAN;
    size_t min_samples = o->min_samples ? o->min_samples : 3;
    size_t capmissing = 0;          /* out->missing's */

    pg_strindex ia = {0}, ib = {0};
    int same = same_names(base, cand), rc = 0;
    for (size_t i = 0; i < base->nb && rc == 0 && !same; i++)
        rc = pg_strindex_put(&ia, base->b[i].name, i);
    for (size_t i = 0; i < cand->nb && rc == 0 && !same; i++)
        rc = pg_strindex_put(&ib, cand->b[i].name, i);
    out->bench = calloc(cand->nb ? cand->nb : 1, sizeof *out->bench);
    out->added = calloc(cand->nb ? cand->nb : 1, sizeof *out->added);
    out->vanished = calloc(base->nb ? base->nb : 1, sizeof *out->vanished);
    if (rc == 0 && (!out->bench || !out->added || !out->vanished))
        rc = pg_error_set(PG_ENOMEM, "out of memory");

    /* Pass 1: which benchmarks pair up, then their medians, deltas,
     * deterministic verdicts and raw p-values (two halves at once). */
    const pg_bench_result **pa = calloc(cand->nb ? cand->nb : 1, sizeof *pa), **pb = calloc(cand->nb ? cand->nb : 1, sizeof *pb);
    if (rc == 0 && (!pa || !pb))
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < cand->nb && rc == 0; i++) {
        const pg_bench_result *b = &cand->b[i];
        size_t j;
        if (same)
            j = i;
        else if (!pg_strindex_get(&ia, b->name, &j)) {
            out->added[out->nadded++] = b->name;
            continue;
        }
        pa[out->nbench] = &base->b[j];
        pb[out->nbench] = b;
        out->bench[out->nbench++].name = b->name;
    }
    half h[2] = {{.out = out, .a = pa, .b = pb, .o = o, .min_samples = min_samples, .to = out->nbench / 2},
                 {.out = out, .a = pa, .b = pb, .o = o, .min_samples = min_samples, .from = out->nbench / 2, .to = out->nbench}};
    /* The second half on a thread of its own when the suite is large enough to
     * pay for one: a comparison of 10^4 benchmarks runs 5 * 10^4 Mann-Whitney tests. */
    if (rc == 0)
        rc = pg_pair_run(compare_half, &h[0], &h[1], h[1].to - h[1].from >= 256);
    size_t ntested = 0;
    for (size_t i = 0; i < out->nbench && rc == 0; i++)
        for (size_t k = 0; k < out->bench[i].nm; k++)
            ntested += out->bench[i].m[k].tested;
    for (size_t i = 0; i < base->nb && rc == 0 && !same; i++) {
        size_t j;
        if (!pg_strindex_get(&ib, base->b[i].name, &j))
            out->vanished[out->nvanished++] = base->b[i].name;
    }

    /* Pass 2: one Benjamini-Hochberg adjustment over every tested pair. */
    double *p = rc == 0 ? malloc((ntested ? ntested : 1) * sizeof *p) : NULL;
    if (rc == 0 && !p)
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    if (rc == 0) {
        size_t k = 0;
        for (size_t i = 0; i < out->nbench; i++)
            for (size_t m = 0; m < out->bench[i].nm; m++)
                if (out->bench[i].m[m].tested)
                    p[k++] = out->bench[i].m[m].p;
        rc = pg_stats_bh(p, p, ntested);
        k = 0;
        for (size_t i = 0; i < out->nbench && rc == 0; i++) {
            for (size_t m = 0; m < out->bench[i].nm; m++) {
                pg_metric_cmp *mc = &out->bench[i].m[m];
                if (!mc->tested)
                    continue;
                mc->q = p[k++];
                if (!mc->exceeds)
                    continue;
                if (mc->q < out->alpha)
                    mc->verdict = mc->delta_abs > 0 ? PG_VERDICT_REGRESSED : PG_VERDICT_IMPROVED;
                else
                    pg_note_set(&mc->note, PG_NOTE_METRIC,
                             "beyond the threshold but not significant (Mann-Whitney p=%.3g, BH-adjusted %.3g >= %.2g)",
                             mc->p, mc->q, out->alpha);
            }
        }
    }
    free(p);

    /* Pass 3: per-benchmark and overall verdicts. */
    memo m = {.o = o};
    for (size_t i = 0; i < out->nbench && rc == 0; i++) {
        pg_bench_cmp *bc = &out->bench[i];
        pg_missing ms = {.bench = bc->name};
        bench_verdict(bc, &ms, &out->ngated, pa[i], pb[i], o->gates, &m);
        if (ms.reason[0])
            rc = missing_add(out, &capmissing, &ms);
        for (size_t k = 0; k < bc->nm; k++)
            bc->m[k].order = known_of(&m, bc->m[k].metric)->order;
        sort_metrics(bc->m, bc->nm);
        out->count[bc->verdict]++;
    }
    /* A benchmark on one side only was not gated either. */
    for (size_t i = 0; i < out->nadded && rc == 0; i++)
        rc = missing_add(out, &capmissing, &(pg_missing){.bench = out->added[i], .reason = "not in the baseline"});
    for (size_t i = 0; i < out->nvanished && rc == 0; i++)
        rc = missing_add(out, &capmissing, &(pg_missing){.bench = out->vanished[i], .reason = "not in the candidate"});
    out->verdict = out->nbench ? pg_verdict_combine(out->count) : PG_VERDICT_INCONCLUSIVE;
    out->fail_on_divergence = o->fail_on_divergence;
    if (rc == 0)
        rc = pg_divergence_find(out, o->divergence_factor > 0 ? o->divergence_factor : PG_DIVERGENCE_FACTOR);
    free(pa);
    free(pb);
    pg_strindex_free(&ia);
    pg_strindex_free(&ib);
    if (rc < 0)
        pg_comparison_free(out);
    return rc;
}
