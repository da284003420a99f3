/* report/confirm.c — see confirm.h. */
#include "report/confirm.h"

#include <stdio.h>
#include <string.h>

int pg_confirm_wanted(const pg_bench_cmp *b)
{
    if (b->verdict != PG_VERDICT_REGRESSED)
        return 0;
    for (size_t i = 0; i < b->nm; i++)
        if (b->m[i].gating && b->m[i].verdict == PG_VERDICT_REGRESSED && b->m[i].deterministic)
            return 0;
    return 1;
}

int pg_confirm_near(const pg_bench_cmp *b, double alpha)
{
    int near = 0;
    for (size_t i = 0; i < b->nm; i++) {
        const pg_metric_cmp *m = &b->m[i];
        if (!m->gating || m->not_compared)
            continue;
        if (m->deterministic && m->verdict == PG_VERDICT_REGRESSED)
            return 0;
        if (m->deterministic || !(m->delta_pct >= m->threshold_pct / 2))
            continue;
        int clear = m->delta_pct > 2 * m->threshold_pct && m->tested && m->q < alpha / 5;
        near |= !clear;
    }
    return near;
}

size_t pg_confirm_count(const pg_comparison *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nbench; i++)
        n += pg_confirm_wanted(&c->bench[i]);
    return n;
}

void pg_confirm_apply(pg_comparison *c, const pg_comparison *round2)
{
    memset(c->count, 0, sizeof c->count);
    for (size_t i = 0; i < c->nbench; i++) {
        pg_bench_cmp *b = &c->bench[i];
        if (pg_confirm_wanted(b)) {
            const pg_bench_cmp *r = pg_comparison_find_bench(round2, b->name);
            b->round1 = b->verdict;
            b->round2 = r;
            b->confirmed = r && r->verdict == PG_VERDICT_REGRESSED;
            c->nremeasured++;
            if (!b->confirmed) {
                b->verdict = PG_VERDICT_INCONCLUSIVE;
                pg_note_add(&b->note, PG_NOTE_BENCH, "regressed in round 1, not confirmed by round 2 (%s)",
                            r ? pg_verdict_name(r->verdict) : "not measured again");
            }
        }
        c->count[b->verdict]++;
    }
    c->verdict = c->nbench ? pg_verdict_combine(c->count) : PG_VERDICT_INCONCLUSIVE;
}
