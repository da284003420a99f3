/* counters/backend_valgrind.c — the valgrind backend's table (backend_ops.h):
 * cachegrind for a program's counts (with or without its cache and branch
 * simulations), callgrind for a marked program's regions, for call counts
 * and for stacks, and for a Google Benchmark's timed region. */
#include "counters/backend_ops.h"
#include "counters/callgrind.h"
#include "counters/gbench.h"
#include "counters/outdir.h"
#include "counters/valgrind.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const name = "valgrind";
/* where valgrind finds its tools, when it is not installed where it was built for */
static const char *const env_keep[] = {"VALGRIND_LIB", NULL};

/* The valgrind backend's meter: the shared part first (backend_ops.h). */
typedef struct vg_meter {
    pg_meter parent;
    pg_valgrind *vg;
    pg_owned_dir outdir;        /* its tools' output, swept if perfgate is killed */
    char **wrapped;             /* the command of the current run */
    char others[512];           /* pg_meter_others, "" when none */
    unsigned sims;              /* PG_VALGRIND_*_SIM of the next runs */
} vg_meter;

/* Its recorder: callgrind. */
typedef struct vg_rec {
    pg_stackrec parent;
    pg_valgrind *vg;
    pg_owned_dir tmp;           /* callgrind's output directory: a killed perfgate's is swept by the next */
    char **argv;                /* the callgrind command of the current run */
} vg_rec;

static vg_meter *vm(pg_meter *m) { return (vg_meter *)m; }
static vg_rec *vr(pg_stackrec *r) { return (vg_rec *)r; }

static int meter_open(pg_meter *m, const pg_meter_opts *o)
{
    (void)o;
    pg_owned_init(&vm(m)->outdir);
    vm(m)->sims = PG_VALGRIND_CACHE_SIM | PG_VALGRIND_BRANCH_SIM;
    int rc = pg_valgrind_new(&vm(m)->vg);
    if (rc == 0)
        rc = pg_outdir_make(&vm(m)->outdir, PG_OUTDIR_COUNTS);
    if (rc == 0)
        snprintf(m->version, sizeof m->version, "%s", pg_valgrind_version(vm(m)->vg));
    return rc;
}

static void meter_close(pg_meter *m)
{
    pg_valgrind_free(vm(m)->vg);
    pg_valgrind_argv_free(vm(m)->wrapped);
    pg_owned_release(&vm(m)->outdir, 1);
}

static int target(pg_meter *m, const pg_meter_target *t)
{
    (void)t;
    vm(m)->others[0] = '\0';
    return 0;       /* call counts come from callgrind: nothing to resolve */
}

/* The cache simulation only when cache-misses is wanted, the branch
 * simulation only when branch-misses is: instructions alone take about
 * half the time. */
static void select_metrics(pg_meter *m, pg_metric_set metrics)
{
    vm(m)->sims = (pg_metric_set_has(metrics, "cache-misses") ? PG_VALGRIND_CACHE_SIM : 0) |
                  (pg_metric_set_has(metrics, "branch-misses") ? PG_VALGRIND_BRANCH_SIM : 0);
}

static const char *others(const pg_meter *m)
{
    const vg_meter *v = (const vg_meter *)m;
    return v->others[0] ? v->others : NULL;
}

/* Callgrind for a Google Benchmark suite (its timed region), for a marked
 * program's regions or for call counts; cachegrind otherwise. */
static int wrap(pg_meter *m, char ***out, char *const *argv, int gbench)
{
    pg_valgrind_argv_free(vm(m)->wrapped);
    vm(m)->wrapped = NULL;
    const char *dir = vm(m)->outdir.path;
    int rc = gbench ? pg_gbench_wrap_callgrind(vm(m)->vg, &vm(m)->wrapped, argv, dir)
           : m->regions || m->ncalls ? pg_callgrind_wrap_count(vm(m)->vg, &vm(m)->wrapped, argv, dir, m->regions != 0)
           : pg_valgrind_wrap(vm(m)->vg, &vm(m)->wrapped, argv, dir, vm(m)->sims);
    *out = vm(m)->wrapped;
    return rc;
}

static int attach(pg_meter *m, pid_t pid)
{
    (void)m;
    (void)pid;
    return 0;       /* valgrind counts from inside the child */
}

/* The callgrind mode: the usual metrics and the calls. */
static int collect_callgrind(pg_meter *m, pg_readings *out)
{
    unsigned long long t[13] = {0};
    unsigned long long *calls = calloc(m->ncalls + 1, sizeof *calls);
    if (!calls)
        return pg_error_set(PG_ENOMEM, "out of memory");
    unsigned present = 0;
    int rc = pg_callgrind_collect_counts(t, &present, calls, (const char *const *)m->calls, m->ncalls, vm(m)->outdir.path);
    if (rc == 0)
        rc = pg_valgrind_readings(out, t, present);
    for (size_t i = 0; i < m->ncalls && rc == 0; i++) {
        char calls_name[96];
        snprintf(calls_name, sizeof calls_name, "calls:%s", m->calls[i]);
        rc = pg_readings_add(out, calls_name, "count", name, (double)calls[i], 1.0);
    }
    free(calls);
    return rc;
}

/* Before a collect reads (and removes) the run's output files: whether a
 * process of it ran another program (pg_meter_others), the first kept. */
static int note_others(pg_meter *m, const char *prefix)
{
    if (vm(m)->others[0] || !vm(m)->wrapped)
        return 0;
    int rc = pg_valgrind_others(vm(m)->others, sizeof vm(m)->others, vm(m)->outdir.path, prefix, vm(m)->wrapped);
    return rc < 0 ? rc : 0;
}

static int collect(pg_meter *m, pg_readings *out)
{
    int rc = note_others(m, m->regions || m->ncalls ? "callgrind.out." : "cachegrind.out.");
    if (rc < 0)
        return rc;
    return m->regions || m->ncalls ? collect_callgrind(m, out) : pg_valgrind_collect(vm(m)->vg, out, vm(m)->outdir.path);
}

/* The suite ran under callgrind: instructions per iteration of the timed
 * region, from its dumps and the iterations its report gives. */
static int collect_gbench(pg_meter *m, pg_readings *out, const char *report, size_t len)
{
    pg_gbench_segments seg;
    int rc = note_others(m, "callgrind.out.");
    if (rc == 0)
        rc = pg_gbench_collect_callgrind(&seg, vm(m)->outdir.path);
    if (rc < 0)
        return rc;
    pg_gbench_report rep = {0};
    double per = 0;
    if ((rc = pg_gbench_parse_json(&rep, NULL, name, report, len)) == 0)
        rc = pg_gbench_per_iteration(&per, &seg, &rep);
    pg_gbench_segments_free(&seg);
    free(rep.error);
    if (rc == 0)
        rc = pg_readings_add(out, "instructions", "count", name, per, 1.0);
    if (rc == 0)
        rc = pg_readings_add(out, "iterations", "count", name, rep.iterations, 1.0);
    return rc;
}

static const char *geometry(const pg_meter *m) { return pg_valgrind_geometry(((const vg_meter *)m)->vg); }

static int rec_open(pg_stackrec *r)
{
    pg_owned_init(&vr(r)->tmp);
    int rc = pg_valgrind_new(&vr(r)->vg);
    return rc < 0 ? rc : pg_outdir_make(&vr(r)->tmp, PG_OUTDIR_STACKS);
}

static void rec_close(pg_stackrec *r)
{
    pg_owned_release(&vr(r)->tmp, 1);
    pg_valgrind_free(vr(r)->vg);
}

static int rec_begin(pg_stackrec *r, char ***argv_out, char *const *argv, int cpu)
{
    (void)cpu;      /* valgrind runs where the spawner pinned it */
    int rc = r->timed ? pg_gbench_wrap_stacks(vr(r)->vg, &vr(r)->argv, argv, vr(r)->tmp.path)
                      : pg_callgrind_wrap(vr(r)->vg, &vr(r)->argv, argv, vr(r)->tmp.path);
    *argv_out = vr(r)->argv;
    return rc;
}

/* Whatever callgrind left is read out of the directory (and removed), so the
 * next run's stacks are that run's alone; a run that did not happen has
 * none to keep. A timed run's dumps are chosen by its report: rec_collect_timed. */
static void rec_reset(pg_stackrec *r)
{
    pg_valgrind_argv_free(vr(r)->argv);
    vr(r)->argv = NULL;
}

static int rec_end(pg_stackrec *r, int ran, pg_stackrec_stats *stats)
{
    (void)stats;
    if (ran)
        return r->timed ? 0 : pg_callgrind_collect(r->out, vr(r)->tmp.path);
    pg_folded *scratch = NULL;
    if (pg_folded_new(&scratch) == 0) {
        pg_callgrind_collect(scratch, vr(r)->tmp.path);
        pg_error_clear();
    }
    pg_folded_free(scratch);
    return 0;
}

static int rec_collect_timed(pg_stackrec *r, pg_folded *out, double *iterations, const char *report, size_t len)
{
    return r->timed ? pg_gbench_collect_stacks(out, iterations, vr(r)->tmp.path, report, len) : 0;
}

static void probe(pg_probe *p, pg_backend_fit *out)
{
    (void)p;
    pg_valgrind *vg = NULL;
    if (pg_valgrind_new(&vg) == 0) {
        out->fit = PG_FIT_FULL;
        out->why[0] = '\0';
        snprintf(out->version, sizeof out->version, "%s", pg_valgrind_version(vg));
        pg_valgrind_free(vg);
    } else {
        out->fit = PG_FIT_NONE;
        snprintf(out->why, sizeof out->why, "%s", pg_error_last());
    }
}

static void doctor(const pg_probe *p, pg_doctor_line *line, void *ctx)
{
    const pg_backend_fit *f = &p->fit[PG_BACKEND_VALGRIND];
    line(ctx, "--backend valgrind", f->fit == PG_FIT_FULL, f->why);
}

static void doctor_tools(const pg_probe *p, pg_doctor_line *line, void *ctx)
{
    const pg_backend_fit *f = &p->fit[PG_BACKEND_VALGRIND];
    char head[128];
    snprintf(head, sizeof head, "valgrind (%s)", pg_backend_valgrind_ops.props.gives);
    line(ctx, head, -1, "");
    line(ctx, "valgrind", f->fit == PG_FIT_FULL, f->fit == PG_FIT_FULL ? f->version : f->why);
    if (f->fit == PG_FIT_FULL)
        line(ctx, "callgrind (markers, --count-calls)", 1, "(regions and call counts with the valgrind backend)");
}

static const char *choice_note(const pg_probe *p)
{
    (void)p;
    return " (no hardware counters; exact counts from valgrind)";
}

const pg_backend_ops pg_backend_valgrind_ops = {
    .props = {.name = "valgrind", .kind = PG_BACKEND_VALGRIND, .exact = 1, .simulated = 1, .native_time = 1,
              .stacks_unit = "instructions", .stacks_metric = "instructions", .repeat = 1, .warmup = 0, .events = pg_valgrind_events,
              .env_keep = env_keep,
              .chosen_why = "no hardware counters here, using the valgrind backend ('perfgate doctor' says why)",
              .gives = "exact instruction counts, simulated caches"},
    .priority = 10,     /* exact counts where no PMU counts: slower, simulated caches */
    .probe = probe,
    .meter_size = sizeof(vg_meter),
    .rec_size = sizeof(vg_rec),
    .meter_open = meter_open,
    .meter_close = meter_close,
    .target = target,
    .wrap = wrap,
    .attach = attach,
    .collect = collect,
    .collect_gbench = collect_gbench,
    .geometry = geometry,
    .select = select_metrics,
    .others = others,
    .rec_open = rec_open,
    .rec_close = rec_close,
    .rec_begin = rec_begin,
    .rec_reset = rec_reset,
    .rec_end = rec_end,
    .rec_collect_timed = rec_collect_timed,
    .stacks_note = PG_CALLGRIND_NOTE,
    .doctor = doctor,
    .doctor_tools = doctor_tools,
    .choice_note = choice_note,
};
