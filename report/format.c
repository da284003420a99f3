/* report/format.c — see format.h. */
#include "report/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void pg_format_thousands(char *buf, size_t len, double v)
{
    char raw[64];
    snprintf(raw, sizeof raw, "%.0f", v);
    const char *digits = raw[0] == '-' ? raw + 1 : raw;
    size_t nd = strlen(digits), o = 0;
    if (raw[0] == '-' && o + 1 < len)
        buf[o++] = '-';
    for (size_t i = 0; i < nd && o + 2 < len; i++) {
        if (i && (nd - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

void pg_format_value(char *buf, size_t len, char *unit_out, size_t ulen, double v, const char *unit)
{
    if (isnan(v)) {
        snprintf(buf, len, "-");
        snprintf(unit_out, ulen, "%s", unit);
    } else if (!strcmp(unit, "ns")) {
        if (fabs(v) >= 1e9)
            snprintf(buf, len, "%.3f", v / 1e9), snprintf(unit_out, ulen, "s");
        else if (fabs(v) >= 1e6 || v == 0)
            snprintf(buf, len, "%.3f", v / 1e6), snprintf(unit_out, ulen, "ms");
        else if (fabs(v) >= 1e3)   /* a Google Benchmark's time per iteration */
            snprintf(buf, len, "%.3f", v / 1e3), snprintf(unit_out, ulen, "us");
        else
            snprintf(buf, len, "%.3f", v), snprintf(unit_out, ulen, "ns");
    } else if (!strcmp(unit, "bytes")) {
        if (fabs(v) >= 1048576)
            snprintf(buf, len, "%.1f", v / 1048576), snprintf(unit_out, ulen, "MiB");
        else
            snprintf(buf, len, "%.1f", v / 1024), snprintf(unit_out, ulen, "KiB");
    } else {
        pg_format_thousands(buf, len, v);
        snprintf(unit_out, ulen, "%s", unit);
    }
}

void pg_format_with_unit(char *buf, size_t len, double v, const char *unit, int sign)
{
    char val[64], u[16];
    pg_format_value(val, sizeof val, u, sizeof u, v, unit);
    const char *plus = sign && v > 0 ? "+" : "";
    if (isnan(v) || !strcmp(u, "count") || !*u)
        snprintf(buf, len, "%s%s", plus, val);
    else
        snprintf(buf, len, "%s%s %s", plus, val, u);
}

void pg_format_pct(char *buf, size_t len, double pct)
{
    if (isnan(pct))
        snprintf(buf, len, "-");
    else if (isinf(pct))
        snprintf(buf, len, "%s", pct > 0 ? "+inf%" : "-inf%");
    else if (fabs(pct) < 0.005)
        snprintf(buf, len, "0.00%%");    /* not "+0.00%" or "-0.00%": nothing changed that shows */
    else
        snprintf(buf, len, "%+.2f%%", pct);
}

void pg_format_pct_fine(char *buf, size_t len, double pct)
{
    if (pct != 0 && fabs(pct) < 0.005)
        snprintf(buf, len, "%+.2g%%", pct);
    else
        pg_format_pct(buf, len, pct);
}

void pg_format_threshold(char *buf, size_t len, double pct)
{
    snprintf(buf, len, "%g%%", pct);
}
