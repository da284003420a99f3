/* harness/revisions.c — see revisions.h. */
#include "harness/revisions.h"
#include "harness/store.h"
#include "harness/spawn.h"
#include "harness/stacks.h"
#include "util/error.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP || flag == FTW_D)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

int pg_remove_tree(const char *path)
{
    if (access(path, F_OK) != 0)
        return 0;
    if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
        return pg_error_errno(PG_EIO, "cannot remove %s", path);
    return 0;
}

typedef struct side {
    const char *commit;
    char dir[PATH_MAX];
    pg_benchset set;
    cJSON *doc;
    pg_stacks *stacks;              /* --sample: this revision's stacks, beside its results */
    char stacks_dir[PATH_MAX * 2];
} side;

/* Stacks go where `perfgate run --sample` puts them: stacks/<commit>/<machine>/<run id>
 * under the store root, referenced relative to it from the run document. */
static int open_stacks(side *s, const pg_session *sess, const pg_run_opts *ro, const char *store_root)
{
    char runid[64], rel[PATH_MAX];
    snprintf(runid, sizeof runid, "%s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s->doc, "id")));
    for (char *p = runid; *p; p++)
        if (*p == ':')
            *p = '-';
    snprintf(rel, sizeof rel, "stacks/%s/%s/%s", s->commit, sess->machine.id, runid);
    snprintf(s->stacks_dir, sizeof s->stacks_dir, "%s/%s", store_root, rel);
    return pg_stacks_new(&s->stacks, sess->backend, ro->sample_freq, s->stacks_dir, rel);
}

int pg_revisions_measure(pg_repo *repo, const char *const *commits, size_t n, const char *bench_path,
                         pg_session *sess, const pg_run_opts *ro, const char *store_root)
{
    side *sides = calloc(n, sizeof *sides);
    if (!sides)
        return pg_error_set(PG_ENOMEM, "out of memory");
    const char *tmp = getenv("TMPDIR");
    int rc = 0;
    int valgrind = pg_meter_backend(sess->meter) == PG_BACKEND_VALGRIND;
    pg_spawn_install_sigint();

    /* Export and build every revision before measuring any: a build failure
     * should cost no measuring time. */
    for (size_t i = 0; i < n && rc == 0; i++) {
        side *s = &sides[i];
        s->commit = commits[i];
        pg_benchset_init(&s->set);
        snprintf(s->dir, sizeof s->dir, "%s/perfgate-rev-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(s->dir)) {
            rc = pg_error_errno(PG_EIO, "cannot create a temporary directory for %.12s", s->commit);
            s->dir[0] = '\0';
            break;
        }
        fprintf(stderr, "perfgate: measuring %.12s (no stored results): checking out into %s\n", s->commit, s->dir);
        if ((rc = pg_repo_export(repo, s->commit, s->dir)) < 0)
            break;
        char bp[PATH_MAX + 64];
        snprintf(bp, sizeof bp, "%s/%s", s->dir, bench_path);
        if ((rc = pg_bench_discover(&s->set, bp)) < 0) {
            pg_error_wrap(rc, "revision %.12s", s->commit);
            break;
        }
        if (s->set.build && (rc = pg_session_build(s->set.build, s->dir)) < 0) {
            pg_error_wrap(rc, "revision %.12s", s->commit);
            break;
        }
        s->doc = pg_session_new_doc(sess, s->commit, 0, ro->cpu);
        if (ro->sample && (rc = open_stacks(s, sess, ro, store_root)) < 0)
            break;
    }

    int rounds = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        for (size_t b = 0; b < sides[i].set.n; b++) {
            int r = pg_runner_repeat(&sides[i].set, b, ro, valgrind);
            rounds = r > rounds ? r : rounds;
        }
    pg_run_opts o = *ro;
    o.out = NULL;
    int nfailed = 0;
    for (int k = 0; k < rounds && rc == 0; k++) {
        for (size_t i = 0; i < n && rc == 0; i++) {
            cJSON *round = cJSON_CreateArray();
            o.round = k;
            o.stacks = sides[i].stacks;
            int nf = 0;
            rc = pg_runner_run(round, &nf, &sides[i].set, sess->meter, &o);
            nfailed += nf;
            pg_runner_merge(cJSON_GetObjectItemCaseSensitive(sides[i].doc, "benchmarks"), round);
            cJSON_Delete(round);
        }
    }
    int stored = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        pg_session_finish_doc(sess, sides[i].doc);
        char path[PATH_MAX + 64];
        rc = pg_store_append(path, sizeof path, store_root, sides[i].commit, sess->machine.id, sides[i].doc);
        if (rc == 0) {
            stored++;
            fprintf(stderr, "perfgate: stored %.12s: %s\n", sides[i].commit, path);
        }
    }
    if (rc == PG_EINTR)
        pg_error_set(PG_EINTR, "interrupted; nothing was stored");
    for (size_t i = 0; i < n; i++) {
        if (sides[i].dir[0])
            pg_remove_tree(sides[i].dir);
        pg_stacks_free(sides[i].stacks);
        if ((int)i >= stored && sides[i].stacks_dir[0])
            pg_remove_tree(sides[i].stacks_dir);    /* not stored: its stacks go too */
        pg_benchset_free(&sides[i].set);
        cJSON_Delete(sides[i].doc);
    }
    free(sides);
    if (rc == 0 && nfailed)
        fprintf(stderr, "perfgate: %d benchmark run%s failed while measuring (see the comparison)\n", nfailed, nfailed == 1 ? "" : "s");
    return rc;
}
