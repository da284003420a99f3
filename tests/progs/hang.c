/* hang: sleeps forever (a child too, so the whole process group must be killed). */
#include <unistd.h>

int main(void)
{
    if (fork() == 0)
        for (;;)
            pause();
    for (;;)
        pause();
}
