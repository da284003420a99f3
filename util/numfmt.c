/* util/numfmt.c — see numfmt.h.
 *
 * %.15g by hand: the 15 significant digits are |v| * 10^(14 - e) rounded to
 * an integer. Where that scales up (|v| below 10^15, every non-integer), the
 * product is exact: v's 53-bit mantissa times 5^s in 128-bit integers, then
 * a shift, rounded half to even as printf does; a tie is decided exactly,
 * not handed to snprintf (it was 7% of a compare's numbers, and each cost
 * twenty times the rest). Scaling down, it is computed in long double, and
 * where the product is within 10^-4 of a tie, snprintf writes it; so do the
 * edges (0, non-finite, exponents beyond the table): the same bytes always.
 * tests/unit/test_numfmt.c checks millions of values against snprintf. */
#include "util/numfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

/* 5^0 .. 5^27: 10^s = 5^s * 2^s, and 5^27 still fits 64 bits. */
static const uint64_t pow5[] = {1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL,
                                1953125ULL, 9765625ULL, 48828125ULL, 244140625ULL, 1220703125ULL,
                                6103515625ULL, 30517578125ULL, 152587890625ULL, 762939453125ULL,
                                3814697265625ULL, 19073486328125ULL, 95367431640625ULL, 476837158203125ULL,
                                2384185791015625ULL, 11920928955078125ULL, 59604644775390625ULL,
                                298023223876953125ULL, 1490116119384765625ULL, 7450580596923828125ULL};

/* |v| * 10^s rounded half to even, exactly (0 <= s <= 27, v normal): v is
 * m * 2^x with m below 2^53, so the product m * 5^s (below 2^116) shifted by
 * x + s. Returns 0 when that does not fit (a scale far off: the caller's
 * fallback). */
static int scale_exact(unsigned long long *out, double v, int s)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    int bexp = (int)((u >> 52) & 0x7ff);
    if (bexp == 0)
        return 0;
    u128 p = (u128)((u & ((1ULL << 52) - 1)) | (1ULL << 52)) * pow5[s];
    int k = 1075 - bexp - s;      /* the product is p / 2^k */
    if (k <= 0) {
        if (k < -10)
            return 0;
        *out = (unsigned long long)(p << -k);
        return 1;
    }
    if (k >= 127)
        return 0;
    u128 q = p >> k, rem = p & (((u128)1 << k) - 1), half = (u128)1 << (k - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    if (q >> 63)
        return 0;
    *out = (unsigned long long)q;
    return 1;
}

/* "00" .. "99": two digits per division. */
static const char two[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                          "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                          "8081828384858687888990919293949596979899";

/* d's 15 decimal digits (d below 10^15) into dig[0..14], most significant first. */
static void digits15(char *dig, unsigned long long d)
{
    uint32_t lo = (uint32_t)(d % 100000000ULL), hi = (uint32_t)(d / 100000000ULL);   /* 8 and 7 digits */
    for (int i = 13; i >= 7; i -= 2, lo /= 100)
        memcpy(dig + i, two + 2 * (lo % 100), 2);
    for (int i = 5; i >= 1; i -= 2, hi /= 100)
        memcpy(dig + i, two + 2 * (hi % 100), 2);
    dig[0] = (char)('0' + hi);
}

/* 10^0 .. 10^27, each exact in a long double's 64-bit mantissa. */
static const long double p10[] = {1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L,
                                  1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                  1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* 10^0 .. 10^22 (exact in a double), and 10^-1 .. 10^-22 (rounded). */
static const double p10d[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                              1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const double n10d[] = {1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11,
                              1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};

/* floor(log10(|v|)), v finite and not 0, from v's binary exponent and one
 * comparison with a power of ten, in integers and doubles: log10l (x87,
 * some hundred cycles) was 4% of a 10^4-benchmark compare's samples. |v|
 * is in [2^x, 2^(x+1)), its log10 in [x L, (x + 1) L) with L = log10(2) < 1:
 * floor(x L) (x * 78913 >> 18 for |x| < 1100) or one more. A power of ten
 * below 1 is rounded in the table, so a value within an ulp of one may be
 * put on the wrong side: pg_fmt_g15's range check of the digits catches an
 * exponent one off, as it did log10l's. */
static int exp10_of(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    int bexp = (int)((u >> 52) & 0x7ff);
    if (bexp == 0)                      /* subnormal: no exponent to read off */
        return (int)floorl(log10l(fabsl((long double)v)));
    int x = bexp - 1023;
    int e = x >= 0 ? (x * 78913) >> 18 : -((-x * 78913 + (1 << 18) - 1) >> 18);
    int k = e + 1;
    double a = fabs(v);
    if (k >= 0 && k <= 22)
        return a >= p10d[k] ? k : e;
    if (k < 0 && k >= -22)
        return a >= n10d[-k] ? k : e;
    return (int)floorl(log10l((long double)a));
}

size_t pg_fmt_g15(char *buf, double v)
{
    if (!isfinite(v) || v == 0)
        return (size_t)snprintf(buf, PG_FMT_G15_SIZE, "%.15g", v);
    char *p = buf;
    int e = exp10_of(v);
    /* 15 significant digits as an integer: a * 10^(14 - e), rounded. */
    int s = 14 - e;
    if (s < -27 || s > 27)
        return (size_t)snprintf(buf, PG_FMT_G15_SIZE, "%.15g", v);
    unsigned long long d;
    if (s >= 0) {
        if (!scale_exact(&d, v, s))
            return (size_t)snprintf(buf, PG_FMT_G15_SIZE, "%.15g", v);
    } else {
        long double m = fabsl((long double)v) / p10[-s];
        d = (unsigned long long)llrintl(m);
        long double r = fabsl(m - (long double)d);
        if (r > 0.4999L && r < 0.5001L)     /* near a tie: the scaling's rounding could decide it */
            return (size_t)snprintf(buf, PG_FMT_G15_SIZE, "%.15g", v);
    }
    if (d == 1000000000000000ULL) {       /* rounded up to 16 digits: 9.99..95 -> 10.0 */
        d /= 10;
        e++;
    } else if (d > 1000000000000000ULL || d < 100000000000000ULL) {   /* log10 was one off */
        return (size_t)snprintf(buf, PG_FMT_G15_SIZE, "%.15g", v);
    }
    char dig[16];
    digits15(dig, d);
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
