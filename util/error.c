#include "util/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last[1024];

int pg_error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last, sizeof last, fmt, ap);
    va_end(ap);
    return code;
}

int pg_error_errno(int code, const char *fmt, ...)
{
    int saved = errno;
    char head[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    snprintf(last, sizeof last, "%s: %s", head, strerror(saved));
    errno = saved;
    return code;
}

int pg_error_wrap(int code, const char *fmt, ...)
{
    char head[512], old[sizeof last];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, last, sizeof old);
    size_t n = strlen(head);
    if (n > sizeof last - 3)
        n = sizeof last - 3;
    memcpy(last, head, n);
    memcpy(last + n, ": ", 2);
    size_t room = sizeof last - n - 2;
    size_t m = strnlen(old, room - 1);
    memcpy(last + n + 2, old, m);
    last[n + 2 + m] = '\0';
    return code;
}

const char *pg_error_last(void) { return last; }
void pg_error_clear(void) { last[0] = '\0'; }
