/* sample_lib [SECONDS]: main -> lib_work -> pgsample_entry (libpgsample.so) -> lib_inner. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long pgsample_entry(unsigned long x);

static volatile unsigned long sink;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static unsigned long lib_work(unsigned long x)
{
    unsigned long r = pgsample_entry(x);
    sink = r;
    return r + 1;
}

int main(int argc, char **argv)
{
    double end = now() + (argc > 1 ? atof(argv[1]) : 0.3);
    unsigned long acc = 1;
    while (now() < end)
        acc += lib_work(acc);
    printf("%lu\n", acc & 0xff);
    return 0;
}
