#include "util/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last[1024];

/* A message is one line whatever it quotes (a key, a name, a line of a file):
 * control characters are written as C escapes, so "\n" cannot split it and
 * an ESC cannot reach the terminal. Idempotent, so wrapping keeps it so. */
static void one_line(void)
{
    size_t i = 0;
    while (last[i] && !((unsigned char)last[i] < 0x20 || last[i] == 0x7f))
        i++;
    if (!last[i])
        return;
    char out[sizeof last];
    size_t o = i;
    memcpy(out, last, i);
    for (; last[i] && o + 5 < sizeof out; i++) {
        unsigned char c = (unsigned char)last[i];
        if (c == '\n' || c == '\r' || c == '\t')
            o += (size_t)snprintf(out + o, sizeof out - o, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
        else if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(out + o, sizeof out - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    out[o] = '\0';
    memcpy(last, out, o + 1);
}

int pg_error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last, sizeof last, fmt, ap);
    va_end(ap);
    one_line();
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
    one_line();
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
    one_line();
    return code;
}

const char *pg_error_last(void) { return last; }
void pg_error_clear(void) { last[0] = '\0'; }
