/* counters/backend.c — backend choice and the pg_meter that unifies them. */
#include "counters/backend.h"
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
    pg_owned_init(&m->outdir);
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
    pg_owned_release(&m->outdir, 1);
    free(m);
}

pg_backend_kind pg_meter_backend(const pg_meter *m) { return m->kind; }

typedef int wrap_fn(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir);

static int wrap_with(pg_meter *m, char ***out, char *const *argv, wrap_fn *wrap)
{
    if (m->kind != PG_BACKEND_VALGRIND) {
        *out = (char **)argv;
        return 0;
    }
    if (m->wrapped) {
        pg_valgrind_argv_free(m->wrapped);
        m->wrapped = NULL;
    }
    int rc = wrap(m->vg, &m->wrapped, argv, m->outdir.path);
    if (rc < 0)
        return rc;
    *out = m->wrapped;
    return 0;
}

int pg_meter_wrap_argv(pg_meter *m, char ***out, char *const *argv)
{
    return wrap_with(m, out, argv, pg_valgrind_wrap);
}

int pg_meter_attach(pg_meter *m, pid_t pid)
{
    if (m->kind == PG_BACKEND_VALGRIND)
        return 0;
    return pg_evlist_open(m->evlist, pid);
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
        rc = pg_valgrind_collect(m->vg, out, m->outdir.path);
    } else {
        rc = pg_evlist_read(m->evlist, out);
        pg_evlist_close(m->evlist);
        group_unavailable(m);
    }
    if (rc < 0)
        return rc;
    if ((rc = pg_readings_add(out, "wall-time", "ns", b, wall_ns, 1.0)) < 0)
        return rc;
    return pg_readings_add(out, "max-rss", "bytes", b, max_rss, 1.0);
}

int pg_meter_wrap_gbench(pg_meter *m, char ***out, char *const *argv)
{
    return wrap_with(m, out, argv, pg_gbench_wrap_callgrind);
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
