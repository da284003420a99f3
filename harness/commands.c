#include "harness/commands.h"
#include "util/error.h"

#include <stdarg.h>
#include <string.h>

int pg_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("perfgate: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
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
