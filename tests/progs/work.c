/* work N [exit-code]: N iterations of a fixed, libc-free loop body, so the
 * instruction count is linear in N. Used to check that 2N costs twice N. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned long step(unsigned long x)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    unsigned long x = 88172645463325252UL;
    for (long i = 0; i < n; i++)
        x = step(x);
    printf("%lu\n", x & 0xff);
    return argc > 2 ? atoi(argv[2]) : 0;
}
