/* counters/backend.c — backend choice and the pg_meter that unifies them. */
#include "counters/backend.h"
#include "counters/callgrind.h"
#include "counters/control.h"
#include "counters/elfsym.h"
#include "counters/evlist.h"
#include "counters/gbench.h"
#include "counters/valgrind.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/owned_dir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

const char *pg_backend_name(pg_backend_kind k)
{
    switch (k) {
    case PG_BACKEND_PERF: return "perf";
    case PG_BACKEND_VALGRIND: return "valgrind";
    default: return "auto";
    }
}

int pg_backend_parse(pg_backend_kind *out, const char *s)
{
    if (!strcmp(s, "auto"))
        *out = PG_BACKEND_AUTO;
    else if (!strcmp(s, "perf"))
        *out = PG_BACKEND_PERF;
    else if (!strcmp(s, "valgrind"))
        *out = PG_BACKEND_VALGRIND;
    else
        return pg_error_set(PG_EINVAL, "unknown backend '%s' (expected auto, perf or valgrind)", s);
    return 0;
}

static const pg_backend_props props[] = {
    {.name = "perf", .kind = PG_BACKEND_PERF, .takes_events = 1, .max_rss = 1, .stacks_unit = "samples",
     .repeat = 5, .warmup = 1, .probe = PG_PROBE_PERF},
    {.name = "valgrind", .kind = PG_BACKEND_VALGRIND, .exact = 1, .simulated = 1, .native_time = 1,
     .stacks_unit = "instructions", .repeat = 1, .warmup = 0,
     .chosen_why = "no hardware counters here, using the valgrind backend ('perfgate doctor' says why)",
     .probe = PG_PROBE_VALGRIND},
};

const pg_backend_props *pg_backend_props_of(pg_backend_kind k)
{
    for (size_t i = 0; i < sizeof props / sizeof *props; i++)
        if (props[i].kind == k)
            return &props[i];
    return NULL;
}

const pg_backend_props *pg_backend_props_named(const char *name)
{
    for (size_t i = 0; name && i < sizeof props / sizeof *props; i++)
        if (!strcmp(props[i].name, name))
            return &props[i];
    return NULL;
}

int pg_backend_probe_what(pg_backend_kind requested)
{
    const pg_backend_props *b = pg_backend_props_of(requested);
    return b ? b->probe : PG_PROBE_ALL;
}

pg_backend_kind pg_backend_native(void) { return PG_BACKEND_PERF; }

void pg_backend_doctor_tools(const pg_probe *p, pg_doctor_line *line, void *ctx)
{
    line(ctx, "valgrind (exact instruction counts, simulated caches)", -1, "");
    line(ctx, "valgrind", p->valgrind, p->valgrind ? p->valgrind_version : p->valgrind_why);
    if (p->valgrind)
        line(ctx, "callgrind (markers, --count-calls)", 1, "(regions and call counts with the valgrind backend)");
}

void pg_backend_doctor(const pg_probe *p, pg_doctor_line *line, void *ctx)
{
    line(ctx, "--backend perf", p->hw_instructions || p->software,
         p->hw_instructions ? "hardware and software events"
         : p->software ? "software events only (no hardware counters)" : p->sw_why);
    line(ctx, "--backend valgrind", p->valgrind, p->valgrind ? "" : p->valgrind_why);
}

const char *pg_backend_choice_note(pg_backend_kind k, const pg_probe *p)
{
    if (k == PG_BACKEND_VALGRIND)
        return " (no hardware counters; exact counts from valgrind)";
    return p->hw_instructions ? " (hardware counters)" : " (software events only)";
}

int pg_backend_choose(pg_backend_kind *out, char *notice, size_t len,
                      pg_backend_kind requested, const pg_probe *p)
{
    notice[0] = '\0';
    switch (requested) {
    case PG_BACKEND_VALGRIND:
        if (!p->valgrind)
            return pg_error_set(PG_ENOTSUP, "the valgrind backend cannot work here: %s", p->valgrind_why);
        *out = PG_BACKEND_VALGRIND;
        return 0;
    case PG_BACKEND_PERF:
        if (!p->software && !p->hw_instructions)
            return pg_error_set(PG_ENOTSUP, "the perf backend cannot work here: %s", p->sw_why);
        if (!p->hw_instructions)
            snprintf(notice, len, "perf backend without hardware counters (%s); counting software events only",
                     p->hw_why);
        *out = PG_BACKEND_PERF;
        return 0;
    default:
        if (p->hw_instructions) {
            *out = PG_BACKEND_PERF;
        } else if (p->valgrind) {
            *out = PG_BACKEND_VALGRIND;
            snprintf(notice, len, "hardware counters unavailable (%s); using the valgrind backend "
                     "(exact instruction counts, simulated caches)", p->hw_why);
        } else if (p->software) {
            *out = PG_BACKEND_PERF;
            snprintf(notice, len, "hardware counters unavailable (%s) and valgrind not found (%s); "
                     "counting software events only", p->hw_why, p->valgrind_why);
        } else {
            return pg_error_set(PG_ENOTSUP, "nothing can be measured here: %s; %s", p->sw_why, p->valgrind_why);
        }
        return 0;
    }
}

struct pg_meter {
    pg_backend_kind kind;
    pg_evlist *evlist;
    pg_valgrind *vg;
    pg_owned_dir outdir;        /* valgrind: cachegrind's output, swept if perfgate is killed */
    char **wrapped;
    unsigned sims;              /* valgrind: PG_VALGRIND_*_SIM of the next runs */
    /* the current benchmark's target */
    int regions;
    int marked;                 /* the program carries the marker note */
    char **calls;               /* function names, NULL-terminated */
    size_t ncalls;
    pg_control ctl;             /* perf with regions: the channel of the current run */
    int ctl_failed;             /* an enable/disable failed: the run's counts are void */
    char ctl_err[512];
    char version[96];
    char unav[8][640];
    size_t nunav;
};

int pg_meter_new(pg_meter **out, const pg_meter_opts *o)
{
    pg_meter *m = calloc(1, sizeof *m);
    if (!m)
        return pg_error_set(PG_ENOMEM, "out of memory");
    m->kind = o->backend;
    m->sims = PG_VALGRIND_CACHE_SIM | PG_VALGRIND_BRANCH_SIM;
    pg_owned_init(&m->outdir);
    pg_control_init(&m->ctl);
    int rc;
    if (m->kind == PG_BACKEND_VALGRIND) {
        if ((rc = pg_valgrind_new(&m->vg)) < 0)
            goto fail;
        if ((rc = pg_owned_mkdtemp(&m->outdir, "perfgate-vg-")) < 0)
            goto fail;
        snprintf(m->version, sizeof m->version, "%s", pg_valgrind_version(m->vg));
    } else {
        if ((rc = pg_evlist_new(&m->evlist, o->events, o->user_only)) < 0)
            goto fail;
        struct utsname u;
        uname(&u);
        snprintf(m->version, sizeof m->version, "perf_event (linux %s)", u.release);
    }
    *out = m;
    return 0;
fail:
    pg_meter_free(m);
    return rc;
}

void pg_meter_free(pg_meter *m)
{
    if (!m)
        return;
    if (m->evlist)
        pg_evlist_free(m->evlist);
    if (m->vg)
        pg_valgrind_free(m->vg);
    if (m->wrapped)
        pg_valgrind_argv_free(m->wrapped);
    pg_valgrind_argv_free(m->calls);
    pg_control_close(&m->ctl);
    pg_owned_release(&m->outdir, 1);
    free(m);
}

pg_backend_kind pg_meter_backend(const pg_meter *m) { return m->kind; }

typedef int wrap_fn(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir, unsigned sims);

static int wrap_with(pg_meter *m, char ***out, char *const *argv, wrap_fn *wrap)
{
    if (m->kind != PG_BACKEND_VALGRIND) {
        *out = (char **)argv;
        m->ctl_failed = 0;
        return m->regions ? pg_control_open(&m->ctl) : 0;
    }
    if (m->wrapped) {
        pg_valgrind_argv_free(m->wrapped);
        m->wrapped = NULL;
    }
    int rc = wrap(m->vg, &m->wrapped, argv, m->outdir.path, m->sims);
    if (rc < 0)
        return rc;
    *out = m->wrapped;
    return 0;
}

/* "malloc, free" into a NULL-terminated vector of names. */
static int split_calls(char ***out, size_t *n, const char *list)
{
    *out = NULL;
    *n = 0;
    if (!list || !*list)
        return 0;
    char **v = calloc(strlen(list) / 2 + 2, sizeof *v);
    char *copy = strdup(list);
    int rc = v && copy ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    char *save = NULL;
    for (char *tok = rc ? NULL : strtok_r(copy, ", ", &save); tok && rc == 0; tok = strtok_r(NULL, ", ", &save)) {
        int dup = 0;
        for (size_t i = 0; i < *n; i++)
            dup |= !strcmp(v[i], tok);
        if (!dup && !(v[(*n)++] = strdup(tok)))
            rc = pg_error_set(PG_ENOMEM, "out of memory");
    }
    free(copy);
    if (rc < 0) {
        pg_valgrind_argv_free(v);
        return rc;
    }
    *out = v;
    return 0;
}

/* Whether `exe` counts only its regions: the marker note, unless told. */
static int target_regions(pg_meter *m, const pg_meter_target *t)
{
    unsigned flags = 0;
    m->marked = t->exe && pg_elfsym_markers(t->exe, &flags) > 0;
    int marked = t->regions < 0 ? m->marked : t->regions;
    if (marked && !m->marked)
        flags = PG_MARKER_NOTE_VALGRIND;     /* told so, with no note to say otherwise */
    if (marked && m->kind == PG_BACKEND_VALGRIND && !(flags & PG_MARKER_NOTE_VALGRIND))
        return pg_error_set(PG_ENOTSUP, "%s uses perfgate's region markers but was built without valgrind's "
                                        "<valgrind/callgrind.h>, so the valgrind backend cannot see its regions; "
                                        "fix: install valgrind's headers (Debian: valgrind) and rebuild it",
                            t->exe);
    return marked;
}

int pg_meter_set_target(pg_meter *m, const pg_meter_target *t)
{
    pg_valgrind_argv_free(m->calls);
    m->calls = NULL;
    m->ncalls = 0;
    m->regions = 0;
    if (m->evlist) {
        pg_evlist_set_regions(m->evlist, 0);
        pg_evlist_set_probes(m->evlist, NULL, 0);
    }
    int rc = target_regions(m, t);
    if (rc < 0)
        return rc;
    m->regions = rc;
    if ((rc = split_calls(&m->calls, &m->ncalls, t->calls)) < 0)
        return rc;
    if (m->kind == PG_BACKEND_VALGRIND)
        return 0;
    pg_evlist_set_regions(m->evlist, m->regions);
    if (m->ncalls == 0)
        return 0;
    pg_evlist_probe *p = calloc(m->ncalls, sizeof *p);
    char (*files)[PATH_MAX] = calloc(m->ncalls, PATH_MAX);
    rc = p && files ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < m->ncalls && rc == 0; i++) {
        p[i].name = m->calls[i];
        p[i].file = files[i];
        rc = pg_elfsym_resolve(files[i], &p[i].offset, t->exe, m->calls[i], t->ld_library_path);
    }
    if (rc == 0)
        rc = pg_evlist_set_probes(m->evlist, p, m->ncalls);
    free(p);
    free(files);
    return rc;
}

int pg_meter_regions(const pg_meter *m) { return m->regions; }
int pg_meter_marked(const pg_meter *m) { return m->marked; }

/* Callgrind for a marked program's regions, or for call counts. */
static int wrap_regions(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir, unsigned sims)
{
    (void)sims;
    return pg_callgrind_wrap_count(vg, out_argv, argv, outdir, 1);
}

static int wrap_whole_callgrind(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir,
                                unsigned sims)
{
    (void)sims;
    return pg_callgrind_wrap_count(vg, out_argv, argv, outdir, 0);
}

int pg_meter_wrap_argv(pg_meter *m, char ***out, char *const *argv)
{
    return wrap_with(m, out, argv, m->regions ? wrap_regions : m->ncalls ? wrap_whole_callgrind : pg_valgrind_wrap);
}

/* A marked program measured whole must not have its markers act (under
 * callgrind, STOP would end the count), hence PERFGATE_MARKERS=0; other
 * programs' environments are left as they were. */
const char *pg_meter_child_env(const pg_meter *m)
{
    if (!m->regions)
        return m->marked ? PG_METER_MARKERS_OFF : NULL;
    return pg_control_fd(&m->ctl) >= 0 ? m->ctl.env : NULL;
}

size_t pg_meter_child_fds(const pg_meter *m, int *fds, size_t max) { return pg_control_child_fds(&m->ctl, fds, max); }


void pg_meter_select(pg_meter *m, pg_metric_set metrics)
{
    m->sims = (pg_metric_set_has(metrics, "cache-misses") ? PG_VALGRIND_CACHE_SIM : 0) |
              (pg_metric_set_has(metrics, "branch-misses") ? PG_VALGRIND_BRANCH_SIM : 0);
}

int pg_meter_attach(pg_meter *m, pid_t pid)
{
    if (m->kind == PG_BACKEND_VALGRIND)
        return 0;
    pg_control_parent_side(&m->ctl);
    return pg_evlist_open(m->evlist, pid);
}

size_t pg_meter_pollfds(pg_meter *m, int *fds, size_t max)
{
    if (pg_control_fd(&m->ctl) < 0 || max == 0)
        return 0;
    fds[0] = pg_control_fd(&m->ctl);
    return 1;
}

static int apply_control(void *ctx, int on)
{
    pg_meter *m = ctx;
    int rc = pg_evlist_enable(m->evlist, on);
    if (rc < 0 && !m->ctl_failed) {
        m->ctl_failed = 1;
        snprintf(m->ctl_err, sizeof m->ctl_err, "%s", pg_error_last());
    }
    return 0;   /* acked all the same: the child must not hang */
}

int pg_meter_readable(pg_meter *m) { return pg_control_serve(&m->ctl, apply_control, m); }

/* The valgrind backend's callgrind mode: the usual metrics and the calls. */
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
        char name[96];
        snprintf(name, sizeof name, "calls:%s", m->calls[i]);
        rc = pg_readings_add(out, name, "count", "valgrind", (double)calls[i], 1.0);
    }
    free(calls);
    return rc;
}

/* Events that could not be counted, from the open and from the read (a
 * counter never scheduled): those that failed for one reason are said in one
 * line, "instructions, cycles: no PMU ...", not four times the same words. */
static void group_unavailable(pg_meter *m)
{
    m->nunav = 0;
    /* Events that failed for one reason are said in one line: "instructions,
     * cycles: no PMU ...", not four times the same explanation. */
    char whys[8][512];
    size_t n = pg_evlist_unavailable_count(m->evlist);
    for (size_t i = 0; i < n; i++) {
        const char *why = NULL;
        const char *name = pg_evlist_unavailable(m->evlist, i, &why);
        why = why ? why : "cannot be counted";
        size_t k = 0;
        while (k < m->nunav && strcmp(whys[k], why))
            k++;
        if (k == m->nunav) {
            if (m->nunav == 8)
                continue;
            snprintf(whys[k], sizeof whys[k], "%s", why);
            snprintf(m->unav[k], sizeof m->unav[k], "%s", name);
            m->nunav++;
        } else {
            size_t used = strlen(m->unav[k]);
            snprintf(m->unav[k] + used, sizeof m->unav[k] - used, ", %s", name);
        }
    }
    for (size_t k = 0; k < m->nunav; k++) {
        size_t used = strlen(m->unav[k]);
        snprintf(m->unav[k] + used, sizeof m->unav[k] - used, ": %s", whys[k]);
    }
}

int pg_meter_collect(pg_meter *m, pg_readings *out, double wall_ns, double max_rss)
{
    const char *b = pg_backend_name(m->kind);
    int rc;
    if (m->kind == PG_BACKEND_VALGRIND) {
        rc = m->regions || m->ncalls ? collect_callgrind(m, out) : pg_valgrind_collect(m->vg, out, m->outdir.path);
    } else {
        pg_control_close(&m->ctl);
        rc = m->ctl_failed ? pg_error_set(PG_EIO, "%s", m->ctl_err) : pg_evlist_read(m->evlist, out);
        pg_evlist_close(m->evlist);
        group_unavailable(m);
    }
    if (rc < 0)
        return rc;
    if ((rc = pg_readings_add(out, "wall-time", "ns", b, wall_ns, 1.0)) < 0)
        return rc;
    return pg_readings_add(out, "max-rss", "bytes", b, max_rss, 1.0);
}

/* A Google Benchmark suite runs under callgrind, which simulates no cache. */
static int wrap_gbench(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir, unsigned sims)
{
    (void)sims;
    return pg_gbench_wrap_callgrind(vg, out_argv, argv, outdir);
}

int pg_meter_wrap_gbench(pg_meter *m, char ***out, char *const *argv)
{
    return wrap_with(m, out, argv, wrap_gbench);
}

int pg_meter_collect_gbench(pg_meter *m, pg_readings *out, const char *report, size_t len, double wall_ns,
                            double max_rss)
{
    const char *b = pg_backend_name(m->kind);
    pg_gbench_report rep = {0};
    int rc;
    if (m->kind == PG_BACKEND_VALGRIND) {
        pg_gbench_segments seg;
        if ((rc = pg_gbench_collect_callgrind(&seg, m->outdir.path)) < 0)
            return rc;
        double per = 0;
        if ((rc = pg_gbench_parse_json(&rep, NULL, b, report, len)) == 0)
            rc = pg_gbench_per_iteration(&per, &seg, &rep);
        pg_gbench_segments_free(&seg);
        if (rc == 0)
            rc = pg_readings_add(out, "instructions", "count", b, per, 1.0);
        if (rc == 0)
            rc = pg_readings_add(out, "iterations", "count", b, rep.iterations, 1.0);
    } else {
        /* The process's own counters are not the benchmark's: they count the
         * library's timing loop, whose iteration count is chosen by time. */
        pg_readings scratch = {0};
        pg_evlist_read(m->evlist, &scratch);
        pg_evlist_close(m->evlist);
        pg_readings_free(&scratch);
        m->nunav = 0;
        rc = pg_gbench_parse_json(&rep, out, b, report, len);
        if (rc == 0 && rep.error)
            rc = pg_error_set(PG_EINVAL, "the benchmark reported an error: %s", rep.error);
    }
    free(rep.error);
    if (rc < 0)
        return rc;
    if ((rc = pg_readings_add(out, "wall-time", "ns", b, wall_ns, 1.0)) < 0)
        return rc;
    return pg_readings_add(out, "max-rss", "bytes", b, max_rss, 1.0);
}

const char *pg_meter_version(const pg_meter *m) { return m->version; }

const char *pg_meter_geometry(const pg_meter *m)
{
    return m->kind == PG_BACKEND_VALGRIND ? pg_valgrind_geometry(m->vg) : "";
}

const char *pg_meter_unavailable(const pg_meter *m, size_t i)
{
    return i < m->nunav ? m->unav[i] : NULL;
}
