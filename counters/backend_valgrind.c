/* counters/backend_valgrind.c — the valgrind backend's table (backend_ops.h):
 * cachegrind for a program's counts (with or without its cache and branch
 * simulations), callgrind for a marked program's regions, for call counts
 * and for stacks, and for a Google Benchmark's timed region. */
#include "counters/backend_ops.h"
#include "counters/callgrind.h"
#include "counters/gbench.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const name = "valgrind";

static int meter_open(pg_meter *m, const pg_meter_opts *o)
{
    (void)o;
    int rc = pg_valgrind_new(&m->vg);
    if (rc == 0)
        rc = pg_owned_mkdtemp(&m->outdir, "perfgate-vg-");
    if (rc == 0)
        snprintf(m->version, sizeof m->version, "%s", pg_valgrind_version(m->vg));
    return rc;
}

static void meter_close(pg_meter *m)
{
    pg_valgrind_free(m->vg);
    pg_valgrind_argv_free(m->wrapped);
    pg_owned_release(&m->outdir, 1);
}

static int target(pg_meter *m, const pg_meter_target *t)
{
    (void)m;
    (void)t;
    return 0;       /* call counts come from callgrind: nothing to resolve */
}

/* Callgrind for a Google Benchmark suite (its timed region), for a marked
 * program's regions or for call counts; cachegrind otherwise. */
static int wrap(pg_meter *m, char ***out, char *const *argv, int gbench)
{
    pg_valgrind_argv_free(m->wrapped);
    m->wrapped = NULL;
    const char *dir = m->outdir.path;
    int rc = gbench ? pg_gbench_wrap_callgrind(m->vg, &m->wrapped, argv, dir)
           : m->regions || m->ncalls ? pg_callgrind_wrap_count(m->vg, &m->wrapped, argv, dir, m->regions != 0)
           : pg_valgrind_wrap(m->vg, &m->wrapped, argv, dir, m->sims);
    *out = m->wrapped;
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
    int rc = pg_callgrind_collect_counts(t, &present, calls, (const char *const *)m->calls, m->ncalls, m->outdir.path);
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
    if (m->others[0] || !m->wrapped)
        return 0;
    int rc = pg_valgrind_others(m->others, sizeof m->others, m->outdir.path, prefix, m->wrapped);
    return rc < 0 ? rc : 0;
}

static int collect(pg_meter *m, pg_readings *out)
{
    int rc = note_others(m, m->regions || m->ncalls ? "callgrind.out." : "cachegrind.out.");
    if (rc < 0)
        return rc;
    return m->regions || m->ncalls ? collect_callgrind(m, out) : pg_valgrind_collect(m->vg, out, m->outdir.path);
}

/* The suite ran under callgrind: instructions per iteration of the timed
 * region, from its dumps and the iterations its report gives. */
static int collect_gbench(pg_meter *m, pg_readings *out, const char *report, size_t len)
{
    pg_gbench_segments seg;
    int rc = note_others(m, "callgrind.out.");
    if (rc == 0)
        rc = pg_gbench_collect_callgrind(&seg, m->outdir.path);
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

static const char *geometry(const pg_meter *m) { return pg_valgrind_geometry(m->vg); }

static int rec_open(pg_stackrec *r)
{
    int rc = pg_valgrind_new(&r->vg);
    return rc < 0 ? rc : pg_owned_mkdtemp(&r->tmp, "perfgate-cg-");
}

static void rec_close(pg_stackrec *r)
{
    pg_owned_release(&r->tmp, 1);
    pg_valgrind_free(r->vg);
}

static int rec_begin(pg_stackrec *r, char ***argv_out, char *const *argv, int cpu)
{
    (void)cpu;      /* valgrind runs where the spawner pinned it */
    int rc = r->timed ? pg_gbench_wrap_stacks(r->vg, &r->argv, argv, r->tmp.path)
                      : pg_callgrind_wrap(r->vg, &r->argv, argv, r->tmp.path);
    *argv_out = r->argv;
    return rc;
}

/* Whatever callgrind left is read out of the directory (and removed), so the
 * next run's stacks are that run's alone; a run that did not happen has
 * none to keep. A timed run's dumps are chosen by its report: rec_collect_timed. */
static int rec_attach(pg_stackrec *r, pid_t pid)
{
    (void)r, (void)pid;
    return 0;
}

static size_t rec_pollfds(pg_stackrec *r, int *fds, size_t max)
{
    (void)r, (void)fds, (void)max;
    return 0;
}

static int rec_readable(pg_stackrec *r)
{
    (void)r;
    return 0;
}

static void rec_reset(pg_stackrec *r)
{
    pg_valgrind_argv_free(r->argv);
    r->argv = NULL;
}

static int rec_end(pg_stackrec *r, int ran, pg_stackrec_stats *stats)
{
    (void)stats;
    if (ran)
        return r->timed ? 0 : pg_callgrind_collect(r->out, r->tmp.path);
    pg_folded *scratch = NULL;
    if (pg_folded_new(&scratch) == 0) {
        pg_callgrind_collect(scratch, r->tmp.path);
        pg_error_clear();
    }
    pg_folded_free(scratch);
    return 0;
}

static int rec_collect_timed(pg_stackrec *r, pg_folded *out, double *iterations, const char *report, size_t len)
{
    return r->timed ? pg_gbench_collect_stacks(out, iterations, r->tmp.path, report, len) : 0;
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
              .stacks_unit = "instructions", .repeat = 1, .warmup = 0,
              .chosen_why = "no hardware counters here, using the valgrind backend ('perfgate doctor' says why)",
              .gives = "exact instruction counts, simulated caches"},
    .priority = 10,     /* exact counts where no PMU counts: slower, simulated caches */
    .probe = probe,
    .meter_size = sizeof(pg_meter),
    .rec_size = sizeof(pg_stackrec),
    .meter_open = meter_open,
    .meter_close = meter_close,
    .target = target,
    .wrap = wrap,
    .attach = attach,
    .collect = collect,
    .collect_gbench = collect_gbench,
    .geometry = geometry,
    .rec_open = rec_open,
    .rec_close = rec_close,
    .rec_begin = rec_begin,
    .rec_attach = rec_attach,
    .rec_pollfds = rec_pollfds,
    .rec_readable = rec_readable,
    .rec_reset = rec_reset,
    .rec_end = rec_end,
    .rec_collect_timed = rec_collect_timed,
    .stacks_note = PG_CALLGRIND_NOTE,
    .doctor = doctor,
    .doctor_tools = doctor_tools,
    .choice_note = choice_note,
};
