/* harness/stacks.c — see stacks.h. */
#include "harness/stacks.h"
#include "counters/callgrind.h"
#include "harness/sample_run.h"
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
    pg_backend_kind backend;
    unsigned long freq;
    char dir[PATH_MAX];
    char rel[PATH_MAX];
    pg_valgrind *vg;
    pg_owned_dir tmp;         /* valgrind: callgrind's output directory */
    pg_owned_dir in_store;    /* the store's directory, owned until the run is stored */
};

int pg_stacks_new(pg_stacks **out, pg_backend_kind backend, unsigned long freq, const char *dir, const char *rel)
{
    pg_stacks *s = calloc(1, sizeof *s);
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory");
    s->backend = backend;
    s->freq = freq;
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    snprintf(s->rel, sizeof s->rel, "%s", rel);
    pg_owned_init(&s->tmp);
    pg_owned_init(&s->in_store);
    int rc = 0;
    if (backend == PG_BACKEND_VALGRIND) {
        if ((rc = pg_valgrind_new(&s->vg)) == 0)
            rc = pg_owned_mkdtemp(&s->tmp, "perfgate-cg-");
    }
    if (rc < 0) {
        pg_stacks_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int pg_stacks_new_in_store(pg_stacks **out, char *dir, size_t dirlen, pg_backend_kind backend, unsigned long freq,
                           const char *store_root, const char *commit, const char *machine_id, const char *run_id)
{
    char rel[PATH_MAX];
    int n = snprintf(rel, sizeof rel, "stacks/%s/%s/", commit ? commit : "nocommit", machine_id);
    /* The run id is an ISO time: its ':' would trouble CI artifact uploads. */
    for (const char *p = run_id; *p && (size_t)n + 1 < sizeof rel; p++)
        rel[n++] = *p == ':' ? '-' : *p;
    rel[n] = '\0';
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
    pg_owned_release(&s->tmp, 1);       /* with the left-overs of a failed run */
    pg_owned_release(&s->in_store, 1);  /* still owned: the run was not stored */
    pg_valgrind_free(s->vg);
    free(s);
}

const char *pg_stacks_note(const pg_stacks *s)
{
    return s->backend == PG_BACKEND_VALGRIND ? PG_CALLGRIND_NOTE : "";
}

/* The stacks run's failure, or NULL when it ran to a clean exit. */
static const char *run_failure(const pg_spawn_result *res)
{
    if (res->timed_out)
        return "timeout";
    if (res->signal)
        return "killed by a signal";
    return !res->started || res->exit_code ? "non-zero exit" : NULL;
}

static int record_valgrind(pg_stacks *s, pg_folded *f, pg_spawn_opts *so, int *failed)
{
    char **argv = NULL;
    int rc = pg_callgrind_wrap(s->vg, &argv, so->argv, s->tmp.path);
    if (rc < 0)
        return rc;
    char *const *bare = so->argv;
    so->argv = argv;
    pg_spawn_result res;
    rc = pg_spawn_run(&res, so);
    so->argv = bare;
    pg_valgrind_argv_free(argv);
    if (rc < 0)
        return rc;
    if (res.interrupted) {
        rc = pg_error_set(PG_EINTR, "interrupted");
    } else if (run_failure(&res)) {
        *failed = 1;
        pg_error_set(PG_ERROR, "the stacks run failed (%s)", run_failure(&res));
    } else if (pg_callgrind_collect(f, s->tmp.path) < 0) {
        *failed = 1;
    }
    pg_spawn_result_free(&res);
    return rc;
}

/* perf backend: perf_event sampling with DWARF unwinding (harness/sample_run.h). */
static int record_perf(pg_stacks *s, pg_folded *f, pg_spawn_opts *so, int *failed)
{
    pg_sampler_opts sopt = {.freq = s->freq, .callgraph = PG_CALLGRAPH_DWARF};
    pg_sample_result sr;
    pg_spawn_result res;
    int rc = pg_sample_run(f, &sr, &res, so, &sopt);
    if (rc < 0 && !res.started) {
        /* Sampling not allowed here (perf_event_paranoid): this benchmark has no stacks,
         * the run goes on. */
        *failed = 1;
        rc = 0;
    } else if (res.interrupted) {
        rc = pg_error_set(PG_EINTR, "interrupted");
    } else if (rc == 0 && run_failure(&res)) {
        *failed = 1;
        pg_error_set(PG_ERROR, "the stacks run failed (%s)", run_failure(&res));
    } else if (rc == 0 && pg_folded_total(f) == 0) {
        *failed = 1;
        pg_error_set(PG_ERROR, "no samples in %.0f ms at %lu Hz", res.wall_ns / 1e6, s->freq);
    }
    pg_spawn_result_free(&res);
    return rc;
}

int pg_stacks_record(pg_stacks *s, cJSON *bench, const char *name, pg_spawn_opts *so, int *failed)
{
    *failed = 0;
    pg_folded *f = NULL;
    int rc = pg_folded_new(&f);
    if (rc < 0)
        return rc;
    if (s->backend == PG_BACKEND_VALGRIND) {
        rc = record_valgrind(s, f, so, failed);
    } else {
        rc = record_perf(s, f, so, failed);
    }
    if (rc == 0 && !*failed) {
        char fname[256], path[PATH_MAX + 300], rel[PATH_MAX + 300];
        pg_path_safe_name(fname, sizeof fname, name);
        snprintf(path, sizeof path, "%s/%s.folded", s->dir, fname);
        snprintf(rel, sizeof rel, "%s/%s.folded", s->rel, fname);
        if ((rc = pg_mkdirs(s->dir)) == 0 && (rc = pg_folded_write_file(f, path)) == 0) {
            cJSON_AddStringToObject(bench, "stacks", rel);
            cJSON_AddStringToObject(bench, "stacks_weight", s->backend == PG_BACKEND_VALGRIND ? "instructions" : "samples");
            if (*pg_stacks_note(s))
                cJSON_AddStringToObject(bench, "stacks_note", pg_stacks_note(s));
        }
    }
    pg_folded_free(f);
    return rc;
}
