/* tests/progs/heap.c — a program whose heap is known exactly
 * (tests/e2e/heap_dhat.sh): churn() allocates 10 blocks of 1000 bytes, each
 * freed before the next; hold() then keeps 3 blocks of 5000 bytes live at
 * once: the peak, 15000 bytes, reached once. With an argument N, extra()
 * first allocates N more blocks of 100 bytes, each freed at once (a commit
 * that adds allocations in one function). It prints nothing: stdio's own
 * buffer would be one more block. */
#include <stdlib.h>
#include <string.h>

static void *volatile sink;     /* escapes: the compiler keeps every malloc */
static void *keep[3];

__attribute__((noinline)) static void churn(void)
{
    for (int i = 0; i < 10; i++) {
        sink = malloc(1000);
        memset(sink, i, 1000);
        free(sink);
    }
}

__attribute__((noinline)) static void hold(void)
{
    for (int i = 0; i < 3; i++) {
        keep[i] = malloc(5000);
        memset(keep[i], i, 5000);
        sink = keep[i];
    }
}

__attribute__((noinline)) static void extra(int n)
{
    for (int i = 0; i < n; i++) {
        sink = malloc(100);
        free(sink);
    }
}

int main(int argc, char **argv)
{
    extra(argc > 1 ? atoi(argv[1]) : 0);
    churn();
    hold();
    for (int i = 0; i < 3; i++)
        free(keep[i]);
    return 0;
}
