/* harness/store/gitfacts.c — see gitfacts.h. */
#include "harness/store/gitfacts.h"
#include "util/error.h"
#include "util/forksafe.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pg_repo_facts {
    pthread_t thread;
    int threaded;           /* 0: found by pg_repo_facts_start itself */
    char path[PATH_MAX];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int head_known;         /* under mu: the fields below it are set */
    int rc;                 /* pg_repo_open's */
    char err[1024];         /* and its message */
    pg_repo *repo;          /* until handed over */
    int have_commit;
    char commit[PG_OID_HEXSZ + 1];
    char workdir[PATH_MAX]; /* "" for a bare repository: nothing to walk */
    atomic_int walked;
    int dirty;              /* once walked */
};

/* The repository and HEAD, then the walk, on a repository object of its own
 * (the caller may be using the first one by then). */
static void *facts_main(void *arg)
{
    pg_repo_facts *f = arg;
    pg_forksafe_busy_begin();       /* libgit2 and the loader: see util/forksafe.h */
    int rc = pg_repo_open(&f->repo, f->path);
    if (rc < 0)
        snprintf(f->err, sizeof f->err, "%s", pg_error_last());
    else if (pg_repo_workdir(f->repo))
        snprintf(f->workdir, sizeof f->workdir, "%s", pg_repo_workdir(f->repo));
    int have = rc == 0 && pg_repo_head_commit(f->commit, f->repo) == 0;
    pg_error_clear();
    pthread_mutex_lock(&f->mu);
    f->rc = rc;
    f->have_commit = have;
    f->head_known = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    pg_repo *w = NULL;
    char again[PG_OID_HEXSZ + 1];
    int dirty = 0;
    if (have && f->workdir[0] && pg_repo_open(&w, f->workdir) == 0)
        pg_repo_head(again, &dirty, w);
    pg_repo_free(w);
    pg_error_clear();
    f->dirty = dirty;
    pg_forksafe_busy_end();
    atomic_store(&f->walked, 1);
    return NULL;
}

int pg_repo_facts_start(pg_repo_facts **out, const char *path)
{
    pg_repo_facts *f = calloc(1, sizeof *f);
    *out = f;
    if (!f)
        return pg_error_set(PG_ENOMEM, "out of memory");
    snprintf(f->path, sizeof f->path, "%s", path);
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    f->threaded = pthread_create(&f->thread, NULL, facts_main, f) == 0;
    if (!f->threaded)
        facts_main(f);
    return 0;
}

static void wait_head(pg_repo_facts *f)
{
    pthread_mutex_lock(&f->mu);
    while (!f->head_known)
        pthread_cond_wait(&f->cv, &f->mu);
    pthread_mutex_unlock(&f->mu);
}

int pg_repo_facts_repo(pg_repo **out, pg_repo_facts *f)
{
    wait_head(f);
    *out = f->repo;
    f->repo = NULL;
    return f->rc < 0 ? pg_error_set(f->rc, "%s", f->err) : 0;
}

int pg_repo_facts_commit(char out[PG_OID_HEXSZ + 1], pg_repo_facts *f)
{
    wait_head(f);
    if (f->have_commit)
        memcpy(out, f->commit, sizeof f->commit);
    return f->have_commit;
}

int pg_repo_facts_walked(pg_repo_facts *f) { return !f || atomic_load(&f->walked); }

void pg_repo_facts_avoid_cpu(pg_repo_facts *f, int cpu)
{
    cpu_set_t set;
    if (!f || !f->threaded || cpu < 0 || cpu >= CPU_SETSIZE || atomic_load(&f->walked) ||
        sched_getaffinity(0, sizeof set, &set) < 0 || !CPU_ISSET(cpu, &set) || CPU_COUNT(&set) < 2)
        return;
    CPU_CLR(cpu, &set);
    pthread_setaffinity_np(f->thread, sizeof set, &set);    /* best effort: it may be ending */
}

int pg_repo_facts_dirty(pg_repo_facts *f)
{
    if (f->threaded && !atomic_load(&f->walked)) {
        pthread_join(f->thread, NULL);
        f->threaded = 0;
    }
    return f->dirty;
}

void pg_repo_facts_free(pg_repo_facts *f)
{
    if (!f)
        return;
    if (f->threaded)
        pthread_join(f->thread, NULL);
    pg_repo_free(f->repo);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
    free(f);
}
