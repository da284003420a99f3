/* bench/common.h — shared bits of perfgate's own benchmarks: a deterministic
 * generator (no time, no addresses: the same input on every run) and argument
 * parsing. Every benchmark prints a checksum so the compiler cannot drop work. */
#ifndef PG_BENCH_COMMON_H
#define PG_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline uint64_t bench_rng(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline long bench_arg(int argc, char **argv, long dflt)
{
    if (argc < 2)
        return dflt;
    char *end;
    long v = strtol(argv[1], &end, 10);
    if (*end || v <= 0) {
        fprintf(stderr, "%s: expected a positive size, got '%s'\n", argv[0], argv[1]);
        exit(2);
    }
    return v;
}

#endif
