/* parse N: generates N CSV records of integers and decimals in memory, then
 * parses them back by hand (no strtod: the work is the benchmark's own). */
#include "common.h"

#include <string.h>

static size_t gen(char *out, long n)
{
    uint64_t s = 3;
    size_t o = 0;
    for (long i = 0; i < n; i++) {
        uint64_t a = bench_rng(&s) % 1000000, b = bench_rng(&s) % 10000, c = bench_rng(&s) % 100;
        o += (size_t)sprintf(out + o, "%ld,%llu,%llu.%02llu\n", i, (unsigned long long)a,
                             (unsigned long long)b, (unsigned long long)c);
    }
    return o;
}

static double parse(const char *p, const char *end, long *records)
{
    double sum = 0;
    long recs = 0;
    while (p < end) {
        for (int field = 0; field < 3; field++) {
            long ip = 0, frac = 0, scale = 1;
            while (*p >= '0' && *p <= '9')
                ip = ip * 10 + (*p++ - '0');
            if (*p == '.') {
                p++;
                while (*p >= '0' && *p <= '9') {
                    frac = frac * 10 + (*p++ - '0');
                    scale *= 10;
                }
            }
            sum += (double)ip + (double)frac / (double)scale;
            p++; /* ',' or '\n' */
        }
        recs++;
    }
    *records = recs;
    return sum;
}

int main(int argc, char **argv)
{
    long n = bench_arg(argc, argv, 100000);
    char *buf = malloc((size_t)n * 40 + 1);
    size_t len = gen(buf, n);
    long recs;
    double sum = parse(buf, buf + len, &recs);
    printf("parsed %ld records (%zu bytes), sum %.2f\n", recs, len, sum);
    free(buf);
    return recs == n ? 0 : 1;
}
