/* counters/evsel.c — one perf event: libpfm4 encoding, scaling, open errors. */
#include "counters/evsel.h"
#include "util/dlib.h"
#include "util/error.h"
#include "util/suggest.h"

#include <dlfcn.h>
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpfm4 is opened on first use, not linked: the loader relocating its
 * event tables (41,000 pointers) cost every perfgate start about 2 ms, and
 * the events most runs name never need it (generic[] below). Its ABI is
 * libpfm.so.4's; the calls below keep libpfm4's names. */
#define PG_PFM_SONAME "libpfm.so.4"
static struct {
    pfm_err_t (*initialize)(void);
    const char *(*strerror)(int);
    pfm_err_t (*get_pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
    int (*get_event_next)(int);
    pfm_err_t (*get_event_info)(int, pfm_os_t, pfm_event_info_t *);
    pfm_err_t (*get_os_event_encoding)(const char *, int, pfm_os_t, void *);
} pfm;
#define pfm_initialize pfm.initialize
#define pfm_strerror pfm.strerror
#define pfm_get_pmu_info pfm.get_pmu_info
#define pfm_get_event_next pfm.get_event_next
#define pfm_get_event_info pfm.get_event_info
#define pfm_get_os_event_encoding pfm.get_os_event_encoding

/* pfm_initialize is not thread-safe and costs a PMU scan; do it once. */
static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status = PFM_ERR_NOINIT;
static char pfm_missing[300];       /* why the library could not be opened, "" when it was */

static void pfm_init_once(void)
{
    const pg_dlib_sym sym[] = {
        {(void **)&pfm.initialize, "pfm_initialize"},
        {(void **)&pfm.strerror, "pfm_strerror"},
        {(void **)&pfm.get_pmu_info, "pfm_get_pmu_info"},
        {(void **)&pfm.get_event_next, "pfm_get_event_next"},
        {(void **)&pfm.get_event_info, "pfm_get_event_info"},
        {(void **)&pfm.get_os_event_encoding, "pfm_get_os_event_encoding"},
    };
    if (pg_dlib_open(PG_PFM_SONAME, RTLD_NOW | RTLD_LOCAL, sym, sizeof sym / sizeof *sym, pfm_missing,
                     sizeof pfm_missing) == 0)
        pfm_status = pfm_initialize();
}

int pg_pfm_init(void)
{
    pthread_once(&pfm_once, pfm_init_once);
    if (pfm_missing[0])
        return pg_error_set(PG_ENOTSUP, "libpfm4 is needed to encode this event and cannot be loaded: %s "
                            "(install libpfm4)", pfm_missing);
    if (pfm_status != PFM_SUCCESS)
        return pg_error_set(PG_ENOTSUP, "libpfm4 could not initialize: %s", pfm_strerror(pfm_status));
    return 0;
}

/* Names perfgate users type most, beyond what libpfm4 knows, for suggestions. */
static const char *const shared_names[] = {
    "instructions", "cycles", "cache-misses", "cache-references", "branch-misses", "branches",
    "task-clock", "cpu-clock", "page-faults", "context-switches", "cpu-migrations",
};

/* The closest names to `typed` among perfgate's names and every event of the
 * PMUs libpfm4 found present, as "a, b or c" in `buf`. */
static void suggestions(char *buf, size_t len, const char *typed)
{
    const char *bare = strstr(typed, "::") ? strstr(typed, "::") + 2 : typed;
    pg_suggest s;
    pg_suggest_init(&s, bare);
    for (size_t i = 0; i < sizeof shared_names / sizeof *shared_names; i++)
        pg_suggest_offer(&s, shared_names[i]);
    pfm_pmu_t pmu;
    pfm_for_all_pmus(pmu) {
        pfm_pmu_info_t pi;
        memset(&pi, 0, sizeof pi);
        pi.size = sizeof pi;
        if (pfm_get_pmu_info(pmu, &pi) != PFM_SUCCESS || !pi.is_present)
            continue;
        for (int e = pi.first_event; e != -1; e = pfm_get_event_next(e)) {
            pfm_event_info_t ei;
            memset(&ei, 0, sizeof ei);
            ei.size = sizeof ei;
            if (pfm_get_event_info(e, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
                continue;
            char full[96];
            snprintf(full, sizeof full, "%s::%s", pi.name, ei.name);
            pg_suggest_offer_as(&s, ei.name, full);
        }
    }
    pg_suggest_list(&s, buf, len);
}

/* What every encoding gets, whichever way it was made. */
static void finish_attr(pg_evsel *ev)
{
    ev->attr.size = sizeof ev->attr;
    ev->is_hardware = ev->attr.type != PERF_TYPE_SOFTWARE;
    if (!ev->is_hardware) {
        /* Software events happen in the kernel on the task's behalf (a context
         * switch is never in user mode): excluding the kernel would zero them. */
        ev->attr.exclude_kernel = 0;
        ev->attr.exclude_hv = 0;
    }
    int clock = ev->attr.type == PERF_TYPE_SOFTWARE &&
                (ev->attr.config == PERF_COUNT_SW_TASK_CLOCK || ev->attr.config == PERF_COUNT_SW_CPU_CLOCK);
    snprintf(ev->unit, sizeof ev->unit, "%s", clock ? "ns" : "count");
}

/* perf's generic events, encoded exactly as libpfm4 encodes them (a unit test
 * holds the two to it). The common case then skips pfm_initialize, which
 * walks every PMU table libpfm4 knows: a few ms of every perfgate start. */
static const struct generic {
    const char *name, *pfm_name;
    uint32_t type;
    uint64_t config;
} generic[] = {
    {"instructions", "perf::PERF_COUNT_HW_INSTRUCTIONS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cycles", "perf::PERF_COUNT_HW_CPU_CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"cache-references", "perf::PERF_COUNT_HW_CACHE_REFERENCES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", "perf::PERF_COUNT_HW_CACHE_MISSES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", "perf::PERF_COUNT_HW_BRANCH_MISSES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"cpu-clock", "perf::PERF_COUNT_SW_CPU_CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", "perf::PERF_COUNT_SW_TASK_CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", "perf::PERF_COUNT_SW_PAGE_FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", "perf::PERF_COUNT_SW_CPU_MIGRATIONS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
};

const char *pg_evsel_generic_name(size_t i)
{
    return i < sizeof generic / sizeof *generic ? generic[i].name : NULL;
}

int pg_evsel_init(pg_evsel *ev, const char *name, int user_only)
{
    for (size_t i = 0; name && i < sizeof generic / sizeof *generic; i++) {
        if (strcmp(name, generic[i].name))
            continue;
        memset(ev, 0, sizeof *ev);
        ev->fd = -1;
        snprintf(ev->name, sizeof ev->name, "%s", name);
        snprintf(ev->pfm_name, sizeof ev->pfm_name, "%s", generic[i].pfm_name);
        ev->attr.type = generic[i].type;
        ev->attr.config = generic[i].config;
        ev->attr.exclude_kernel = user_only ? 1 : 0;
        ev->attr.exclude_hv = 1;
        ev->attr.exclude_guest = 1;
        finish_attr(ev);
        return 0;
    }
    return pg_evsel_init_pfm(ev, name, user_only);
}

int pg_evsel_init_pfm(pg_evsel *ev, const char *name, int user_only)
{
    memset(ev, 0, sizeof *ev);
    ev->fd = -1;
    if (!name || !*name)
        return pg_error_set(PG_EINVAL, "empty event name");
    if (strlen(name) >= sizeof ev->name)
        return pg_error_set(PG_EINVAL, "event name too long: '%.40s...'", name);
    int rc = pg_pfm_init();
    if (rc < 0)
        return rc;
    snprintf(ev->name, sizeof ev->name, "%s", name);

    char *fstr = NULL;
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.attr = &ev->attr;
    arg.fstr = &fstr;
    arg.size = sizeof arg;
    /* Privilege level: user space only by default, as `perf stat -e x:u`. */
    int plm = user_only ? PFM_PLM3 : PFM_PLM0 | PFM_PLM3;
    int ret = pfm_get_os_event_encoding(name, plm, PFM_OS_PERF_EVENT_EXT, &arg);
    if (ret != PFM_SUCCESS) {
        free(fstr);
        if (ret == PFM_ERR_NOTFOUND) {
            char sug[400];
            suggestions(sug, sizeof sug, name);
            if (sug[0])
                return pg_error_set(PG_ENOTFOUND, "unknown event '%s'; did you mean %s?", name, sug);
            return pg_error_set(PG_ENOTFOUND, "unknown event '%s' (libpfm4 knows no such event on this machine)", name);
        }
        return pg_error_set(PG_EINVAL, "event '%s': %s", name, pfm_strerror(ret));
    }
    snprintf(ev->pfm_name, sizeof ev->pfm_name, "%s", fstr ? fstr : name);
    free(fstr);
    /* libpfm4 appends ":u=1:k=0..." modifiers; the qualified name alone reads better. */
    char *colon = strchr(ev->pfm_name + (strstr(ev->pfm_name, "::") ? strstr(ev->pfm_name, "::") - ev->pfm_name + 2 : 0), ':');
    if (colon)
        *colon = '\0';

    finish_attr(ev);
    return 0;
}

void pg_evsel_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *scaled, double *fraction)
{
    if (running == 0) {
        *scaled = 0;
        *fraction = 0;
        return;
    }
    if (enabled == 0 || running >= enabled) {
        /* Not multiplexed (running can exceed enabled by a tick's rounding). */
        *scaled = (double)raw;
        *fraction = 1.0;
        return;
    }
    *fraction = (double)running / (double)enabled;
    *scaled = (double)raw * ((double)enabled / (double)running);
}

const char *pg_evsel_strerror(int err, char *buf, size_t len)
{
    switch (err) {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
        snprintf(buf, len, "this CPU exposes no hardware performance counters (%s: a VM without a "
                 "virtual PMU, or an unsupported CPU); fix: enable the vPMU in the hypervisor "
                 "(e.g. KVM -cpu host, VMware 'virtualize CPU performance counters'), or use "
                 "--backend valgrind", strerror(err));
        break;
    case EACCES:
    case EPERM: {
        int paranoid = -99;
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
        if (f) {
            if (fscanf(f, "%d", &paranoid) != 1)
                paranoid = -99;
            fclose(f);
        }
        snprintf(buf, len, "permission denied (perf_event_paranoid is %d); fix: "
                 "sudo sysctl kernel.perf_event_paranoid=1, or grant CAP_PERFMON", paranoid);
        break;
    }
    case EBUSY:
        snprintf(buf, len, "the counter is in use by another program (EBUSY: a watchdog or "
                 "another profiler); fix: stop it, e.g. sudo sysctl kernel.nmi_watchdog=0");
        break;
    case EINVAL:
        snprintf(buf, len, "the kernel rejected the event encoding (EINVAL): the event or one "
                 "of its modifiers is not supported on this CPU");
        break;
    case EMFILE:
        snprintf(buf, len, "too many open files (EMFILE); fix: raise 'ulimit -n'");
        break;
    default:
        snprintf(buf, len, "%s", strerror(err));
        break;
    }
    return buf;
}

void pg_pfm_default_pmu(char *out, size_t len)
{
    out[0] = '\0';
    if (pg_pfm_init() < 0)
        return;
    pfm_pmu_t pmu;
    pfm_for_all_pmus(pmu) {
        pfm_pmu_info_t pi;
        memset(&pi, 0, sizeof pi);
        pi.size = sizeof pi;
        if (pfm_get_pmu_info(pmu, &pi) == PFM_SUCCESS && pi.is_present && pi.is_dfl) {
            snprintf(out, len, "%s", pi.name);
            return;
        }
    }
}
