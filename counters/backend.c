/* counters/backend.c — the registry of backends, the choice among them, and
 * pg_meter, the thin dispatcher to the chosen backend's table (backend_ops.h)
 * that keeps what every backend shares: a benchmark's target (its regions
 * and called functions) and the wall-time and max-rss every run ends with. */
#include "counters/backend.h"
#include "counters/backend_ops.h"
#include "counters/elfsym.h"
#include "util/error.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0       /* built without valgrind's header: not known, taken as not */
#endif

/* The registry: every backend's table (backend_ops.h). */
static const pg_backend_ops *const backends[] = {&pg_backend_perf_ops, &pg_backend_valgrind_ops, &pg_backend_dhat_ops};
#define NBACKENDS (sizeof backends / sizeof *backends)

const pg_backend_ops *pg_backend_ops_of(pg_backend_kind k)
{
    for (size_t i = 0; i < NBACKENDS; i++)
        if (backends[i]->props.kind == k)
            return backends[i];
    return NULL;
}

const char *pg_backend_name(pg_backend_kind k)
{
    const pg_backend_ops *b = pg_backend_ops_of(k);
    return b ? b->props.name : "auto";
}

int pg_backend_parse(pg_backend_kind *out, const char *s)
{
    const pg_backend_props *b = pg_backend_props_named(s);
    if (b || !strcmp(s, "auto")) {
        *out = b ? b->kind : PG_BACKEND_AUTO;
        return 0;
    }
    char names[256];
    pg_backend_expand(names, sizeof names, "auto, {names}");
    return pg_error_set(PG_EINVAL, "unknown backend '%s' (expected %s)", s, names);
}

/* ---- the registry's words, for help texts ---- */

static int any(const pg_backend_ops *b) { return b != NULL; }
static int exact(const pg_backend_ops *b) { return b->props.exact; }
static int native(const pg_backend_ops *b) { return b->props.native; }
static int native_time(const pg_backend_ops *b) { return b->props.native_time; }
static int takes_events(const pg_backend_ops *b) { return b->props.takes_events; }
static int selects(const pg_backend_ops *b) { return b->select != NULL; }

/* Each {key}: the backends it lists, and what comes before them. */
static const struct word {
    const char *key;
    int (*pick)(const pg_backend_ops *b);
    const char *first;
} words[] = {
    {"{backends}", any, "auto (default), "},
    {"{names}", any, ""},
    {"{exact}", exact, ""},
    {"{native}", native, ""},
    {"{native-time}", native_time, ""},
    {"{takes-events}", takes_events, ""},
    {"{selects}", selects, ""},     /* its meter leaves out work for metrics not chosen */
    {"{repeat}", any, ""},      /* "5 perf, 1 valgrind": each one's default */
    {"{warmup}", any, ""},
};

/* "perf or valgrind" (pick), "5 perf, 1 valgrind" ({repeat}, {warmup}) into out. */
static size_t list_words(char *out, size_t len, const struct word *w)
{
    size_t n = 0, total = 0, used;
    for (size_t i = 0; i < NBACKENDS; i++)
        total += w->pick(backends[i]) != 0;
    used = (size_t)snprintf(out, len, "%s", w->first);
    int repeat = !strcmp(w->key, "{repeat}"), warmup = !strcmp(w->key, "{warmup}");
    for (size_t i = 0; i < NBACKENDS && used < len; i++) {
        const pg_backend_props *b = &backends[i]->props;
        if (!w->pick(backends[i]))
            continue;
        const char *sep = n == 0 ? "" : repeat || warmup || n + 1 < total ? ", " : " or ";
        if (repeat || warmup)
            used += (size_t)snprintf(out + used, len - used, "%s%d %s", sep, repeat ? b->repeat : b->warmup, b->name);
        else
            used += (size_t)snprintf(out + used, len - used, "%s%s", sep, b->name);
        n++;
    }
    return used < len ? used : len - 1;
}

const char *pg_backend_expand(char *buf, size_t len, const char *text)
{
    size_t used = 0;
    buf[0] = '\0';
    while (*text && used + 1 < len) {
        const struct word *w = NULL;
        for (size_t i = 0; *text == '{' && i < sizeof words / sizeof *words; i++)
            if (!strncmp(text, words[i].key, strlen(words[i].key)))
                w = &words[i];
        if (w) {
            used += list_words(buf + used, len - used, w);
            text += strlen(w->key);
        } else {
            buf[used++] = *text++;
            buf[used] = '\0';
        }
    }
    return buf;
}

const pg_backend_props *pg_backend_props_of(pg_backend_kind k)
{
    const pg_backend_ops *b = pg_backend_ops_of(k);
    return b ? &b->props : NULL;
}

const pg_backend_props *pg_backend_props_named(const char *name)
{
    for (size_t i = 0; name && i < NBACKENDS; i++)
        if (!strcmp(backends[i]->props.name, name))
            return &backends[i]->props;
    return NULL;
}

void pg_backend_probe(pg_probe *p, pg_backend_kind requested)
{
    pg_probe_init(p);
    for (size_t i = 0; i < NBACKENDS; i++)
        if (requested == PG_BACKEND_AUTO ? backends[i]->priority > 0 : backends[i]->props.kind == requested)
            backends[i]->probe(p, &p->fit[backends[i]->props.kind]);
}

static const char *all_events[64];
static pthread_once_t events_once = PTHREAD_ONCE_INIT;

static void gather_events(void)
{
    size_t n = 0;
    for (size_t i = 0; i < NBACKENDS; i++)
        for (const char *const *e = backends[i]->props.events; e && *e && n + 1 < sizeof all_events / sizeof *all_events; e++)
            all_events[n++] = *e;
}

const char *const *pg_backend_events(void)
{
    pthread_once(&events_once, gather_events);
    return all_events;
}

const char *pg_backend_env_keep(size_t i)
{
    for (size_t b = 0; b < NBACKENDS; b++)
        for (const char *const *e = backends[b]->props.env_keep; e && *e; e++)
            if (i-- == 0)
                return *e;
    return NULL;
}

pg_backend_kind pg_backend_native(void)
{
    for (size_t i = 0; i < NBACKENDS; i++)
        if (backends[i]->props.native)
            return backends[i]->props.kind;
    return PG_BACKEND_AUTO;     /* unreachable while the registry holds a native backend */
}

pg_backend_kind pg_backend_giving(const char *metric)
{
    for (size_t i = 0; i < NBACKENDS; i++)
        for (const char *const *m = backends[i]->props.metrics; m && *m; m++)
            if (!strcmp(*m, metric))
                return backends[i]->props.kind;
    return PG_BACKEND_AUTO;
}

void pg_backend_doctor_tools(const pg_probe *p, pg_doctor_line *line, void *ctx)
{
    for (size_t i = 0; i < NBACKENDS; i++)
        backends[i]->doctor_tools(p, line, ctx);
}

void pg_backend_doctor(const pg_probe *p, pg_doctor_line *line, void *ctx)
{
    for (size_t i = 0; i < NBACKENDS; i++)
        backends[i]->doctor(p, line, ctx);
}

const char *pg_backend_choice_note(pg_backend_kind k, const pg_probe *p)
{
    const pg_backend_ops *b = pg_backend_ops_of(k);
    return b ? b->choice_note(p) : "";
}

/* The registry in --backend auto's order: falling priority, those auto
 * never chooses left out. */
static size_t auto_order(const pg_backend_ops **out)
{
    size_t n = 0;
    for (size_t i = 0; i < NBACKENDS; i++) {
        if (backends[i]->priority <= 0)
            continue;
        size_t at = n++;
        for (; at > 0 && out[at - 1]->priority < backends[i]->priority; at--)
            out[at] = out[at - 1];
        out[at] = backends[i];
    }
    return n;
}

static const pg_backend_fit *fit_of(const pg_probe *p, const pg_backend_ops *b) { return &p->fit[b->props.kind]; }

int pg_backend_choose(pg_backend_kind *out, char *notice, size_t len,
                      pg_backend_kind requested, const pg_probe *p)
{
    notice[0] = '\0';
    const pg_backend_ops *b = pg_backend_ops_of(requested);
    if (b) {
        const pg_backend_fit *f = fit_of(p, b);
        if (f->fit == PG_FIT_NONE)
            return pg_error_set(PG_ENOTSUP, "the %s backend cannot work here: %s", b->props.name, f->why);
        if (f->fit == PG_FIT_PART)
            snprintf(notice, len, "the %s backend works in part here: %s; %s", b->props.name, f->why, f->part);
        *out = requested;
        return 0;
    }
    const pg_backend_ops *order[NBACKENDS];
    size_t n = auto_order(order);
    /* The first that works fully, else the first that works in part; the
     * notice says why the ones before it were passed over (in part: why
     * every one falls short, its own first), then what is measured. */
    for (int want = PG_FIT_FULL; want >= PG_FIT_PART; want--) {
        for (size_t i = 0; i < n; i++) {
            const pg_backend_fit *f = fit_of(p, order[i]);
            if (f->fit != want)
                continue;
            size_t used = 0;
            if (want == PG_FIT_PART)
                used = (size_t)snprintf(notice, len, "%s", f->why);
            for (size_t j = 0; j < n && used < len; j++)
                if (j != i && (j < i || want == PG_FIT_PART))
                    used += (size_t)snprintf(notice + used, len - used, "%s%s", used ? " and " : "",
                                             fit_of(p, order[j])->why);
            if (used && used < len && want == PG_FIT_PART)
                snprintf(notice + used, len - used, "; %s", f->part);
            else if (used && used < len)
                snprintf(notice + used, len - used, "; using the %s backend (%s)", order[i]->props.name,
                         order[i]->props.gives);
            *out = order[i]->props.kind;
            return 0;
        }
    }
    char why[1024] = "";
    for (size_t i = 0, used = 0; i < n && used < sizeof why; i++)
        used += (size_t)snprintf(why + used, sizeof why - used, "%s%s", used ? "; " : "", fit_of(p, order[i])->why);
    return pg_error_set(PG_ENOTSUP, "nothing can be measured here: %s", why);
}


static void free_names(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

int pg_meter_new(pg_meter **out, const pg_meter_opts *o)
{
    const pg_backend_ops *ops = pg_backend_ops_of(o->backend);
    if (!ops)
        return pg_error_set(PG_EINVAL, "no backend chosen");
    pg_meter *m = calloc(1, ops->meter_size > sizeof *m ? ops->meter_size : sizeof *m);
    if (!m)
        return pg_error_set(PG_ENOMEM, "out of memory");
    m->ops = ops;
    pg_control_init(&m->ctl);
    int rc = ops->meter_open(m, o);
    if (rc < 0) {
        pg_meter_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

void pg_meter_free(pg_meter *m)
{
    if (!m)
        return;
    m->ops->meter_close(m);
    free_names(m->calls);
    pg_control_close(&m->ctl);
    free(m);
}

pg_backend_kind pg_meter_backend(const pg_meter *m) { return m->ops->props.kind; }

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
        free_names(v);
        return rc;
    }
    *out = v;
    return 0;
}

/* Whether `exe` counts only its regions: the marker note, unless told. A
 * simulating backend sees regions only through valgrind's client requests,
 * which the note says the program was built with. */
static int target_regions(pg_meter *m, const pg_meter_target *t)
{
    unsigned flags = 0;
    m->marked = t->exe && pg_elfsym_markers(t->exe, &flags) > 0;
    int marked = t->regions < 0 ? m->marked : t->regions;
    if (marked && !m->marked)
        flags = PG_MARKER_NOTE_VALGRIND;     /* told so, with no note to say otherwise */
    if (marked && m->ops->props.simulated && !(flags & PG_MARKER_NOTE_VALGRIND))
        return pg_error_set(PG_ENOTSUP, "%s uses perfgate's region markers but was built without valgrind's "
                                        "<valgrind/callgrind.h>, so the valgrind backend cannot see its regions; "
                                        "fix: install valgrind's headers (Debian: valgrind) and rebuild it",
                            t->exe);
    return marked != 0;
}

int pg_meter_set_target(pg_meter *m, const pg_meter_target *t)
{
    free_names(m->calls);
    m->calls = NULL;
    m->ncalls = 0;
    m->regions = 0;
    int rc = target_regions(m, t);
    if (rc >= 0) {
        m->regions = rc;
        rc = split_calls(&m->calls, &m->ncalls, t->calls);
    }
    if (rc < 0) {
        m->regions = 0;
        m->ops->target(m, t);   /* with no regions and no calls: the last target's undone */
        return rc;
    }
    return m->ops->target(m, t);
}

int pg_meter_marked(const pg_meter *m) { return m->marked; }

int pg_meter_wrap_argv(pg_meter *m, char ***out, char *const *argv) { return m->ops->wrap(m, out, argv, 0); }
int pg_meter_wrap_gbench(pg_meter *m, char ***out, char *const *argv) { return m->ops->wrap(m, out, argv, 1); }

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
    if (m->ops->select)
        m->ops->select(m, metrics);
}

int pg_meter_attach(pg_meter *m, pid_t pid) { return m->ops->attach(m, pid); }

size_t pg_meter_pollfds(pg_meter *m, int *fds, size_t max)
{
    if (pg_control_fd(&m->ctl) < 0 || max == 0)
        return 0;
    fds[0] = pg_control_fd(&m->ctl);
    return 1;
}

/* A region command from the child: the counters switched, and acked all the
 * same when that fails (the child must not hang; the run's counts are void). */
static int apply_control(void *ctx, int on)
{
    pg_meter *m = ctx;
    int rc = m->ops->enable ? m->ops->enable(m, on) : 0;
    if (rc < 0 && !m->ctl_failed) {
        m->ctl_failed = 1;
        snprintf(m->ctl_err, sizeof m->ctl_err, "%s", pg_error_last());
    }
    return 0;
}

int pg_meter_readable(pg_meter *m) { return pg_control_serve(&m->ctl, apply_control, m); }

/* Every run ends with its wall time and peak memory, from the spawner. */
static int add_spawner_readings(const pg_meter *m, pg_readings *out, double wall_ns, double max_rss)
{
    const char *b = m->ops->props.name;
    int rc = pg_readings_add(out, "wall-time", "ns", b, wall_ns, 1.0);
    return rc < 0 ? rc : pg_readings_add(out, "max-rss", "bytes", b, max_rss, 1.0);
}

int pg_meter_collect(pg_meter *m, pg_readings *out, double wall_ns, double max_rss)
{
    int rc = m->ops->collect(m, out);
    return rc < 0 ? rc : add_spawner_readings(m, out, wall_ns, max_rss);
}

int pg_meter_collect_gbench(pg_meter *m, pg_readings *out, const char *report, size_t len, double wall_ns,
                            double max_rss)
{
    int rc = m->ops->collect_gbench(m, out, report, len);
    return rc < 0 ? rc : add_spawner_readings(m, out, wall_ns, max_rss);
}

const char *pg_meter_others(const pg_meter *m) { return m->ops->others ? m->ops->others(m) : NULL; }
const char *pg_meter_version(const pg_meter *m) { return m->version; }
const char *pg_meter_geometry(const pg_meter *m) { return m->ops->geometry(m); }

const char *pg_meter_unavailable(const pg_meter *m, size_t i)
{
    return m->ops->unavailable ? m->ops->unavailable(m, i) : NULL;
}

int pg_backend_hosted(void) { return RUNNING_ON_VALGRIND ? 1 : 0; }
