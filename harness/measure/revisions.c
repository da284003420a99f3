/* harness/measure/revisions.c — see revisions.h. */
#include "harness/measure/revisions.h"
#include "harness/measure/build.h"
#include "harness/measure/gbench_list.h"
#include "harness/measure/canon.h"
#include "harness/store/leftovers.h"
#include "harness/store/notes.h"
#include "harness/store/notes_record.h"
#include "harness/store/results.h"
#include "harness/store/store.h"
#include "harness/measure/spawn.h"
#include "harness/measure/stacks.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/owned_dir.h"
#include "util/text.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct side {
    const char *commit;
    pg_owned_dir dir;               /* the checkout: a killed perfgate's is swept by the next */
    pg_benchset set;
    pg_rundoc doc;
    pg_stacks *stacks;              /* --sample: this revision's stacks, beside its results */
    pg_owned_dir logs;              /* this revision's run's logs, in the store */
    char stacks_dir[PATH_MAX * 2];
} side;


int pg_revisions_measure(pg_repo *repo, const char *const *commits, size_t n, const char *bench_path,
                         const char *worktree, pg_session *sess, const pg_run_opts *ro, const char *store_root,
                         int notes, const char *const *only, size_t nonly)
{
    side *sides = calloc(n, sizeof *sides);
    if (!sides)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        pg_owned_init(&sides[i].dir);
        pg_owned_init(&sides[i].logs);
    }
    int rc = 0;
    const pg_backend_props *props = sess->props;
    pg_spawn_install_sigint();

    /* Export and build every revision before measuring any: a build failure
     * should cost no measuring time. */
    for (size_t i = 0; i < n && rc == 0; i++) {
        side *s = &sides[i];
        s->commit = commits[i];
        pg_benchset_init(&s->set);
        /* A store that cannot take the results fails before any measuring. */
        if ((rc = pg_store_check(store_root, s->commit, sess->machine.id)) < 0)
            break;
        /* As long a path as the work tree's: what a program reads of its own
         * path (static glibc does at start-up) is then as long too. */
        char wt[PATH_MAX];
        int matched = 1;
        size_t want = worktree && realpath(worktree, wt) ? strlen(wt) : 0;
        if ((rc = pg_owned_mkdtemp_len(&s->dir, &matched, "perfgate-rev-", want)) < 0) {
            pg_error_wrap(rc, "revision %.12s", s->commit);
            break;
        }
        if (want && !matched && i == 0 && !pg_canon_tree_ready())
            pg_text_warn("note: the checkout's path (%zu characters) is longer than the work tree's (%zu): a program "
                         "that reads its own path may count a few instructions more there; a shorter TMPDIR avoids it "
                         "(docs/metrics.md, \"The execution context\")", strlen(s->dir.path), want);
        fprintf(stderr, "perfgate: measuring %.12s (%s): checking out into %s\n", s->commit,
                only ? "again, to confirm" : "no stored results, or none with stacks", s->dir.path);
        if ((rc = pg_repo_export(repo, s->commit, s->dir.path)) < 0)
            break;
        char bp[PATH_MAX + 64];
        snprintf(bp, sizeof bp, "%s/%s", s->dir.path, bench_path);
        /* A bare repository has no tree of today: a relative path is the revision's own. */
        pg_bench_place at = {.worktree = worktree ? worktree : s->dir.path, .root = s->dir.path};
        if ((rc = pg_bench_discover(&s->set, worktree || bench_path[0] == '/' ? bench_path : bp, &at)) < 0) {
            pg_error_wrap(rc, "revision %.12s", s->commit);
            break;
        }
        char log[PATH_MAX];
        snprintf(log, sizeof log, "%s/logs/%s/build.log", store_root, s->commit);
        pg_build b = {.cmd = s->set.build, .dir = s->dir.path, .timeout = pg_build_timeout(ro->build_timeout,
                      s->set.build_timeout), .log = log};
        if ((s->set.build && (rc = pg_build_run(&b)) < 0) ||
            (rc = pg_benchset_expand(&s->set)) < 0) {
            pg_error_wrap(rc, "revision %.12s", s->commit);
            break;
        }
        if (only)   /* after the expansion: a suite's benchmarks are named only then */
            pg_benchset_keep_named(&s->set, only, nonly);
        if ((rc = pg_session_new_doc(&s->doc, sess, s->commit, 0, ro->cpu)) < 0 ||
            (rc = pg_store_logs_open(&s->logs, store_root, s->commit, sess->machine.id, s->doc.id)) < 0)
            break;
        if (ro->sample &&
            (rc = pg_stacks_new_in_store(&s->stacks, s->stacks_dir, sizeof s->stacks_dir, sess->backend, ro->sample_freq,
                                         store_root, s->commit, sess->machine.id,
                                         s->doc.id)) < 0)
            break;
    }

    int rounds = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        for (size_t b = 0; b < sides[i].set.n; b++) {
            int r = pg_runner_rounds(&sides[i].set, b, ro, props);
            rounds = r > rounds ? r : rounds;
        }
    pg_run_opts o = *ro;
    o.out = NULL;
    int nfailed = 0;
    for (int k = 0; k < rounds && rc == 0; k++) {
        for (size_t i = 0; i < n && rc == 0; i++) {
            pg_rundoc round = {0};
            o.round = k;
            o.stacks = sides[i].stacks;
            o.log_dir = sides[i].logs.path;
            o.tree = sides[i].dir.path;
            int nf = 0;
            rc = pg_runner_run(&round, &nf, &sides[i].set, sess->meter, &o);
            nfailed += nf;
            int mrc = pg_runner_merge(&sides[i].doc, &round);
            rc = rc < 0 ? rc : mrc;
            pg_rundoc_free(&round);
        }
    }
    int stored = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char path[PATH_MAX + 64];
        rc = pg_session_finish_doc(sess, &sides[i].doc);
        if (rc == 0)
            rc = pg_store_append(path, sizeof path, store_root, sides[i].commit, sess->machine.id, &sides[i].doc);
        if (rc == 0) {
            stored++;
            pg_stacks_keep(sides[i].stacks);
            pg_owned_release(&sides[i].logs, 0);
            fprintf(stderr, "perfgate: stored %.12s: %s\n", sides[i].commit, path);
            if (notes)
                pg_notes_record(repo, &sides[i].doc, store_root, notes == PG_NOTES_WITH_STACKS);
        }
    }
    if (rc == PG_EINTR)
        pg_error_set(PG_EINTR, "interrupted; nothing was stored");
    for (size_t i = 0; i < n; i++) {
        pg_owned_release(&sides[i].dir, 1);
        pg_owned_release(&sides[i].logs, 1);    /* not stored: its logs go too */
        pg_stacks_free(sides[i].stacks);    /* not stored: its stacks go too */
        pg_benchset_free(&sides[i].set);
        pg_rundoc_free(&sides[i].doc);
    }
    free(sides);
    if (rc == 0 && nfailed)
        fprintf(stderr, "perfgate: %d benchmark run%s failed while measuring (see the comparison)\n", nfailed, nfailed == 1 ? "" : "s");
    return rc;
}

/* A run of `machine_id` measured by `backend` is stored for `commit`. */
static int has_stored_run(int *yes, const char *store_root, pg_repo *repo, const char *commit, const char *machine_id,
                          const char *backend)
{
    pg_rundoc_list runs = {0};
    *yes = 0;
    int rc = pg_results_load(&runs, store_root, repo, commit);
    if (rc == PG_ENOTFOUND) {
        pg_error_clear();
        rc = 0;
    }
    for (size_t i = 0; i < runs.n && !*yes; i++)
        *yes = !strcmp(runs.v[i].machine.id, machine_id) && !strcmp(runs.v[i].backend, backend);
    pg_rundoc_list_free(&runs);
    return rc;
}

int pg_revisions_measure_missing(size_t *measured, pg_repo *repo, const char *const *commits, size_t n,
                                 const char *bench_path, const char *worktree, pg_session *sess,
                                 const pg_run_opts *ro, const char *store_root, int notes)
{
    *measured = 0;
    const char **todo = calloc(n ? n : 1, sizeof *todo);
    if (!todo)
        return pg_error_set(PG_ENOMEM, "out of memory");
    int rc = 0;
    size_t k = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int dup = 0, stored = 0;
        for (size_t j = 0; j < k && !dup; j++)
            dup = !strcmp(todo[j], commits[i]);
        if (!dup)
            rc = has_stored_run(&stored, store_root, repo, commits[i], sess->machine.id, pg_backend_name(sess->backend));
        if (rc == 0 && !dup && !stored)
            todo[k++] = commits[i];
    }
    if (rc == 0 && k > 0) {
        pg_leftovers_sweep(store_root);   /* what a killed perfgate left */
        rc = pg_revisions_measure(repo, todo, k, bench_path, worktree, sess, ro, store_root, notes, NULL, 0);
        if (rc == 0)
            *measured = k;
    }
    free(todo);
    return rc;
}
