/* sample_lib [SECONDS]: main -> lib_work -> pgsample_entry (libpgsample.so) -> lib_inner.
 * SECONDS of wall time, or, written Nn (e.g. 1000n), N calls of lib_work (default 2000n). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    const char *arg = argc > 1 ? argv[1] : "2000n";     /* work, not time: the same samples at any load */
    long calls = *arg && arg[strlen(arg) - 1] == 'n' ? atol(arg) : -1;
    double end = now() + atof(arg);
    unsigned long acc = 1;
    for (long i = 0; calls >= 0 ? i < calls : now() < end; i++)
        acc += lib_work(acc);
    printf("%lu\n", acc & 0xff);
    return 0;
}
