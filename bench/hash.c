/* hash N: FNV-1a and a multiply-rotate hash over N KiB of pseudo-random bytes,
 * in 64-byte records, as a hash table's key hashing would. */
#include "common.h"

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static uint64_t mulrot(const unsigned char *p, size_t n)
{
    uint64_t h = 0x243f6a8885a308d3ULL;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++)
            w |= (uint64_t)p[i + k] << (8 * k);
        h = ((h ^ w) * 0x9fb21c651e98df25ULL);
        h = (h << 29) | (h >> 35);
    }
    return h;
}

int main(int argc, char **argv)
{
    size_t kib = (size_t)bench_arg(argc, argv, 2048);
    size_t n = kib * 1024;
    unsigned char *buf = malloc(n);
    uint64_t s = 7;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t r = bench_rng(&s);
        for (int k = 0; k < 8; k++)
            buf[i + k] = (unsigned char)(r >> (8 * k));
    }
    uint64_t acc = 0;
    for (size_t i = 0; i + 64 <= n; i += 64)
        acc ^= fnv1a(buf + i, 64) + mulrot(buf + i, 64);
    printf("hashed %zu KiB, checksum %016llx\n", kib, (unsigned long long)acc);
    free(buf);
    return 0;
}
