#include "harness/commands.h"
#include "util/error.h"
#include "util/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pg_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pg_text_vwarn(fmt, ap);     /* messages quote names and file contents: escaped */
    va_end(ap);
    return PG_EXIT_USAGE;
}

int pg_die_last(void) { return pg_die("%s", pg_error_last()); }

int pg_split_dashdash(int argc, char **argv, char ***rest, int *nrest)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            *rest = argv + i + 1;
            *nrest = argc - i - 1;
            return i;
        }
    }
    *rest = NULL;
    *nrest = 0;
    return argc;
}

int pg_parse_whole(long long *out, const char *s, long long min, long long max)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int pg_check_cpu(int cpu)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpu >= ncpu)
        return pg_error_set(PG_EINVAL, "--cpu %d: this machine has CPUs 0 to %ld", cpu, ncpu - 1);
    return 0;
}
