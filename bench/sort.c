/* sort N: merge sort of N pseudo-random 64-bit keys. */
#include "common.h"

#include <string.h>

static void merge_sort(uint64_t *a, uint64_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(a, tmp, h);
    merge_sort(a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

int main(int argc, char **argv)
{
    size_t n = (size_t)bench_arg(argc, argv, 200000);
    uint64_t *a = malloc(n * sizeof *a), *t = malloc(n * sizeof *t), s = 42;
    for (size_t i = 0; i < n; i++)
        a[i] = bench_rng(&s);
    merge_sort(a, t, n);
    uint64_t sum = 0;
    for (size_t i = 1; i < n; i++)
        if (a[i - 1] > a[i])
            return 1;
    for (size_t i = 0; i < n; i += 97)
        sum ^= a[i];
    printf("sorted %zu keys, checksum %016llx\n", n, (unsigned long long)sum);
    free(a);
    free(t);
    return 0;
}
