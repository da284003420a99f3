#include "report/svg.h"
#include "util/text.h"
#include "util/error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pg_svgbuf_init(pg_svgbuf *b) { memset(b, 0, sizeof *b); }

void pg_svgbuf_free(pg_svgbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

int pg_svgbuf_finish(pg_svgbuf *b, char **out, size_t *len)
{
    if (b->failed || !b->p) {
        pg_svgbuf_free(b);
        return pg_error_set(PG_ENOMEM, "out of memory writing SVG");
    }
    *out = b->p;
    *len = b->len;
    memset(b, 0, sizeof *b);
    return 0;
}

static int reserve(pg_svgbuf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (b->len + n + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 65536;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void pg_svg_put(pg_svgbuf *b, const char *s, size_t n)
{
    if (reserve(b, n) < 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void pg_svg_puts(pg_svgbuf *b, const char *s) { pg_svg_put(b, s, strlen(s)); }

void pg_svg_printf(pg_svgbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void put_svg(void *b, const char *s, size_t n) { pg_svg_put(b, s, n); }

void pg_svg_escape(pg_svgbuf *b, const char *s, size_t n)
{
    pg_text_escape(put_svg, b, s, n, PG_TEXT_XML);
}

void pg_svg_u64(pg_svgbuf *b, uint64_t v)
{
    char d[24];
    int n = 0;
    do
        d[sizeof d - 1 - n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    pg_svg_put(b, d + sizeof d - n, (size_t)n);
}

void pg_svg_fixed(pg_svgbuf *b, double v, int decimals)
{
    static const double pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
    if (decimals < 0)
        decimals = 0;
    if (decimals > 6)
        decimals = 6;
    if (!isfinite(v) || fabs(v) > 1e12) {
        pg_svg_printf(b, "%.*f", decimals, isfinite(v) ? v : 0.0);
        return;
    }
    if (v < 0) {
        v = -v;
        uint64_t r = (uint64_t)llround(v * pow10[decimals]);
        if (r)
            pg_svg_put(b, "-", 1);
        v = (double)r;
    } else
        v = (double)(uint64_t)llround(v * pow10[decimals]);
    uint64_t r = (uint64_t)v, scale = (uint64_t)pow10[decimals];
    pg_svg_u64(b, r / scale);
    if (decimals) {
        char f[8];
        uint64_t frac = r % scale;
        for (int i = decimals - 1; i >= 0; i--) {
            f[i] = (char)('0' + frac % 10);
            frac /= 10;
        }
        f[0 + decimals] = 0;
        pg_svg_put(b, ".", 1);
        pg_svg_put(b, f, (size_t)decimals);
    }
}

char *pg_fmt_count(char *buf, uint64_t v)
{
    char d[32];
    int n = snprintf(d, sizeof d, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = d[i];
    }
    buf[o] = '\0';
    return buf;
}

char *pg_fmt_signed_count(char *buf, double v)
{
    double r = llround(v);
    if (r == 0) {
        strcpy(buf, "0");
        return buf;
    }
    buf[0] = r > 0 ? '+' : '-';
    pg_fmt_count(buf + 1, (uint64_t)fabs(r));
    return buf;
}
