/* repcopy [KB]: copies a buffer of KB kibibytes (default 64) ROUNDS times
 * with `rep movsb` and clears it with `rep stosb`, in copy() and clear(): a
 * program whose instructions are nearly all repeated string instructions,
 * which cachegrind and callgrind both count once per iteration. ROUNDS is
 * what tests/e2e/sample_table.sh changes to make a commit that grows copy(). */
#include <stdio.h>
#include <stdlib.h>

#ifndef ROUNDS
#define ROUNDS 40
#endif

static unsigned char src[1 << 20], dst[1 << 20];

__attribute__((noinline)) static void copy(size_t n)
{
    for (int r = 0; r < ROUNDS; r++) {
        void *d = dst, *s = src;
        size_t c = n;
        __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
        src[r] ^= dst[n - 1 - (size_t)r];
    }
}

__attribute__((noinline)) static void clear(size_t n)
{
    for (int r = 0; r < 20; r++) {
        void *d = dst;
        size_t c = n;
        __asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(r) : "memory");
    }
}

int main(int argc, char **argv)
{
    size_t kb = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
    if (kb < 1 || kb > 1024) {
        fprintf(stderr, "repcopy: KB must be 1..1024\n");
        return 2;
    }
    copy(kb * 1024);
    clear(kb * 1024);
    printf("%d\n", dst[7] ^ src[3]);
    return 0;
}
