/* fail3: prints a diagnostic and exits with status 3. */
#include <stdio.h>

int main(void)
{
    fprintf(stderr, "fail3: input file missing\n");
    return 3;
}
