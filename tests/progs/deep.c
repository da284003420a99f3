/* tests/progs/deep.c — spins at the bottom of a deep recursion whose frames
 * are 1 KiB each, so its stacks are deeper than perfgate record's default
 * 8 KiB DWARF stack copy: `deep DEPTH ITERATIONS`. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned long spin(long n)
{
    unsigned long x = 1;
    for (long i = 0; i < n; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    return x;
}

__attribute__((noinline)) static unsigned long descend(int depth, long n)
{
    volatile char frame[1024];    /* what makes each level 1 KiB deep */
    frame[0] = (char)depth;
    unsigned long r = depth > 0 ? descend(depth - 1, n) : spin(n);
    return r + (unsigned long)frame[0];
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 40;
    long n = argc > 2 ? atol(argv[2]) : 100000000L;
    printf("%lu\n", descend(depth, n) & 0xff);
    return 0;
}
