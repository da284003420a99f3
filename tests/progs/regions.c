/* regions: a benchmark with perfgate's region markers (include/perfgate.h).
 *
 *     regions OUTSIDE INSIDE [MALLOCS]
 *
 * Touches OUTSIDE fresh pages before the region and again after it, and
 * INSIDE fresh pages in it (one page fault and a fixed number of
 * instructions each), then calls malloc and free MALLOCS times in it.
 * Counted between the markers: INSIDE pages, MALLOCS calls; what OUTSIDE
 * changes must not show. */
#include <perfgate.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static void *volatile sink;

/* n fresh pages, each written once: one page fault per page. */
static void touch_pages(long n)
{
    if (n <= 0)
        return;
    size_t len = (size_t)n * 4096;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    madvise(p, len, MADV_NOHUGEPAGE);   /* a huge page would take 512 pages in one fault */
    for (long i = 0; i < n; i++)
        ((volatile char *)p)[i * 4096] = 1;
    munmap(p, len);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: regions OUTSIDE INSIDE [MALLOCS]\n");
        return 2;
    }
    long outside = atol(argv[1]), inside = atol(argv[2]), mallocs = argc > 3 ? atol(argv[3]) : 0;
    touch_pages(outside);
    PERFGATE_START();
    touch_pages(inside);
    for (long i = 0; i < mallocs; i++) {
        void *p = malloc(32 + (size_t)(i & 7));
        sink = p;       /* escapes: the call cannot be optimised away */
        free(p);
    }
    PERFGATE_STOP();
    touch_pages(outside);
    printf("regions: %ld outside, %ld inside, %ld mallocs\n", outside, inside, mallocs);
    return 0;
}
