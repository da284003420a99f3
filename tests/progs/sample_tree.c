/* sample_tree MODE [SECONDS [STATUS]]: known call trees for the sampling tests.
 * Built -O2 without frame pointers (and as sample_tree_fp with them).
 *   parse    main -> parse -> hash          (hash is nearly all the time)
 *   sort     main -> sort -> compare        (compare is nearly all the time)
 *   recurse  main -> recurse x20 -> spin    (20 nested recurse frames)
 *   thread   main -> main_work, and a second thread: worker -> thread_work
 *   crash    parse, then SIGSEGV
 * A third argument is the exit status (for the failing-command tests).
 * Each mode runs for SECONDS of wall time, or, written Nn (e.g. 1000n),
 * makes N calls of its work function per thread: a fixed amount of CPU
 * time, so that the number of samples and the shares of the paths do not
 * depend on how busy the machine is. Without SECONDS, a mode makes its
 * default number of calls, about 0.2-0.3 s of CPU time on an idle machine. Every call is noinline and followed by work, so no
 * tail call removes a frame. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static unsigned long hash(const unsigned char *p, size_t n)
{
    unsigned long h = 1469598103934665603UL;
    for (int r = 0; r < 64; r++)
        for (size_t i = 0; i < n; i++)
            h = (h ^ p[i]) * 1099511628211UL;
    return h;
}

__attribute__((noinline)) static unsigned long parse(const unsigned char *buf, size_t n)
{
    unsigned long acc = 0;
    for (int i = 0; i < 16; i++)
        acc += hash(buf, n) ^ (unsigned long)i;
    sink = acc;
    return acc * 3;
}

__attribute__((noinline)) static int compare(unsigned long a, unsigned long b)
{
    /* Deliberately expensive: the comparison of two "keys" hashes them. */
    unsigned long x = a, y = b;
    for (int i = 0; i < 200; i++) {
        x = (x ^ (x >> 7)) * 0x9e3779b97f4a7c15UL;
        y = (y ^ (y >> 7)) * 0x9e3779b97f4a7c15UL;
    }
    return (x > y) - (x < y);
}

__attribute__((noinline)) static unsigned long sort(unsigned long *v, size_t n, int (*cmp)(unsigned long, unsigned long))
{
    for (size_t i = 1; i < n; i++) {
        unsigned long k = v[i];
        size_t j = i;
        while (j > 0 && cmp(v[j - 1], k) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = k;
    }
    sink = v[0];
    return v[n / 2] + 1;
}

__attribute__((noinline)) static unsigned long spin(int n)
{
    unsigned long x = (unsigned long)n + 1;
    for (int i = 0; i < 200000; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    sink = x;
    return x;
}

__attribute__((noinline)) static unsigned long recurse(int depth)
{
    unsigned long r = depth == 0 ? spin(depth) : recurse(depth - 1);
    sink = r;
    return r + (unsigned long)depth;
}

__attribute__((noinline)) static unsigned long thread_work(void)
{
    unsigned long x = 7;
    for (int i = 0; i < 200000; i++)
        x = x * 2862933555777941757UL + 3037000493UL;
    sink = x;
    return x + 1;
}

__attribute__((noinline)) static unsigned long main_work(void)
{
    unsigned long x = 11;
    for (int i = 0; i < 200000; i++)
        x = x * 6364136223846793005UL + 1;
    sink = x;
    return x + 1;
}

static double end;          /* wall-clock end of the work */
static long calls = -1;     /* or, when >= 0, the calls to make per thread */

/* Whether a thread that made *done calls goes on. */
static int more(long *done)
{
    return calls >= 0 ? (*done)++ < calls : now() < end;
}

static void *worker(void *arg)
{
    unsigned long acc = 0;
    long done = 0;
    (void)arg;
    while (more(&done))
        acc += thread_work();
    sink = acc;
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "parse";
    double seconds = 0;
    if (argc > 2 && argv[2][0] && argv[2][strlen(argv[2]) - 1] == 'n')
        calls = atol(argv[2]);
    else if (argc > 2)
        seconds = atof(argv[2]);
    else    /* work, not time: see the top of this file */
        calls = !strcmp(mode, "sort") || !strcmp(mode, "recurse") ? 1000 : !strcmp(mode, "thread") ? 600 : 3000;
    end = now() + seconds;
    unsigned long acc = 0;
    long done = 0;
    if (!strcmp(mode, "parse") || !strcmp(mode, "crash")) {
        unsigned char buf[512];
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (unsigned char)(i * 31);
        while (more(&done))
            acc += parse(buf, sizeof buf);
    } else if (!strcmp(mode, "sort")) {
        unsigned long v[64];
        while (more(&done)) {
            for (size_t i = 0; i < 64; i++)
                v[i] = (i * 2654435761UL) ^ acc;
            acc += sort(v, 64, compare);
        }
    } else if (!strcmp(mode, "recurse")) {
        while (more(&done))
            acc += recurse(20);
    } else if (!strcmp(mode, "thread")) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) != 0)
            return 3;
        while (more(&done))
            acc += main_work();
        pthread_join(t, NULL);
    } else {
        fprintf(stderr, "sample_tree: unknown mode %s\n", mode);
        return 2;
    }
    printf("%lu\n", acc & 0xff);
    fflush(stdout);
    if (!strcmp(mode, "crash"))
        raise(SIGSEGV);
    return argc > 3 ? atoi(argv[3]) : 0;
}
