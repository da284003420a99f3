/* harness/measure/confirm.c — see confirm.h. */
#include "harness/measure/confirm.h"
#include "harness/store/results.h"
#include "harness/measure/plan.h"
#include "harness/measure/session.h"
#include "harness/store/store.h"
#include "report/confirm.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The run just stored for the session's machine and backend: the last such in `runs`. */
static const pg_rundoc *newest(const pg_rundoc_list *runs, const pg_session *sess)
{
    const pg_rundoc *found = NULL;
    for (size_t i = 0; i < runs->n; i++)
        if (!strcmp(runs->v[i].machine.id, sess->machine.id) && !strcmp(runs->v[i].backend, pg_backend_name(sess->backend)))
            found = &runs->v[i];
    return found;
}

/* Side i of r made of `run` alone (borrowed: a list of that one run). */
static int side_of_run(pg_round2 *r, int i, const pg_rundoc *run, const char *label, const char *commit,
                       const char *root)
{
    pg_rundoc_list one = {.v = (pg_rundoc *)run, .n = 1};
    snprintf(r->side[i].label, sizeof r->side[i].label, "%s", label);
    snprintf(r->side[i].commit, sizeof r->side[i].commit, "%s", commit);
    return pg_results_collect(&r->side[i], &one, run->machine.id, run->backend, root);
}

/* r's two sides compared into r->c. */
static int compare_sides(pg_round2 *r, const pg_compare_opts *co)
{
    int rc = pg_compare(&r->c, &r->side[0], &r->side[1], co);
    r->compared = rc == 0;
    return rc;
}

/* The second round's runs, compared into r->c. */
static int compare_round(pg_round2 *r, const pg_comparison *c, const pg_measure_plan *plan, const pg_compare_opts *co)
{
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++) {
        const char *commit = plan->commits[i];
        rc = pg_store_load(&r->runs[i], plan->store_root, commit);
        const pg_rundoc *run = rc == 0 ? newest(&r->runs[i], plan->sess) : NULL;
        if (rc == 0 && !run)
            rc = pg_error_set(PG_ENOTFOUND, "the runs of the second round of %.12s are not in %s", commit, plan->store_root);
        if (rc == 0)
            rc = side_of_run(r, i, run, i ? c->cand->label : c->base->label, commit, plan->store_root);
    }
    return rc == 0 ? compare_sides(r, co) : rc;
}

int pg_round2_run(pg_round2 *r, pg_comparison *c, const pg_measure_plan *plan, const pg_round2_opts *ro2)
{
    size_t n = 0;
    const char **names = calloc(c->nbench ? c->nbench : 1, sizeof *names);
    if (!names)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->nbench; i++)
        if (ro2->want ? ro2->want(&c->bench[i], ro2->want_arg) : pg_confirm_wanted(&c->bench[i]))
            names[n++] = c->bench[i].name;
    fprintf(stderr, "perfgate: %zu benchmark%s %s: measuring both revisions again, interleaved, to confirm\n", n,
            n == 1 ? "" : "s", ro2->why ? ro2->why : "regressed on noisy metrics only");
    pg_session sess;
    int rc = pg_session_open(&sess, ro2->backend, NULL, 1);
    if (rc == 0 && ro2->native)
        rc = pg_session_open_native(&sess);
    pg_run_opts o = *plan->ro;
    o.sample = 0;       /* the stacks of round 1 explain it */
    o.native = sess.native;
    pg_measure_plan p = *plan;
    p.sess = &sess, p.ro = &o, p.only = names, p.nonly = n;
    if (rc == 0)
        rc = pg_measure(NULL, &p);
    free(names);
    if (rc == 0 && (rc = compare_round(r, c, &p, ro2->co)) == 0 && !ro2->keep)
        pg_confirm_apply(c, &r->c);
    pg_session_close(&sess);
    return rc;
}

int pg_round2_control(pg_round2 *r, const pg_control_of *of)
{
    int rc = pg_store_load(&r->runs[0], of->root, of->commit);
    const pg_rundoc *two[2] = {NULL, NULL};
    for (size_t i = 0; rc == 0 && i < r->runs[0].n; i++) {
        const pg_rundoc *run = &r->runs[0].v[i];
        if (!strcmp(run->machine.id, of->machine_id) && !strcmp(run->backend, of->backend))
            two[0] = two[1], two[1] = run;
    }
    if (rc == 0 && !two[0])
        rc = pg_error_set(PG_ENOTFOUND, "--control: the baseline's two runs of this measurement are not in %s", of->root);
    char label[96];
    for (int i = 0; i < 2 && rc == 0; i++) {
        snprintf(label, sizeof label, "%s%s", of->label, i ? "'" : "");
        rc = side_of_run(r, i, two[i], label, of->commit, of->root);
    }
    return rc == 0 ? compare_sides(r, of->co) : rc;
}

void pg_round2_free(pg_round2 *r)
{
    if (r->compared)
        pg_comparison_free(&r->c);
    for (int i = 0; i < 2; i++) {
        pg_side_free(&r->side[i]);
        pg_rundoc_list_free(&r->runs[i]);
    }
}
