/* cgtree: a known call tree with known instruction weights, for the valgrind
 * backend's stacks: main -> parse -> hash (about 3/4 of the work),
 * main -> hash (about 1/4), and main -> rec -> rec -> rec (depth 3). */
#include <stdio.h>

__attribute__((noipa)) static unsigned hash(unsigned x, int n)
{
    for (int i = 0; i < n; i++)
        x = x * 2654435761u + (unsigned)i;
    __asm__ volatile("" : "+r"(x));
    return x;
}

__attribute__((noipa)) static unsigned parse(unsigned x)
{
    unsigned s = 0;
    for (int i = 0; i < 300; i++)
        s += hash(x + (unsigned)i, 1000);
    return s;
}

__attribute__((noipa)) static unsigned rec(int depth)
{
    unsigned r = depth > 1 ? rec(depth - 1) : 7;
    __asm__ volatile("" : "+r"(r));
    return r + (unsigned)depth;
}

int main(void)
{
    unsigned s = parse(1) + hash(3, 100000) + rec(3);
    printf("%u\n", s);
    return 0;
}
