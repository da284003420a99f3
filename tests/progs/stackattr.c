/* Asks for the main thread's stack, as glibc's pthread_getattr_np answers
 * it: by reading /proc/self/maps line by line, whose lines hold the
 * executable's absolute path. So its count depends on that path's length
 * (harness/measure/canon.h); tests/e2e/canon_paths.sh measures it from
 * directories of several lengths. With PG_WHERE_LOG set, it writes there
 * what it saw of its own path and working directory. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    pthread_attr_t a;
    void *addr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0 || pthread_attr_getstack(&a, &addr, &size) != 0)
        return 1;
    pthread_attr_destroy(&a);
    printf("%s\n", size > 0 ? "stack found" : "no stack");
    const char *log = getenv("PG_WHERE_LOG");
    char exe[4096], cwd[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    FILE *f;
    if (log && n > 0 && getcwd(cwd, sizeof cwd) && (f = fopen(log, "w"))) {
        exe[n] = '\0';
        fprintf(f, "exe %s\ncwd %s\n", exe, cwd);
        fclose(f);
    }
    return 0;
}
