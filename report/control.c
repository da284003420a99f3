/* report/control.c — see control.h. */
#include "report/control.h"
#include "report/compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* An exact count whose A and A' differ: the difference is a spread measured
 * in this run, and the A/B delta is decided against it as against a spread
 * between stored runs (compare.h): within it unchanged, past the threshold
 * and PG_SPREAD_FACTOR times it a verdict, in between inconclusive. */
static void settle_exact(pg_comparison *c, pg_metric_cmp *m)
{
    if (m->not_compared || !m->exceeds || m->control_abs <= m->spread)
        return;                             /* the A/B spread decided already, and not less strictly */
    double d = fabs(m->delta_abs);
    if (d >= PG_SPREAD_FACTOR * m->control_abs)
        return;
    m->within_noise = d <= m->control_abs;
    c->nwithin_noise += m->within_noise && m->verdict == PG_VERDICT_REGRESSED;
    m->verdict = m->within_noise ? PG_VERDICT_UNCHANGED : PG_VERDICT_INCONCLUSIVE;
    pg_note_set(&m->note, PG_NOTE_METRIC, "%s the control's A/A difference (%g): the count does not repeat",
                m->within_noise ? "within" : "less than 3 times", m->control_abs);
}

/* One gating metric against its control; 1 when it regressed beyond it (or exactly). */
static int settle(pg_comparison *c, pg_bench_cmp *b, pg_metric_cmp *m, const pg_metric_cmp *cm)
{
    m->controlled = 1;
    m->control_abs = fabs(cm->delta_abs);
    m->control_pct = cm->base == 0 && cm->cand == 0 ? 0 : fabs(cm->delta_pct);
    if (m->deterministic || cm->deterministic) {   /* (an A/B not compared has no property of its own) */
        if (m->control_abs != 0) {
            c->nexact_drift++;
            m->exact_drift = 1;
            char text[160];
            snprintf(text, sizeof text, "its %s differs in the control (A against A': %+g): the count does not repeat",
                     m->metric, cm->delta_abs);
            pg_note_add(&b->note, PG_NOTE_BENCH, "%s", text);
            settle_exact(c, m);
        }
        return m->verdict == PG_VERDICT_REGRESSED;
    }
    if (m->not_compared || m->verdict != PG_VERDICT_REGRESSED)
        return 0;
    if (!(fabs(m->delta_pct) <= m->control_pct))
        return 1;
    c->nwithin_noise++;
    m->within_noise = 1;
    m->verdict = PG_VERDICT_UNCHANGED;
    pg_note_set(&m->note, PG_NOTE_METRIC, "within the noise of this run: %+.2f%% against the control's %.2f%%",
             m->delta_pct, m->control_pct);
    return 0;
}

void pg_control_apply(pg_comparison *c, const pg_comparison *control)
{
    c->controlled = 1;
    memset(c->count, 0, sizeof c->count);
    for (size_t i = 0; i < c->nbench; i++) {
        pg_bench_cmp *b = &c->bench[i];
        const pg_bench_cmp *cb = pg_comparison_find_bench(control, b->name);
        int regressed = 0, within = 0, unsure = 0;
        for (size_t k = 0; cb && k < b->nm; k++) {
            pg_metric_cmp *m = &b->m[k];
            const pg_metric_cmp *cm = m->gating ? pg_bench_cmp_metric(cb, m->metric) : NULL;
            if (!cm || cm->not_compared)    /* (an A/B not compared still shows its control) */
                continue;
            int was = m->verdict == PG_VERDICT_REGRESSED;
            int still = settle(c, b, m, cm);
            regressed |= still;
            within |= was && !still && m->verdict == PG_VERDICT_UNCHANGED;
            unsure |= was && m->verdict == PG_VERDICT_INCONCLUSIVE;
        }
        if (b->verdict == PG_VERDICT_REGRESSED && !regressed && unsure) {
            b->verdict = PG_VERDICT_INCONCLUSIVE;
            pg_note_add(&b->note, PG_NOTE_BENCH, "its exact count moved by less than 3 times the control's A/A "
                        "difference: not decided");
        } else if (b->verdict == PG_VERDICT_REGRESSED && within && !regressed) {
            b->verdict = PG_VERDICT_UNCHANGED;
            pg_note_add(&b->note, PG_NOTE_BENCH, "regressed within the noise of this run (the control's own delta "
                        "is as large): not a regression");
        }
        c->count[b->verdict]++;
    }
    c->verdict = c->nbench ? pg_verdict_combine(c->count) : PG_VERDICT_INCONCLUSIVE;
}

double pg_control_largest(const pg_comparison *c, const char *metric)
{
    double most = NAN;
    for (size_t i = 0; i < c->nbench; i++) {
        const pg_metric_cmp *m = pg_bench_cmp_metric(&c->bench[i], metric);
        if (m && m->controlled && !isnan(m->control_pct) && !(m->control_pct <= most))
            most = m->control_pct;
    }
    return most;
}
