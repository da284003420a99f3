/* libpgsample.so: a shared library for the sampling tests (sample_lib calls it). */
static volatile unsigned long lib_sink;

__attribute__((noinline)) static unsigned long lib_inner(unsigned long x)
{
    for (int i = 0; i < 100000; i++)
        x = (x ^ (x >> 11)) * 0xbf58476d1ce4e5b9UL;
    lib_sink = x;
    return x + 1;
}

/* The library's one entry point, called by tests/progs/sample_lib.c. */
unsigned long pgsample_entry(unsigned long x);
__attribute__((visibility("default"), noinline)) unsigned long pgsample_entry(unsigned long x)
{
    unsigned long r = lib_inner(x);
    lib_sink = r;
    return r ^ x;
}
