/* counters/evlist.c — the events counted on one child, opened and read together. */
#include "counters/evlist.h"
#include "counters/uprobe.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Always counted, whatever -e says: they cost nothing and work without a PMU. */

/* A group is scheduled on the PMU all or nothing. Up to this many hardware
 * events form one group (their ratios are then exact); more than a PMU has
 * counters could never be scheduled together, so past it each event is opened
 * alone and the kernel multiplexes them, as `perf stat` does. */
#define GROUP_MAX 4

typedef struct probe {
    pg_evsel ev;
    char *file;
    uint64_t offset;
} probe;

struct pg_evlist {
    pg_evsel *ev;
    size_t n;
    probe *probes;
    size_t nprobes;
    uint32_t uprobe_type;
    int regions;                /* opened disabled, enabled by pg_evlist_enable */
    int user_only;
    struct { char name[96]; char why[512]; } unav[16];
    size_t nunav;
    int keep[16];               /* holders of the software events' static keys (keep_keys) */
    size_t nkeep;
    int kept;                   /* keep_keys ran */
};

static int add_event(pg_evlist *l, const char *name, int user_only)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->ev[i].name, name))
            return 0;   /* given twice, or a software event also asked for by -e */
    pg_evsel *v = realloc(l->ev, (l->n + 1) * sizeof *v);
    if (!v)
        return pg_error_set(PG_ENOMEM, "out of memory");
    l->ev = v;
    int rc = pg_evsel_init(&l->ev[l->n], name, user_only);
    if (rc < 0)
        return rc;
    l->n++;
    return 0;
}

int pg_evlist_new(pg_evlist **out, const char *events, int user_only)
{
    pg_evlist *l = calloc(1, sizeof *l);
    if (!l)
        return pg_error_set(PG_ENOMEM, "out of memory");
    l->user_only = user_only;
    char *list = strdup(events ? events : PG_DEFAULT_EVENTS);
    int rc = list ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    char *save = NULL;
    for (char *tok = list ? strtok_r(list, ",", &save) : NULL; tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        size_t k = strlen(tok);
        while (k && tok[k - 1] == ' ')
            tok[--k] = '\0';
        if (*tok)
            rc = add_event(l, tok, user_only);
    }
    free(list);
    /* The registry's software events (util/metrics.h): one list, wherever it is used. */
    const char *software_events[16];
    size_t nsoft = pg_metric_names(software_events, 16, PG_METRIC_SOFTWARE);
    for (size_t i = 0; i < nsoft && i < 16 && rc == 0; i++)
        rc = add_event(l, software_events[i], user_only);
    if (rc < 0) {
        pg_evlist_free(l);
        return rc;
    }
    *out = l;
    return 0;
}

void pg_evlist_free(pg_evlist *l)
{
    if (!l)
        return;
    pg_evlist_close(l);
    for (size_t i = 0; i < l->nkeep; i++)
        close(l->keep[i]);
    pg_evlist_set_probes(l, NULL, 0);
    free(l->ev);
    free(l);
}

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
    return (int)syscall(SYS_perf_event_open, a, pid, cpu, group_fd, flags);
}

static void note_unavailable(pg_evlist *l, const pg_evsel *e, const char *why)
{
    if (l->nunav >= sizeof l->unav / sizeof *l->unav)
        return;
    snprintf(l->unav[l->nunav].name, sizeof l->unav[0].name, "%s", e->name);
    snprintf(l->unav[l->nunav].why, sizeof l->unav[0].why, "%s", why);
    l->nunav++;
}

/* Opens the events selected by `hw` (hardware or software) on `pid`: as one
 * group when `grouped`, else each alone. The first event that opens leads. */
static void open_class(pg_evlist *l, pid_t pid, int hw, int grouped)
{
    int leader = -1;
    for (size_t i = 0; i < l->n; i++) {
        pg_evsel *e = &l->ev[i];
        if (e->is_hardware != hw)
            continue;
        /* An event the kernel has no PMU for stays so: said again at each
         * open, not asked again (4 failed calls a run on a VM). */
        if (hw && (e->open_errno == ENOENT || e->open_errno == EOPNOTSUPP))
            continue;
        struct perf_event_attr a = e->attr;
        int lead = !grouped || leader < 0;
        a.disabled = lead;
        a.enable_on_exec = lead && !l->regions;
        a.inherit = 1;
        a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        e->fd = sys_perf_event_open(&a, pid, -1, lead ? -1 : leader, PERF_FLAG_FD_CLOEXEC);
        e->open_errno = e->fd < 0 ? errno : 0;
        if (e->fd >= 0 && lead && grouped)
            leader = e->fd;
    }
}

/* The kernel counts page-faults, context-switches and cpu-migrations
 * through hooks behind a static key per event, switched on when the first
 * such event is created and off when the last is freed: each switch
 * rewrites kernel text and stops every CPU to do it (an IPI to each, a
 * hypervisor exit each in a VM). Opened and closed around every run, they
 * switched 6 keys a run: 11% of the CPU of 40 'run --backend perf
 * --no-store -- /bin/true' (perf record: arch_jump_label_transform_apply).
 * One disabled, uninherited event of each kind on perfgate itself, held
 * while the list lives, keeps the keys on: it never counts (never enabled),
 * and no child inherits it. One that cannot be opened is no matter: the
 * run's own open says why. */
static void keep_keys(pg_evlist *l)
{
    l->kept = 1;
    for (size_t i = 0; i < l->n && l->nkeep < sizeof l->keep / sizeof *l->keep; i++) {
        const struct perf_event_attr *e = &l->ev[i].attr;
        if (l->ev[i].is_hardware || e->type != PERF_TYPE_SOFTWARE || e->config == PERF_COUNT_SW_TASK_CLOCK ||
            e->config == PERF_COUNT_SW_CPU_CLOCK)
            continue;   /* clocks are PMUs of their own, without a key */
        struct perf_event_attr a = *e;
        a.disabled = 1;
        a.inherit = 0;
        a.enable_on_exec = 0;
        int fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0)
            l->keep[l->nkeep++] = fd;
    }
}

int pg_evlist_open(pg_evlist *l, pid_t pid)
{
    pg_evlist_close(l);
    if (!l->kept)
        keep_keys(l);
    l->nunav = 0;
    size_t nhw = 0;
    for (size_t i = 0; i < l->n; i++)
        nhw += l->ev[i].is_hardware;
    open_class(l, pid, 1, nhw <= GROUP_MAX);
    open_class(l, pid, 0, 1);
    /* Each uprobe alone: it belongs to a PMU of its own. */
    for (size_t i = 0; i < l->nprobes; i++) {
        probe *p = &l->probes[i];
        struct perf_event_attr a;
        pg_uprobe_attr(&a, l->uprobe_type, p->file, p->offset);
        a.disabled = 1;
        a.enable_on_exec = !l->regions;
        a.inherit = 1;
        a.exclude_kernel = p->ev.attr.exclude_kernel;
        a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        p->ev.fd = sys_perf_event_open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (p->ev.fd < 0) {
            int err = errno;
            pg_evlist_close(l);
            errno = err;
            return pg_error_errno(PG_ENOTSUP, "cannot count the calls of %s with a uprobe at %s+0x%llx%s", p->ev.name + 6,
                                  p->file, (unsigned long long)p->offset,
                                  err == EACCES || err == EPERM ? " (needs root or CAP_PERFMON)" : "");
        }
    }
    for (size_t i = 0; i < l->n; i++) {
        pg_evsel *e = &l->ev[i];
        if (e->fd >= 0)
            continue;
        char why[400];
        pg_evsel_strerror(e->open_errno, why, sizeof why);
        if (!e->is_hardware) {
            int err = e->open_errno;
            pg_evlist_close(l);
            errno = err;
            return pg_error_set(PG_ENOTSUP, "cannot count software event %s: %s", e->name, why);
        }
        note_unavailable(l, e, why);
    }
    return 0;
}

int pg_evlist_read(pg_evlist *l, pg_readings *out)
{
    for (size_t i = 0; i < l->nprobes; i++) {
        uint64_t buf[3];
        if (l->probes[i].ev.fd < 0)
            continue;
        if (read(l->probes[i].ev.fd, buf, sizeof buf) != (ssize_t)sizeof buf)
            return pg_error_errno(PG_EIO, "reading counter %s", l->probes[i].ev.name);
        /* A uprobe is never multiplexed: its count is exact. */
        int rc = pg_readings_add(out, l->probes[i].ev.name, "count", "perf", (double)buf[0], 1.0);
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < l->n; i++) {
        pg_evsel *e = &l->ev[i];
        if (e->fd < 0)
            continue;
        uint64_t buf[3];
        ssize_t got = read(e->fd, buf, sizeof buf);
        if (got != (ssize_t)sizeof buf)
            return pg_error_errno(PG_EIO, "reading counter %s", e->name);
        double value, running;
        pg_evsel_scale(buf[0], buf[1], buf[2], &value, &running);
        if (buf[2] == 0 && buf[1] > 0) {
            /* Enabled but never on the PMU: storing 0 would be a lie. */
            note_unavailable(l, e, "enabled but never scheduled on the PMU (all counters were busy, "
                                   "or the group is larger than the PMU); fix: give fewer events with -e");
            continue;
        }
        int rc = pg_readings_add(out, e->name, e->unit, "perf", value, running);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void pg_evlist_close(pg_evlist *l)
{
    for (size_t i = 0; i < l->nprobes; i++) {
        if (l->probes[i].ev.fd >= 0)
            close(l->probes[i].ev.fd);
        l->probes[i].ev.fd = -1;
    }
    for (size_t i = 0; i < l->n; i++) {
        if (l->ev[i].fd >= 0)
            close(l->ev[i].fd);
        l->ev[i].fd = -1;
    }
}

size_t pg_evlist_unavailable_count(const pg_evlist *l) { return l->nunav; }

const char *pg_evlist_unavailable(const pg_evlist *l, size_t i, const char **why)
{
    if (i >= l->nunav)
        return NULL;
    if (why)
        *why = l->unav[i].why;
    return l->unav[i].name;
}

size_t pg_evlist_count(const pg_evlist *l) { return l->n; }
const pg_evsel *pg_evlist_get(const pg_evlist *l, size_t i) { return i < l->n ? &l->ev[i] : NULL; }

int pg_evlist_set_probes(pg_evlist *l, const pg_evlist_probe *p, size_t n)
{
    for (size_t i = 0; i < l->nprobes; i++) {
        if (l->probes[i].ev.fd >= 0)
            close(l->probes[i].ev.fd);
        free(l->probes[i].file);
    }
    free(l->probes);
    l->probes = NULL;
    l->nprobes = 0;
    if (n == 0)
        return 0;
    int rc = pg_uprobe_type(&l->uprobe_type);
    if (rc < 0)
        return rc;
    if (!(l->probes = calloc(n, sizeof *l->probes)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        probe *q = &l->probes[l->nprobes];
        snprintf(q->ev.name, sizeof q->ev.name, "calls:%s", p[i].name);
        snprintf(q->ev.unit, sizeof q->ev.unit, "count");
        q->ev.fd = -1;
        q->ev.attr.exclude_kernel = l->user_only;
        q->offset = p[i].offset;
        if (!(q->file = strdup(p[i].file)))
            return pg_error_set(PG_ENOMEM, "out of memory");
        l->nprobes++;
    }
    return 0;
}

void pg_evlist_set_regions(pg_evlist *l, int on) { l->regions = on; }

/* The leaders: an ioctl with PERF_IOC_FLAG_GROUP reaches their groups, and
 * perf applies it to the counters the children inherited too. */
int pg_evlist_enable(pg_evlist *l, int on)
{
    unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
    for (size_t i = 0; i < l->n; i++) {
        pg_evsel *e = &l->ev[i];
        if (e->fd >= 0 && ioctl(e->fd, req, PERF_IOC_FLAG_GROUP) < 0 && errno != EINVAL)
            return pg_error_errno(PG_EIO, "cannot %s counter %s", on ? "enable" : "disable", e->name);
    }
    for (size_t i = 0; i < l->nprobes; i++)
        if (l->probes[i].ev.fd >= 0 && ioctl(l->probes[i].ev.fd, req, 0) < 0)
            return pg_error_errno(PG_EIO, "cannot %s counter %s", on ? "enable" : "disable", l->probes[i].ev.name);
    return 0;
}
