/* util/numfmt.c — see numfmt.h.
 *
 * %.15g by hand: the 15 significant digits are |v| * 10^(14 - e) rounded to
 * an integer, computed in long double (64-bit mantissa), where the product's
 * error is far below the rounding's step. Where it could still decide the
 * rounding (the product within 10^-4 of a tie) and at the edges (0, non-finite,
 * exponents beyond the table), snprintf writes it: the same bytes always.
 * tests/unit/test_numfmt.c checks millions of values against snprintf. */
#include "util/numfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

size_t pg_fmt_g15(char *buf, double v)
{
    if (!isfinite(v) || v == 0)
        return (size_t)snprintf(buf, PG_FMT_G15_SIZE, "%.15g", v);
    char *p = buf;
    long double a = fabsl((long double)v);
    int e = (int)floorl(log10l(a));
    /* 15 significant digits as an integer: a * 10^(14 - e), rounded. */
    static const long double p10[] = {1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L,
                                      1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                      1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    int s = 14 - e;
    if (s < -27 || s > 27)
        return (size_t)snprintf(buf, PG_FMT_G15_SIZE, "%.15g", v);
    long double m = s >= 0 ? a * p10[s] : a / p10[-s];
    unsigned long long d = (unsigned long long)llrintl(m);
    long double r = fabsl(m - (long double)d);
    if (r > 0.4999L && r < 0.5001L)         /* near a tie: the scaling's rounding could decide it */
        return (size_t)snprintf(buf, PG_FMT_G15_SIZE, "%.15g", v);
    if (d == 1000000000000000ULL) {       /* rounded up to 16 digits: 9.99..95 -> 10.0 */
        d /= 10;
        e++;
    } else if (d > 1000000000000000ULL || d < 100000000000000ULL) {   /* log10 was one off */
        return (size_t)snprintf(buf, PG_FMT_G15_SIZE, "%.15g", v);
    }
    char dig[16];
    for (int i = 14; i >= 0; i--, d /= 10)
        dig[i] = (char)('0' + d % 10);
    int n = 15;
    while (n > 1 && dig[n - 1] == '0')
        n--;
    if (v < 0)
        *p++ = '-';
    if (e < -4 || e >= 15) {
        *p++ = dig[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, dig + 1, (size_t)n - 1);
            p += n - 1;
        }
        p += sprintf(p, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    } else if (e < 0) {
        *p++ = '0';
        *p++ = '.';
        for (int i = -1; i > e; i--)
            *p++ = '0';
        memcpy(p, dig, (size_t)n);
        p += n;
    } else {
        int ip = e + 1;   /* digits before the point */
        for (int i = 0; i < ip; i++)
            *p++ = i < n ? dig[i] : '0';
        if (n > ip) {
            *p++ = '.';
            memcpy(p, dig + ip, (size_t)(n - ip));
            p += n - ip;
        }
    }
    *p = '\0';
    return (size_t)(p - buf);
}
