/* harness/stacks.c — see stacks.h. */
#include "harness/stacks.h"
#include "counters/callgrind.h"
#include "harness/sample_run.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/folded.h"

#include <dirent.h>
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
    char tmp[PATH_MAX];       /* valgrind: callgrind's output directory */
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
    int rc = 0;
    if (backend == PG_BACKEND_VALGRIND) {
        const char *t = getenv("TMPDIR");
        snprintf(s->tmp, sizeof s->tmp, "%s/perfgate-cg-XXXXXX", t && *t ? t : "/tmp");
        if ((rc = pg_valgrind_new(&s->vg)) == 0 && !mkdtemp(s->tmp))
            rc = pg_error_errno(PG_EIO, "cannot create a temporary directory %s", s->tmp);
        if (rc < 0)
            s->tmp[0] = '\0';
    }
    if (rc < 0) {
        pg_stacks_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

void pg_stacks_free(pg_stacks *s)
{
    if (!s)
        return;
    if (s->tmp[0]) {
        /* Left-overs of a failed run. */
        DIR *d = opendir(s->tmp);
        struct dirent *e;
        char p[PATH_MAX + 256];
        while (d && (e = readdir(d)))
            if (e->d_name[0] != '.') {
                snprintf(p, sizeof p, "%s/%s", s->tmp, e->d_name);
                unlink(p);
            }
        if (d)
            closedir(d);
        rmdir(s->tmp);
    }
    pg_valgrind_free(s->vg);
    free(s);
}

const char *pg_stacks_note(const pg_stacks *s)
{
    return s->backend == PG_BACKEND_VALGRIND ? PG_CALLGRIND_NOTE : "";
}

/* A benchmark name as a file name: no directories, nothing a shell trips on. */
static void file_name(char *out, size_t len, const char *name)
{
    size_t i = 0;
    for (; name[i] && i + 1 < len; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        out[i] = ok ? c : '_';
    }
    out[i] = '\0';
    if (out[0] == '.')
        out[0] = '_';
}

static int record_valgrind(pg_stacks *s, pg_folded *f, pg_spawn_opts *so, int *failed)
{
    char **argv = NULL;
    int rc = pg_callgrind_wrap(s->vg, &argv, so->argv, s->tmp);
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
    } else if (!res.started || res.signal || res.timed_out || res.exit_code) {
        *failed = 1;
        pg_error_set(PG_ERROR, "the stacks run failed (%s)",
                     res.timed_out ? "timeout" : res.signal ? "killed by a signal" : "non-zero exit");
    } else if (pg_callgrind_collect(f, s->tmp) < 0) {
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
    } else if (rc == 0 && (!res.started || res.signal || res.timed_out || res.exit_code)) {
        *failed = 1;
        pg_error_set(PG_ERROR, "the stacks run failed (%s)",
                     res.timed_out ? "timeout" : res.signal ? "killed by a signal" : "non-zero exit");
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
        file_name(fname, sizeof fname, name);
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
