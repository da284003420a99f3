/* Unit tests: util/numfmt.h — pg_fmt_g15 writes exactly what "%.15g" does. */
#include "../check.h"
#include "util/numfmt.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int differs;

static void same(double v)
{
    char want[64], got[PG_FMT_G15_SIZE];
    snprintf(want, sizeof want, "%.15g", v);
    size_t n = pg_fmt_g15(got, v);
    if (strcmp(want, got) || n != strlen(want)) {
        if (differs++ < 10)
            fprintf(stderr, "%a: printf says %s, pg_fmt_g15 %s (length %zu)\n", v, want, got, n);
    }
}

/* The edges: zero, non-finite, the switch to exponents, rounding up to a new
 * digit, exact ties (round half to even, like printf), the table's ends. */
static void test_edges(void)
{
    const double v[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1, -1, 0.1, 0.5, 2.5, 1e-4, 9.99999999999999e-5,
                        1e-5, 0.000123456789012345, 1e14, 1e15, 1e16, 999999999999999.0, 999999999999999.5,
                        9999999999999995.0, 9.999999999999995, 0.9999999999999995, 29745425899882.25,
                        29745425899882.75, 123456789012345.5, 1.5e-300, 4.9e-324, DBL_MIN, DBL_MAX, -DBL_MAX,
                        1e27, 1e28, 1e-13, 1e-14, 3.14159265358979323846, 1.0 / 3, 2.0 / 3, -2.0 / 3,
                        9007199254740993.0, 0.015625, 1e22, 1e23, 5e-324};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        same(v[i]);
    /* whole numbers: each length of digits, both signs, and their neighbours */
    for (double w = 1; w < 1e16; w *= 10)
        for (double d = -1; d <= 1; d++) {
            same(w + d);
            same(-(w + d));
            same(w * 9 + d);
            same(-(w * 9 + d));
        }
    for (int e = -30; e <= 30; e++)
        for (int k = 1; k <= 9; k++) {
            same(k * pow(10, e));
            same(nextafter(k * pow(10, e), 0));
            same(nextafter(k * pow(10, e), INFINITY));
        }
}

/* Ties decided exactly: n / 2^k has a finite decimal expansion, and many of
 * them end in a 5 just past the 15th digit (29745425899882.25), where
 * printf rounds half to even; their neighbours just miss the tie. */
static void test_ties(void)
{
    srand48(41);
    for (int k = 1; k <= 70; k++)
        for (int i = 0; i < 2000; i++) {
            uint64_t n = (((uint64_t)lrand48() << 31) ^ (uint64_t)lrand48()) >> (i % 40);
            double v = ldexp((double)n, -k);
            same(v);
            same(-v);
            same(nextafter(v, 0));
            same(nextafter(v, INFINITY));
        }
}

/* Many values of the kinds a comparison prints, and random bit patterns. */
static void test_random(void)
{
    srand48(25);
    for (long i = 0; i < 400000; i++) {
        double v;
        switch (i % 4) {
        case 0: {
            uint64_t u = ((uint64_t)mrand48() << 32) ^ (uint32_t)mrand48();
            memcpy(&v, &u, sizeof v);
            break;
        }
        case 1: v = drand48(); break;                                               /* p-values */
        case 2: v = (drand48() - 0.5) * pow(10, (int)(drand48() * 40) - 20); break;
        default: v = (double)(lrand48() % 100000) / (double)(1 + lrand48() % 1000); break;   /* means, ratios */
        }
        if (isfinite(v))
            same(v);
    }
}

int main(void)
{
    test_edges();
    test_ties();
    test_random();
    CHECK_EQ_INT(differs, 0);
    return pg_check_done();
}
