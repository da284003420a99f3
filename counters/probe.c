/* counters/probe.c — what this machine can measure: tried, not guessed. */
#include "counters/probe.h"
#include "counters/evsel.h"
#include "counters/sampler.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int pg_probe_event(const char *name, int sample, char *detail, size_t len)
{
    pg_evsel ev;
    if (pg_evsel_init(&ev, name, 1) < 0) {
        snprintf(detail, len, "%s", pg_error_last());
        return EINVAL;
    }
    ev.attr.disabled = 1;
    if (sample) {
        ev.attr.freq = 1;
        ev.attr.sample_freq = PG_SAMPLE_FREQ_DEFAULT;
        ev.attr.sample_type = PERF_SAMPLE_IP;
    }
    int fd = (int)syscall(SYS_perf_event_open, &ev.attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        pg_evsel_strerror(err, detail, len);
        return err;
    }
    close(fd);
    snprintf(detail, len, "%s", ev.pfm_name);
    return 0;
}

void pg_probe_init(pg_probe *p)
{
    memset(p, 0, sizeof *p);
    p->paranoid = -99;
    snprintf(p->hw_why, sizeof p->hw_why, "not probed");
    snprintf(p->sw_why, sizeof p->sw_why, "not probed");
    for (size_t i = 0; i < PG_BACKEND_SLOTS; i++)
        snprintf(p->fit[i].why, sizeof p->fit[i].why, "not probed");
}

void pg_probe_perf(pg_probe *p)
{
    if (p->perf_probed)
        return;
    p->perf_probed = 1;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &p->paranoid) != 1)
            p->paranoid = -99;
        fclose(f);
    }
    /* PERFGATE_NO_PMU lets tests (and a user who distrusts the PMU) take the
     * no-counter path on any machine. */
    const char *nopmu = getenv("PERFGATE_NO_PMU");
    if (nopmu && *nopmu && strcmp(nopmu, "0")) {
        snprintf(p->hw_why, sizeof p->hw_why, "PERFGATE_NO_PMU is set");
    } else {
        p->hw_instructions = pg_probe_event("instructions", 0, p->hw_why, sizeof p->hw_why) == 0;
        p->sampling_hw = p->hw_instructions && pg_probe_event("cycles", 1, (char[512]){0}, 512) == 0;
    }
    p->software = pg_probe_event("task-clock", 0, p->sw_why, sizeof p->sw_why) == 0;
    p->sampling_sw = pg_probe_event("cpu-clock", 1, (char[512]){0}, 512) == 0;
}
