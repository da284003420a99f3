/* daemon PIDFILE [hang|exit]: leaves a daemon behind, as a server a benchmark
 * starts might. A child calls setsid() (leaving the process group), forks the
 * daemon, which writes its pid as a line to PIDFILE and sleeps forever; the
 * child exits, so the daemon is an orphan. The main process then exits 0
 * ("exit", the default) or sleeps forever too ("hang", for a timeout). */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: daemon PIDFILE [hang|exit]\n");
        return 2;
    }
    int ready[2];
    if (pipe(ready) < 0)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() == 0) {
            FILE *f = fopen(argv[1], "a");
            if (f) {
                fprintf(f, "%d\n", (int)getpid());
                fclose(f);
            }
            close(ready[1]);    /* the pid is written: the main process may go on */
            for (;;)
                pause();
        }
        _exit(0);
    }
    close(ready[1]);
    char c;
    while (read(ready[0], &c, 1) > 0)
        ;
    waitpid(child, NULL, 0);
    if (argc > 2 && !strcmp(argv[2], "hang"))
        for (;;)
            pause();
    return 0;
}
