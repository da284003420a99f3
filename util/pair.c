/* util/pair.c — see pair.h. */
#include "util/pair.h"
#include "util/error.h"

#include <pthread.h>
#include <stdio.h>

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

static int serial;

void pg_pair_serial(int on) { serial = on; }

int pg_pair_run(pg_pair_fn fn, void *a, void *b, int parallel)
{
    pthread_t t;
    job jb = {.fn = fn, .arg = b};
    if (!parallel || serial || pthread_create(&t, NULL, job_main, &jb)) {
        int rc = fn(a);
        return rc < 0 ? rc : fn(b);
    }
    int rc = fn(a);
    pthread_join(t, NULL);
    if (rc == 0 && jb.rc < 0)
        rc = pg_error_set(jb.rc, "%s", jb.err);
    return rc;
}
