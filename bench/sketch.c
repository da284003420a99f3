/* sketch N: a count-min sketch (4 rows x 4096 counters) fed N skewed keys,
 * then queried for the heaviest ones. */
#include "common.h"

#include <string.h>

#define ROWS 4
#define WIDTH 4096

static uint32_t cms[ROWS][WIDTH];

static uint32_t row_hash(uint64_t key, int row)
{
    key ^= (uint64_t)(row + 1) * 0x9e3779b97f4a7c15ULL;
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (uint32_t)(key % WIDTH);
}

static void cms_add(uint64_t key)
{
    for (int r = 0; r < ROWS; r++)
        cms[r][row_hash(key, r)]++;
}

static uint32_t cms_query(uint64_t key)
{
    uint32_t m = UINT32_MAX;
    for (int r = 0; r < ROWS; r++) {
        uint32_t c = cms[r][row_hash(key, r)];
        m = c < m ? c : m;
    }
    return m;
}

int main(int argc, char **argv)
{
    long n = bench_arg(argc, argv, 500000);
    uint64_t s = 99;
    memset(cms, 0, sizeof cms);
    for (long i = 0; i < n; i++) {
        uint64_t r = bench_rng(&s);
        /* Skewed: small keys are much more frequent (roughly Zipf-like). */
        uint64_t key = r % (1 + (r >> 40) % 1000);
        cms_add(key);
    }
    uint64_t total = 0;
    for (uint64_t k = 0; k < 1000; k++)
        total += cms_query(k);
    printf("sketch of %ld keys, estimate sum %llu, count(0)=%u\n", n, (unsigned long long)total, cms_query(0));
    return 0;
}
