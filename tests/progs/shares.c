/* tests/progs/shares.c — `shares [SCALE]`: three functions in known
 * proportions of CPU time, for comparing perfgate record's shares with
 * perf's on the same binary (tests/e2e/record_linkers.sh links it with each
 * linker). SCALE (default 100) multiplies the work: about 0.01 s a unit.
 *   main -> hash_all -> mix    ~50%
 *   main -> walk               ~30%
 *   main -> step               ~20%
 * Each is noinline and its result is used, so every one is a frame. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long mix(unsigned long x)
{
    unsigned long h = x;
    for (unsigned long i = 0; i < 32; i++)
        h = ((h ^ i) * 0x9e3779b97f4a7c15UL << 23) | ((h ^ i) * 0x9e3779b97f4a7c15UL >> 41);
    return h;
}

__attribute__((noinline)) static unsigned long hash_all(unsigned long n)
{
    unsigned long acc = 0;
    for (unsigned long i = 0; i < n; i++) {
        sink = i;
        acc ^= mix(sink);
    }
    return acc;
}

__attribute__((noinline)) static unsigned long walk(const unsigned *v, unsigned long n, unsigned long rounds)
{
    unsigned long s = 0;
    for (unsigned long r = 0; r < rounds; r++)
        for (unsigned long i = 0; i < n; i++)
            s = s * 31 + (v[i] ^ r);
    return s;
}

__attribute__((noinline)) static unsigned long step(unsigned long k)
{
    unsigned long x = k | 1;
    for (unsigned long i = 0; i < k; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

int main(int argc, char **argv)
{
    unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
    static unsigned v[4096];
    for (unsigned i = 0; i < 4096; i++)
        v[i] = i;
    unsigned long a = hash_all(scale * 240000);
    unsigned long b = walk(v, 4096, scale * 900);
    unsigned long c = step(scale * 1200000);
    printf("%lu\n", (a ^ b ^ c) & 0xff);
    return 0;
}
