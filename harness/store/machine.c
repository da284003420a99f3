#include "harness/store/machine.h"
#include "util/hash.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void cpu_model(char *out, size_t len)
{
    snprintf(out, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Processor", 9) == 0 ||
            strncmp(line, "cpu model", 9) == 0) {
            char *v = strchr(line, ':');
            if (!v)
                continue;
            v++;
            while (*v == ' ' || *v == '\t')
                v++;
            v[strcspn(v, "\n")] = '\0';
            snprintf(out, len, "%s", v);
            break;
        }
    }
    fclose(f);
}

void pg_machine_probe(pg_machine *m, const char *backend, const char *backend_version, const char *geometry)
{
    memset(m, 0, sizeof *m);
    cpu_model(m->cpu_model, sizeof m->cpu_model);
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(m->kernel, sizeof m->kernel, "%s %s %s", u.sysname, u.release, u.machine);
        snprintf(m->hostname, sizeof m->hostname, "%s", u.nodename);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    m->cores = n > 0 ? (int)n : 1;
    snprintf(m->backend, sizeof m->backend, "%s", backend);
    snprintf(m->backend_version, sizeof m->backend_version, "%s", backend_version);
    snprintf(m->geometry, sizeof m->geometry, "%s", geometry ? geometry : "");
    char key[800];
    snprintf(key, sizeof key, "%s|%s|%d|%s|%s|%s", m->cpu_model, m->kernel, m->cores, m->backend,
             m->backend_version, m->geometry);
    snprintf(m->id, sizeof m->id, "%012llx", pg_hash64(key) & 0xffffffffffffULL);
}
