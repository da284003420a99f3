/* util/pair.c — see pair.h. */
#include "util/pair.h"
#include "util/error.h"

#include <pthread.h>
#include <stdio.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

typedef struct job {
    pg_pair_fn fn;
    void *arg;
    int rc;
    char err[1024];
} job;

static void *job_main(void *p)
{
    job *j = p;
    if ((j->rc = j->fn(j->arg)) < 0)
        snprintf(j->err, sizeof j->err, "%s", pg_error_last());
    return NULL;
}

int pg_pair_run(pg_pair_fn fn, void *a, void *b, int parallel)
{
    pthread_t t;
    job jb = {.fn = fn, .arg = b};
    if (!parallel || RUNNING_ON_VALGRIND || pthread_create(&t, NULL, job_main, &jb)) {
        int rc = fn(a);
        return rc < 0 ? rc : fn(b);
    }
    int rc = fn(a);
    pthread_join(t, NULL);
    if (rc == 0 && jb.rc < 0)
        rc = pg_error_set(jb.rc, "%s", jb.err);
    return rc;
}
