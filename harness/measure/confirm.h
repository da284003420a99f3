/* harness/measure/confirm.h — the second round of `compare --run-missing`
 * (report/confirm.h): the benchmarks whose regression rests on noisy gating
 * metrics are measured again at both revisions, interleaved (A B A B ...:
 * harness/measure/plan.h), the new runs are stored like any other, and the
 * comparison of those new samples alone settles the first one.
 */
#ifndef PG_HARNESS_CONFIRM_H
#define PG_HARNESS_CONFIRM_H

#include "harness/store/gitrepo.h"
#include "harness/store/rundoc.h"
#include "harness/measure/plan.h"
#include "report/compare.h"

typedef struct pg_round2 {
    pg_rundoc_list runs[2];     /* every run stored for each commit, the new ones last */
    pg_side side[2];
    pg_comparison c;
    int compared;
} pg_round2;

/* How the second round measures and compares. */
typedef struct pg_round2_opts {
    pg_backend_kind backend;        /* the round opens a session of its own with it */
    int native;                     /* native runs too */
    const pg_compare_opts *co;
    int (*want)(const pg_bench_cmp *b, const void *arg);   /* the benchmarks measured again;
                                       NULL: those report/confirm.h wants confirmed */
    const void *want_arg;
    const char *why;                /* what stderr says of them; NULL: "regressed on noisy metrics only" */
    int keep;                       /* 1: the round's comparison in r->c only, `c` left as it is
                                       (bisect votes with it); 0: applied to `c` */
} pg_round2_opts;

/* Measures again the benchmarks of `c` that o->want (report/confirm.h by
 * default) picks, at the two commits of `plan` (plan.h: its session and
 * `only` are the round's own), stores the runs as the plan says, compares
 * them with o->co into r->c and, unless o->keep, applies the result to `c`.
 * `r` (zeroed by the caller) must outlive `c`; free it with pg_round2_free. */
int pg_round2_run(pg_round2 *r, pg_comparison *c, const pg_measure_plan *plan, const pg_round2_opts *o);
/* `compare --control` (report/control.h): the two newest runs of `commit`
 * on machine `machine_id` and `backend` in the store at `root` (the
 * baseline's A and A', just measured) compared into r->c, A' as the
 * candidate, with o->co; `label` names the baseline. Free with pg_round2_free. */
typedef struct pg_control_of {
    const char *root, *commit, *label, *machine_id, *backend;
    const pg_compare_opts *co;
} pg_control_of;
int pg_round2_control(pg_round2 *r, const pg_control_of *of);

void pg_round2_free(pg_round2 *r);

#endif
