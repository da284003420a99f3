/* crash: writes a line to stderr, then dies of SIGSEGV. */
#include <signal.h>
#include <stdio.h>

int main(void)
{
    fprintf(stderr, "about to crash\n");
    fflush(stderr);
    raise(SIGSEGV);
    return 0;
}
