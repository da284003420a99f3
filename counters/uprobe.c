/* counters/uprobe.c — see uprobe.h. */
#include "counters/uprobe.h"
#include "counters/elfsym.h"
#include "util/error.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define UPROBE_TYPE_FILE "/sys/bus/event_source/devices/uprobe/type"

int pg_uprobe_type(uint32_t *type)
{
    FILE *f = fopen(UPROBE_TYPE_FILE, "r");
    unsigned v;
    int ok = f && fscanf(f, "%u", &v) == 1;
    if (f)
        fclose(f);
    if (!ok)
        return pg_error_set(PG_ENOTSUP, "this kernel has no uprobe PMU (%s is missing); "
                                        "fix: a kernel built with CONFIG_UPROBE_EVENTS", UPROBE_TYPE_FILE);
    *type = v;
    return 0;
}

void pg_uprobe_attr(struct perf_event_attr *a, uint32_t type, const char *path, uint64_t offset)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = type;
    a->config = 0;      /* bit 0 would make it a return probe */
    a->config1 = (uint64_t)(uintptr_t)path;
    a->config2 = offset;
}

int pg_uprobe_probe(char *why, size_t len)
{
    uint32_t type;
    char self[PATH_MAX], file[PATH_MAX];
    uint64_t off;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (pg_uprobe_type(&type) < 0 || n <= 0) {
        snprintf(why, len, "%s", n <= 0 ? "cannot read /proc/self/exe" : pg_error_last());
        return 0;
    }
    self[n] = '\0';
    if (pg_elfsym_resolve(file, &off, self, "malloc", NULL) < 0) {
        snprintf(why, len, "%s", pg_error_last());
        return 0;
    }
    struct perf_event_attr a;
    pg_uprobe_attr(&a, type, file, off);
    a.disabled = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        if (err == EACCES || err == EPERM)
            snprintf(why, len, "opening a uprobe needs CAP_PERFMON or root here (%s); fix: run perfgate as root, "
                               "or sudo setcap cap_perfmon+ep $(command -v perfgate)", strerror(err));
        else
            snprintf(why, len, "opening a uprobe on malloc in %s failed: %s", file, strerror(err));
        return 0;
    }
    close(fd);
    return 1;
}
