/* harness/measure/stacks.c — see stacks.h. */
#include "harness/measure/stacks.h"
#include "counters/funclines.h"
#include "harness/store/store.h"
#include "harness/measure/sample_run.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/folded.h"
#include "util/owned_dir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pg_stacks {
    pg_stackrec *rec;
    unsigned long freq;
    char dir[PATH_MAX];
    char rel[PATH_MAX];
    pg_owned_dir in_store;    /* the store's directory, owned until the run is stored */
    char last_exe[PATH_MAX];  /* the program of the last function table written, and where: */
    char last_lines[PATH_MAX + 300];    /* benchmarks of one program share it (a hard link) */
};

int pg_stacks_new(pg_stacks **out, pg_backend_kind backend, unsigned long freq, const char *dir, const char *rel)
{
    pg_stacks *s = calloc(1, sizeof *s);
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory");
    s->freq = freq;
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    snprintf(s->rel, sizeof s->rel, "%s", rel);
    pg_owned_init(&s->in_store);
    pg_stackrec_opts ro = {.backend = backend, .sampler = {.freq = freq, .callgraph = PG_CALLGRAPH_DWARF, .pinned_cpu = -1}};
    int rc = pg_stackrec_new(&s->rec, &ro);
    if (rc < 0) {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int pg_stacks_new_in_store(pg_stacks **out, char *dir, size_t dirlen, pg_backend_kind backend, unsigned long freq,
                           const char *store_root, const char *commit, const char *machine_id, const char *run_id)
{
    char rel[PATH_MAX];
    pg_store_run_path(rel, sizeof rel, "stacks", commit, machine_id, run_id);
    snprintf(dir, dirlen, "%s/%s", store_root, rel);
    int rc = pg_stacks_new(out, backend, freq, dir, rel);
    /* Made now, with its owner's lock: should perfgate be killed before the
     * run is stored, the next run knows this directory for a leftover. */
    if (rc == 0 && (rc = pg_owned_mkdir(&(*out)->in_store, dir)) < 0) {
        pg_stacks_free(*out);
        *out = NULL;
    }
    return rc;
}

void pg_stacks_keep(pg_stacks *s)
{
    if (!s || !s->in_store.path[0])
        return;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", s->in_store.path);
    pg_owned_release(&s->in_store, 0);
    rmdir(dir);     /* only when no benchmark had stacks: nothing to keep */
}

void pg_stacks_free(pg_stacks *s)
{
    if (!s)
        return;
    pg_stackrec_free(s->rec);
    pg_owned_release(&s->in_store, 1);  /* still owned: the run was not stored */
    free(s);
}

const char *pg_stacks_note(const pg_stacks *s) { return pg_stackrec_note(s->rec); }

/* The stacks run's failure, or NULL when it ran to a clean exit. */
static const char *run_failure(const pg_spawn_result *res)
{
    if (res->timed_out)
        return "timeout";
    if (res->signal)
        return "killed by a signal";
    return !res->started || res->exit_code ? "non-zero exit" : NULL;
}

/* One recorded run into `f`. A benchmark without stacks is not an error:
 * *failed is set with why in pg_error_last(). */
static int record(pg_stacks *s, pg_folded *f, pg_spawn_opts *so, double *iterations, int *failed)
{
    pg_sample_result sr;
    pg_spawn_result res;
    int rc = pg_stackrec_run(s->rec, f, &sr, &res, so);
    *iterations = sr.iterations;
    if (res.interrupted) {
        rc = pg_error_set(PG_EINTR, "interrupted");
    } else if (rc < 0 && !res.started) {
        /* Recording not allowed here (perf_event_paranoid): this benchmark has
         * no stacks, the run goes on. */
        *failed = 1;
        rc = 0;
    } else if (run_failure(&res)) {
        *failed = 1;
        pg_error_set(PG_ERROR, "the stacks run failed (%s)", run_failure(&res));
        rc = 0;
    } else if (rc < 0) {
        *failed = 1;    /* the stacks could not be built; why is in pg_error_last() */
        rc = 0;
    } else if (pg_folded_total(f) == 0) {
        *failed = 1;
        pg_error_set(PG_ERROR, "no samples in %.0f ms at %lu Hz", res.wall_ns / 1e6, s->freq);
    }
    pg_spawn_result_free(&res);
    return rc;
}

/* What the stacks are, for subtitles and the function table: a Google
 * Benchmark's are its timed region's, per iteration (valgrind), or the
 * whole process's (perf: no iteration count to divide by). */
static int set_note(pg_rundoc_bench *bench, const pg_stacks *s, int timed, double iterations)
{
    char note[600];
    const char *base = pg_stacks_note(s);
    bench->stacks_iterations = iterations;
    if (timed && iterations > 0)
        snprintf(note, sizeof note, "%s%sthe timed region only, %.0f iterations", base, *base ? "; " : "", iterations);
    else if (timed)
        snprintf(note, sizeof note, "%s%sthe whole process, set-up included: not per iteration like the headline",
                 base, *base ? "; " : "");
    else
        snprintf(note, sizeof note, "%s", base);
    return *note ? pg_rundoc_set(&bench->stacks_note, note) : 0;
}

/* The program `so` runs, when it is a file of the tree (a program found in
 * PATH is not the code under test): its path into exe. */
static int program_in_tree(char exe[PATH_MAX], const pg_spawn_opts *so)
{
    const char *a0 = so->argv[0];
    char path[PATH_MAX * 2], tree[PATH_MAX];
    if (!so->tree || !strchr(a0, '/') || !realpath(so->tree, tree))
        return 0;
    if (a0[0] != '/' && so->cwd)
        snprintf(path, sizeof path, "%s/%s", so->cwd, a0);     /* as the runner resolves it */
    else
        snprintf(path, sizeof path, "%s", a0);
    size_t n = strlen(tree);
    return realpath(path, exe) && !strncmp(exe, tree, n) && exe[n] == '/';
}

/* Beside a benchmark's stacks, `path`: its program's functions and their
 * lines (counters/funclines.h), for compare's coverage of a change. Not
 * written for a program outside the tree; written once per program. */
static int write_funclines(pg_stacks *s, const char *path, const pg_spawn_opts *so)
{
    char exe[PATH_MAX];
    if (!program_in_tree(exe, so))
        return 0;
    if (!strcmp(exe, s->last_exe) && link(s->last_lines, path) == 0)
        return 0;
    int rc = pg_funclines_write(exe, so->tree, path);
    if (rc == 0) {
        snprintf(s->last_exe, sizeof s->last_exe, "%s", exe);
        snprintf(s->last_lines, sizeof s->last_lines, "%s", path);
    }
    return rc;
}

int pg_stacks_record(pg_stacks *s, pg_rundoc_bench *bench, const char *name, pg_spawn_opts *so, int timed,
                     int *failed)
{
    *failed = 0;
    pg_folded *f = NULL;
    double iterations = 0;
    int rc = pg_folded_new(&f);
    if (rc < 0)
        return rc;
    pg_stackrec_timed(s->rec, timed);
    pg_spawn_opts as_is = *so;
    as_is.tree = NULL;      /* the sampler reads the program's files by the paths it maps */
    rc = record(s, f, &as_is, &iterations, failed);
    if (rc == 0 && !*failed) {
        char fname[PG_SAFE_NAME_SIZE], path[PATH_MAX + 300], rel[PATH_MAX + 300];
        pg_path_safe_name(fname, name);
        snprintf(path, sizeof path, "%s/%s.folded", s->dir, fname);
        snprintf(rel, sizeof rel, "%s/%s.folded", s->rel, fname);
        if ((rc = pg_mkdirs(s->dir)) == 0 && (rc = pg_folded_write_file(f, path)) == 0 &&
            (rc = pg_rundoc_set(&bench->stacks, rel)) == 0 &&
            (rc = pg_rundoc_set(&bench->stacks_weight, pg_stackrec_weight(s->rec))) == 0 &&
            (rc = set_note(bench, s, timed, iterations)) == 0) {
            snprintf(path, sizeof path, "%s/%s.funclines.json", s->dir, fname);
            rc = write_funclines(s, path, so);
        }
    }
    pg_folded_free(f);
    return rc;
}
