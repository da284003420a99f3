/* harness/measure/runner.c — the measuring loop. See runner.h. */
#include "harness/measure/runner.h"
#include "counters/control.h"
#include "counters/elfsym.h"
#include "harness/measure/canon.h"
#include "harness/measure/jobresult.h"
#include "harness/measure/jobs.h"
#include "harness/measure/reuse.h"
#include "harness/measure/spawn.h"
#include "harness/measure/stacks.h"
#include "harness/measure/table.h"
#include "report/compare.h"
#include "report/threshold.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/hash.h"
#include "util/owned_dir.h"
#include "util/text.h"

#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int pg_runner_pick_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) < 0)
        return -1;
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, &set))
            return c;
    return -1;
}

static int attach_hook(void *ctx, pid_t pid) { return pg_meter_attach(ctx, pid); }
static size_t pollfds_hook(void *ctx, int *fds, size_t max) { return pg_meter_pollfds(ctx, fds, max); }
static int readable_hook(void *ctx) { return pg_meter_readable(ctx); }

/* The value of `key` in `env` ("KEY=VALUE" entries), or NULL. */
static const char *env_get(char **env, const char *key)
{
    size_t kl = strlen(key);
    for (; env && *env; env++)
        if (!strncmp(*env, key, kl) && (*env)[kl] == '=')
            return *env + kl + 1;
    return NULL;
}

/* The manifest's functions and --count-calls', one comma list (NULL: none). */
static char *calls_of(const pg_benchset *set, const pg_bench *bench, const pg_run_opts *o)
{
    const char *own = bench->count_calls ? bench->count_calls : set->def_count_calls;
    const char *cli = o->count_calls;
    if (!own && !cli)
        return NULL;
    size_t n = (own ? strlen(own) : 0) + (cli ? strlen(cli) : 0) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s", own ? own : "", own && cli ? "," : "", cli ? cli : "");
    return s;
}

/* Tells the meter what this benchmark asks for (regions, call counts). */
static int target_meter(pg_meter *meter, const pg_benchset *set, const pg_bench *bench, const pg_run_opts *o,
                        char **env)
{
    char exe[PATH_MAX];
    const char *argv0 = bench->argv[0];
    int found = 0;
    if (strchr(argv0, '/') && bench->cwd && argv0[0] != '/') {
        found = snprintf(exe, sizeof exe, "%s/%s", bench->cwd, argv0) < (int)sizeof exe;
    } else {
        found = pg_elfsym_which(exe, argv0, env_get(env, "PATH")) == 0;
    }
    char *calls = calls_of(set, bench, o);
    pg_meter_target t = {
        .exe = found ? exe : NULL,
        .regions = bench->markers >= 0 ? bench->markers : set->def_markers,
        .calls = calls,
        .ld_library_path = env_get(env, "LD_LIBRARY_PATH"),
    };
    int rc = 0;
    if (calls && !found)
        rc = pg_error_set(PG_ENOTFOUND, "%s: not found, so its calls cannot be counted", argv0);
    else
        rc = pg_meter_set_target(meter, &t);
    free(calls);
    return rc;
}

static int pick(int cli, int bench, int manifest, int fallback)
{
    return cli >= 0 ? cli : bench >= 0 ? bench : manifest >= 0 ? manifest : fallback;
}

static int write_logs(const pg_run_opts *o, const char *name, const pg_spawn_result *r, pg_rundoc_bench *b,
                      int failed)
{
    const char *dir = o->log_dir;
    int rc = 0;
    /* Unstored logs go when the run ends unless a benchmark failed: a
     * directory and files made only to be removed cost more than a run of
     * /bin/true on a disk file system (issue 41). */
    if (o->log_lazy) {
        if (!failed)
            return 0;
        if (!o->log_lazy->path[0] && (rc = pg_owned_mkdtemp(o->log_lazy, o->log_lazy_prefix)) < 0)
            return rc;
        dir = o->log_lazy->path;
    }
    if (!dir)
        return 0;
    char p[PATH_MAX + PG_SAFE_NAME_SIZE + 16], fname[PG_SAFE_NAME_SIZE];
    pg_path_safe_name(fname, name);
    snprintf(p, sizeof p, "%s/%s.stdout", dir, fname);
    if (pg_file_write_atomic_nosync(p, r->out_log ? r->out_log : "", r->out_len) == 0)
        rc = pg_rundoc_set(&b->stdout_log, p);
    snprintf(p, sizeof p, "%s/%s.stderr", dir, fname);
    if (rc == 0 && pg_file_write_atomic_nosync(p, r->err_log ? r->err_log : "", r->err_len) == 0)
        rc = pg_rundoc_set(&b->stderr_log, p);
    return rc;
}

/* The failure of run j (measured or not) into b->failure. */
static int record_failure(pg_rundoc_bench *b, const char *why, const char *phase, int run,
                          const pg_spawn_result *res, double timeout)
{
    pg_rundoc_failure *f = &b->failure;
    b->failed = 1;
    f->run = run;
    if (res->timed_out)
        f->timeout = timeout;
    else if (res->signal)
        f->has_signal = 1, f->signal = res->signal;
    else if (res->started)
        f->has_exit_code = 1, f->exit_code = res->exit_code;
    int rc = pg_rundoc_set(&f->reason, why);
    if (rc == 0)
        rc = pg_rundoc_set(&f->phase, phase);
    if (rc == 0)
        rc = pg_rundoc_set(&f->stderr_tail, pg_spawn_tail(res->err_log, res->err_len, 2000));
    return rc;
}

/* The readings of one measured run into the benchmark's metrics; without
 * wall-time and max-rss when `drop_times` (the native runs give those). */
static int record_readings(pg_rundoc_bench *b, const pg_readings *rd, int drop_times)
{
    int rc = 0;
    for (size_t k = 0; k < rd->n && rc == 0; k++) {
        const pg_reading *r = &rd->v[k];
        if (drop_times && (!strcmp(r->name, "wall-time") || !strcmp(r->name, "max-rss")))
            continue;
        pg_rundoc_metric *m;
        if ((rc = pg_rundoc_metric_get(&m, b, r->name, r->unit, r->backend)) == 0)
            rc = pg_rundoc_metric_push(m, r->value, r->running);
    }
    return rc;
}

/* The benchmark's description, before anything runs. */
/* Why a run failed, as stored and shown; NULL when it succeeded. */
static const char *failure_of(const pg_spawn_result *r, char *buf, size_t len)
{
    if (r->timed_out)
        snprintf(buf, len, "timeout");
    else if (!r->started)
        snprintf(buf, len, "could not start: %s", strerror(r->exec_errno ? r->exec_errno : 0));
    else if (r->signal)
        snprintf(buf, len, "killed by signal %d (SIG%s)", r->signal, sigabbrev_np(r->signal) ? sigabbrev_np(r->signal) : "?");
    else if (r->exit_code)
        snprintf(buf, len, "exit status %d", r->exit_code);
    else
        return NULL;
    return buf;
}

static void progress(const pg_run_opts *o, size_t bi, size_t bn, const char *name, const char *phase, int j, int m)
{
    if (!o->progress)
        return;
    char shown[256];
    fprintf(stderr, "\r\033[K[%zu/%zu] %s: %s %d/%d", bi + 1, bn, pg_text_escape_buf(shown, sizeof shown, name, PG_TEXT_TERM),
            phase, j, m);
    fflush(stderr);
}

int pg_runner_repeat(const pg_benchset *set, size_t i, const pg_run_opts *o, const pg_backend_props *b)
{
    return pick(o->repeat, set->v[i].repeat, set->def_repeat, b->repeat);
}

/* One series of runs of a benchmark with `meter`: `warmup` bare runs, then
 * `runs` measured ones (numbered from `first` + 1 of `repeat`). The native
 * series of the valgrind backend (`native`) is the same loop with the perf
 * meter: its runs are not counted in `runs` (the document's runs are the
 * backend's), and valgrind's own wall-time and max-rss, which describe
 * valgrind rather than the program, give way to the native ones. */
/* One benchmark being run: what every series of its runs shares. */
typedef struct bench_run {
    const pg_bench *bench;
    const pg_run_opts *o;
    size_t bi, bn;              /* its place in the set, for the progress line */
    double timeout;
    pg_spawn_opts so;           /* how its processes are spawned; each series sets argv and hooks */
    pg_rundoc_bench *b;         /* its entry of the run document */
    const char *fail;           /* why it failed (points into why, or a constant), NULL: not */
    char why[640];
    unsigned long long out_hash;/* the last native run's output (stdout and stderr), hashed */
    int out_seen;               /* native runs (warmups too) whose output was hashed */
    int out_varies;             /* two of them printed different things */
} bench_run;

typedef struct series {
    pg_meter *meter;
    int native;                 /* this is the native series of the valgrind backend */
    int side;                   /* this is the series of a backend that gives metrics the chosen one
                                   does not (DHAT's heap metrics): its runs are not the document's */
    const char *side_name;      /* ...its backend's name, for the progress line and failures */
    int drop_sim_times;         /* the simulator's series of a run that has a native one too */
    int gb;                     /* a Google Benchmark: wrapped and read as counters/gbench.h says */
    int warmup, runs, first, repeat;
    char **argv;                /* the benchmark's, canonical (harness/measure/canon.h) */
    char **env;                 /* the spawn's environment, whose slot env[nenv] is the meter's */
    size_t nenv;
    const char *child_env;      /* the native series: the entry of that slot */
} series;

/* A measured run's readings into the document, or, when the run failed or
 * the backend produced nothing from it, its output dropped (and that a
 * failure of this benchmark, not of perfgate). */
static int collect(bench_run *br, const series *sr, const pg_spawn_result *res, pg_readings *rd)
{
    int rc = 0;
    pg_readings_clear(rd);
    if (br->fail) {
        /* A failed measured run still leaves backend output behind: drop it. */
        if (sr->gb)
            pg_meter_collect_gbench(sr->meter, rd, "", 0, 0, 0);
        else
            pg_meter_collect(sr->meter, rd, 0, 0);
        return 0;
    }
    double rss = (double)res->ru.ru_maxrss * 1024.0;
    rc = sr->gb ? pg_meter_collect_gbench(sr->meter, rd, res->out_log ? res->out_log : "", res->out_len, res->wall_ns, rss)
                : pg_meter_collect(sr->meter, rd, res->wall_ns, rss);
    /* A report cut in its middle may still parse, with runs lost. */
    if (rc == 0 && sr->gb && res->out_cut)
        rc = pg_error_set(PG_EINVAL, "its Google Benchmark JSON report is over %d MiB, the most perfgate reads",
                          PG_GBENCH_OUTPUT_CAP_MIB);
    if (rc == PG_ENOSPC)
        return rc;      /* the machine's failure (a full TMPDIR), not the benchmark's: nothing stored */
    if (rc < 0) {
        /* The program ran but the backend produced nothing: a failure of this
         * benchmark (e.g. it cannot start under valgrind), not of perfgate. */
        snprintf(br->why, sizeof br->why, "%s", pg_error_last());
        br->fail = br->why;
        return 0;
    }
    rc = record_readings(br->b, rd, sr->drop_sim_times);
    br->b->runs += !sr->native && !sr->side;
    return rc;
}

/* A native run's output against the one before it: a program that prints
 * its own timings (or its pid, the date, a random seed) prints something
 * else each run, and its exact count need not repeat either (run_again). */
static void note_output(bench_run *br, const pg_spawn_result *res)
{
    unsigned long long h = pg_hash64_mem(PG_HASH64_INIT, res->out_log ? res->out_log : "", res->out_len);
    h = pg_hash64_mem(h ^ 0xff, res->err_log ? res->err_log : "", res->err_len);
    if (br->out_seen++ && h != br->out_hash)
        br->out_varies = 1;
    br->out_hash = h;
}

static int run_series(bench_run *br, const series *sr)
{
    pg_rundoc_bench *b = br->b;
    pg_spawn_opts *so = &br->so;
    const pg_run_opts *o = br->o;
    char *why = br->why;
    size_t whylen = sizeof br->why;
    pg_spawn_hooks hooks = {.ctx = sr->meter, .attach = attach_hook, .pollfds = pollfds_hook, .readable = readable_hook};
    pg_readings rd = {0};
    pg_spawn_result res;
    int keep[2];
    int rc = 0;
    int total = sr->warmup + sr->runs;
    char side_run[64] = "", side_warmup[64] = "";
    if (sr->side) {
        snprintf(side_run, sizeof side_run, "%s run", sr->side_name);
        snprintf(side_warmup, sizeof side_warmup, "%s warmup", sr->side_name);
    }
    for (int j = 0; j < total && !br->fail && rc == 0; j++) {
        int measured = j >= sr->warmup;
        int shown = measured ? sr->first + (j - sr->warmup) + 1 : j + 1;
        progress(o, br->bi, br->bn, br->bench->name,
                 sr->side ? (measured ? side_run : side_warmup)
                 : sr->native ? (measured ? "native run" : "native warmup") : (measured ? "run" : "warmup"), shown,
                 measured ? sr->repeat : sr->warmup);
        char **argv = sr->argv;
        if (measured && (rc = sr->gb ? pg_meter_wrap_gbench(sr->meter, &argv, sr->argv)
                                     : pg_meter_wrap_argv(sr->meter, &argv, sr->argv)) < 0)
            break;
        so->argv = argv;
        so->hooks = measured ? &hooks : NULL;
        /* Its max-rss is measured natively; under valgrind it is the simulator's anyway,
         * and the exact counts need no extra process before them. */
        so->own_rss = measured && (sr->native || pg_backend_props_of(pg_meter_backend(sr->meter))->max_rss);
        /* A marked program's channel (or its markers turned off), on measured runs only. */
        sr->env[sr->nenv] = !measured ? NULL
                            : sr->native || sr->side ? (char *)sr->child_env : (char *)pg_meter_child_env(sr->meter);
        so->keep_fds = keep;
        so->nkeep = measured && !sr->native && !sr->side ? pg_meter_child_fds(sr->meter, keep, 2) : 0;
        if ((rc = pg_spawn_run(&res, so)) < 0)
            break;
        if (res.interrupted) {
            pg_spawn_result_free(&res);
            rc = pg_error_set(PG_EINTR, "interrupted");
            break;
        }
        br->fail = failure_of(&res, why, whylen);
        if (sr->native && !br->fail)
            note_output(br, &res);
        if (measured)
            rc = collect(br, sr, &res, &rd);
        if (rc == 0 && (br->fail || j == total - 1))
            rc = write_logs(o, br->bench->name, &res, b, br->fail != NULL);
        if (rc == 0 && br->fail) {
            const char *phase = sr->side ? (measured ? side_run : side_warmup)
                                : sr->native ? (measured ? "native run" : "native warmup")
                                : (measured ? "measured run" : "warmup");
            rc = record_failure(b, br->fail, phase, shown, &res, br->timeout);
        }
        pg_spawn_result_free(&res);
    }
    pg_readings_free(&rd);
    return rc;
}

/* Native runs per benchmark with the valgrind backend: --native-repeat, else
 * the repeat the perf backend would make (valgrind's default of 1 is for
 * exact counts; time needs samples to be tested). */
static int native_repeat(const pg_benchset *set, size_t i, const pg_run_opts *o)
{
    return o->native_repeat > 0 ? o->native_repeat : pg_runner_repeat(set, i, o, pg_backend_props_of(pg_backend_native()));
}

int pg_runner_rounds(const pg_benchset *set, size_t i, const pg_run_opts *o, const pg_backend_props *b)
{
    int r = pg_runner_repeat(set, i, o, b);
    int n = b->native_time && o->native ? native_repeat(set, i, o) : 0;
    return n > r ? n : r;
}

/* Whether a choice of metrics (0: none made, all) has one the native runs give. */
static int wants_native(pg_metric_set metrics)
{
    const char *native[16];
    size_t n = pg_metric_names(native, 16, PG_METRIC_SOFTWARE);
    for (size_t i = 0; i < n && i < 16; i++)
        if (!metrics || pg_metric_set_has(metrics, native[i]))
            return 1;
    return 0;
}

/* The metrics benchmark `bench` asks for: its choice (0: every default),
 * and those compare gates on besides. */
static pg_metric_set metrics_of(const pg_benchset *set, const pg_bench *bench, const pg_run_opts *o)
{
    return o->metrics ? o->metrics : bench->metrics ? bench->metrics : set->def_metrics;
}

/* The backend whose series of its own gives metrics of `want` (and
 * `also`) that `primary` does not (pg_backend_giving), into *out, and the
 * first such metric into *metric; AUTO when there is none. Only metrics
 * named count: a choice of every default asks for no such series. */
static int side_kind(pg_backend_kind *out, const char **metric, pg_metric_set want, pg_backend_kind primary)
{
    *out = PG_BACKEND_AUTO;
    for (size_t i = 0; pg_metric_at(i); i++) {
        pg_backend_kind k = want & (1u << i) ? pg_backend_giving(pg_metric_at(i)->name) : PG_BACKEND_AUTO;
        if (k == PG_BACKEND_AUTO || k == primary || k == *out)
            continue;
        if (*out != PG_BACKEND_AUTO)
            return pg_error_set(PG_ENOTSUP, "%s and %s are measured by two different backends besides %s: "
                                            "ask for them in two runs", *metric, pg_metric_at(i)->name,
                                pg_backend_name(primary));
        *out = k;
        *metric = pg_metric_at(i)->name;
    }
    return 0;
}

/* The backend of the series of its own that the set's choices of metrics
 * ask for (side_kind) into *kind (PG_BACKEND_AUTO: none), after checking
 * that it works here; *metric names a metric that asks for it. */
static int side_backend(pg_backend_kind *kind, const char **metric, const pg_benchset *set, pg_backend_kind primary,
                        const pg_run_opts *o)
{
    *kind = PG_BACKEND_AUTO;
    *metric = NULL;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < set->n; i++) {
        pg_backend_kind k;
        const char *m = NULL;
        if ((rc = side_kind(&k, &m, metrics_of(set, &set->v[i], o) | o->also, primary)) == 0 && k != PG_BACKEND_AUTO) {
            if (*kind != PG_BACKEND_AUTO && k != *kind)
                rc = pg_error_set(PG_ENOTSUP, "%s and %s are measured by two different backends besides %s: "
                                              "ask for them in two runs", *metric, m, pg_backend_name(primary));
            *kind = k, *metric = m;
        }
    }
    if (rc < 0 || *kind == PG_BACKEND_AUTO)
        return rc;
    pg_probe probe;
    pg_backend_probe(&probe, *kind);
    if (probe.fit[*kind].fit == PG_FIT_NONE)
        return pg_error_set(PG_ENOTSUP, "%s needs the %s backend, which cannot work here: %s", *metric,
                            pg_backend_name(*kind), probe.fit[*kind].why);
    return 0;
}

/* The meter of that side series into *out (NULL: none; *kind its backend),
 * after checking that its backend can measure every benchmark that asks:
 * refused before anything runs, in one line. */
static int side_meter(pg_meter **out, pg_backend_kind *kind, const pg_benchset *set, const pg_meter *meter,
                      const pg_run_opts *o)
{
    *out = NULL;
    pg_backend_kind primary = pg_meter_backend(meter);
    const char *metric;
    int rc = side_backend(kind, &metric, set, primary, o);
    if (rc < 0 || *kind == PG_BACKEND_AUTO)
        return rc;
    if ((rc = pg_meter_new(out, &(pg_meter_opts){.backend = *kind})) < 0)
        return rc;
    /* A backend that cannot measure a Google Benchmark suite (DHAT: no timed
     * region) says so when asked to wrap one. */
    for (size_t i = 0; rc == 0 && i < set->n; i++) {
        pg_backend_kind k;
        char **w = NULL;
        if (set->v[i].kind != PG_BENCH_GB_ONE ||
            side_kind(&k, &metric, metrics_of(set, &set->v[i], o) | o->also, primary) < 0 || k != *kind)
            continue;
        if (pg_meter_wrap_gbench(*out, &w, set->v[i].argv) < 0) {
            char why[512];
            snprintf(why, sizeof why, "%s", pg_error_last());
            rc = pg_error_set(PG_ENOTSUP, "%s: %s", set->v[i].name, why);
        }
    }
    if (rc < 0) {
        pg_meter_free(*out);
        *out = NULL;
    }
    return rc;
}

int pg_runner_check(const pg_benchset *set, const pg_meter *meter, const pg_run_opts *o)
{
    pg_meter *side;
    pg_backend_kind kind;
    int rc = side_meter(&side, &kind, set, meter, o);
    pg_meter_free(side);
    return rc;
}

/* side_meter's meter, its backend listed in the document. */
static int open_side(pg_meter **out, pg_rundoc *doc, const pg_benchset *set, const pg_meter *meter,
                     const pg_run_opts *o)
{
    pg_backend_kind kind;
    int rc = side_meter(out, &kind, set, meter, o);
    if (rc == 0 && *out && (rc = pg_rundoc_add_backend(doc, pg_backend_name(kind))) < 0) {
        pg_meter_free(*out);
        *out = NULL;
    }
    return rc;
}

/* How many runs of each series a call makes: all of them, or with
 * o->round >= 0 that round's one (an interleaved measurement). */
typedef struct run_counts {
    int repeat, warmup;         /* the backend's series, as configured */
    int nrepeat, nwarmup;       /* the native series (0 without one) */
    int runs, nruns, first;     /* this call's measured runs of each, numbered from first + 1 */
} run_counts;

/* The counts of br's benchmark, measured by `be` (and natively beside it when
 * `native`); 0 when this round has none of it. */
static int count_runs(run_counts *c, const bench_run *br, const pg_benchset *set, const pg_backend_props *be, int native)
{
    const pg_run_opts *o = br->o;
    const pg_bench *bench = br->bench;
    c->repeat = pg_runner_repeat(set, br->bi, o, be);
    c->warmup = pick(o->warmup, bench->warmup, set->def_warmup, be->warmup);
    c->nrepeat = native ? native_repeat(set, br->bi, o) : 0;
    c->nwarmup = native ? pick(o->warmup, bench->warmup, set->def_warmup, pg_backend_props_of(pg_backend_native())->warmup) : 0;
    c->runs = c->repeat, c->nruns = c->nrepeat, c->first = 0;
    if (o->round < 0)
        return 1;
    if (o->round >= c->repeat && o->round >= c->nrepeat)
        return 0;
    if (o->round > 0)
        c->warmup = c->nwarmup = 0;
    c->runs = o->round < c->repeat;
    c->nruns = o->round < c->nrepeat;
    c->first = o->round;
    return 1;
}

/* br's entry of the document: what ran, how, and the metrics chosen. */
static int describe_bench(bench_run *br, const pg_benchset *set, char **argv, const run_counts *c, pg_metric_set metrics)
{
    pg_rundoc_bench *b = br->b;
    const pg_bench *bench = br->bench;
    size_t n = 0;
    while (argv[n])
        n++;
    b->repeat = c->repeat;
    b->warmup = c->warmup;
    b->timeout = br->timeout > 0 ? br->timeout : 0;
    int rc = pg_rundoc_set(&b->name, bench->name);
    if (rc == 0 && !(b->command = calloc(n + 1, sizeof *b->command)))
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = pg_rundoc_set(&b->command[i], argv[i]);
    if (rc == 0)
        rc = pg_rundoc_set(&b->cwd, bench->cwd);
    const pg_thresholds *th = bench->has_thresholds ? &bench->thresholds : set->has_def_thresholds ? &set->def_thresholds : NULL;
    if (rc == 0 && th) {
        b->has_thresholds = 1;
        rc = pg_thresholds_copy(&b->thresholds, th);
    }
    const char *names[32];
    pg_metric_set_names(names, metrics);
    for (size_t i = 0; names[i] && rc == 0; i++)
        rc = pg_rundoc_strings_add(&b->selected_metrics, names[i]);
    return rc;
}

/* The stacks, from a run of their own, so profiling cannot touch the counts.
 * They cover the whole program, markers or not (perf's sampler knows no
 * regions; callgrind's would stop at the first STOP). */
static int record_stacks(bench_run *br, const pg_meter *meter, char **argv, char **env, size_t nenv)
{
    const pg_run_opts *o = br->o;
    progress(o, br->bi, br->bn, br->bench->name, "stacks", 1, 1);
    int sfailed = 0;
    pg_spawn_opts so = br->so;
    so.argv = argv;
    so.own_rss = 0;
    so.hooks = NULL;
    so.nkeep = 0;
    env[nenv] = pg_meter_marked(meter) ? PG_METER_MARKERS_OFF : NULL;
    int rc = pg_stacks_record(o->stacks, br->b, br->bench->name, &so, br->bench->kind == PG_BENCH_GB_ONE, &sfailed);
    if (rc == 0 && sfailed) {
        rc = pg_rundoc_set(&br->b->stacks_error, pg_error_last());
        pg_text_warn("%s: no stacks: %s", br->bench->name, br->b->stacks_error ? br->b->stacks_error : "");
    }
    return rc;
}

/* The backend's runs of the benchmark. */
static int run_main(bench_run *br, pg_meter *meter, pg_meter *native, const run_counts *c, const series *proto)
{
    series sr = *proto;
    sr.meter = meter, sr.drop_sim_times = native != NULL;
    sr.warmup = c->runs ? c->warmup : 0, sr.runs = c->runs, sr.repeat = c->repeat;
    return !br->fail && (sr.runs || sr.warmup) ? run_series(br, &sr) : 0;
}

/* Then the native ones: one after the other, never side by side, so
 * neither disturbs the other's time. The native runs time the whole
 * program (their meter has no regions). */
static int run_native(bench_run *br, const pg_meter *meter, pg_meter *native, const run_counts *c,
                      const series *proto)
{
    series sr = *proto;
    sr.meter = native, sr.native = 1, sr.gb = 0;
    sr.warmup = c->nwarmup, sr.runs = c->nruns, sr.repeat = c->nrepeat;
    /* A marked program measured whole must not act on its markers. */
    sr.child_env = pg_meter_marked(meter) ? PG_METER_MARKERS_OFF : NULL;
    return !br->fail && native && (c->nruns || c->nwarmup) ? run_series(br, &sr) : 0;
}

/* Then, when the benchmark asks for metrics another backend alone gives,
 * that backend's series (round 0 only: exact counts, one run): the whole
 * program (no regions, no calls), its readings beside the others. */
static int run_side(bench_run *br, const pg_benchset *set, const pg_meter *meter, pg_meter *side, const series *proto)
{
    pg_backend_kind k;
    const char *metric;
    const pg_run_opts *o = br->o;
    if (!side || br->fail || o->round > 0 ||
        side_kind(&k, &metric, metrics_of(set, br->bench, o) | o->also, pg_meter_backend(meter)) < 0 ||
        k != pg_meter_backend(side))
        return 0;
    const pg_backend_props *p = pg_backend_props_of(k);
    int rc = pg_meter_set_target(side, &(pg_meter_target){.regions = 0});
    series sr = *proto;
    sr.meter = side, sr.side = 1, sr.side_name = p->name, sr.gb = 0, sr.drop_sim_times = 1;
    sr.warmup = p->warmup, sr.runs = sr.repeat = p->repeat, sr.first = 0;
    sr.child_env = pg_meter_marked(meter) ? PG_METER_MARKERS_OFF : NULL;
    return rc < 0 ? rc : run_series(br, &sr);
}

/* The benchmark's entry into the document (and its table on o->out). */
static int add_bench(pg_rundoc *doc, int *failed, bench_run *br)
{
    pg_rundoc_bench *added = NULL;
    int rc = pg_rundoc_add_bench(&added, doc);
    if (rc == 0) {
        *added = *br->b;
        memset(br->b, 0, sizeof *br->b);
    }
    if (rc < 0)
        return rc;
    if (br->fail)
        ++*failed;
    if (br->o->out && br->o->out_begin)
        br->o->out_begin(br->o->out_arg);
    if (br->o->out)
        pg_table_print_bench(br->o->out, doc, added, br->o->verbose);
    return 0;
}

/* A set's measurement: into `doc`, failures counted in *failed. */
typedef struct set_run {
    pg_rundoc *doc;
    int *failed;
    const pg_benchset *set;
    pg_meter *meter;
    const pg_run_opts *o;
    pg_rundoc *pre;             /* --jobs: the backend's series already made, benchmark i in pre[i] */
    pg_meter *side;             /* the series of a backend giving metrics the chosen one does not, or NULL */
    int side_in_pre;            /* pre's workers made that series too */
} set_run;

/* One benchmark being measured: what its series share, from begin_one to end_one. */
typedef struct one_bench {
    bench_run br;
    run_counts c;
    series proto;
    pg_meter *native;
    pg_rundoc_bench bd;
    char **env, **argv;
} one_bench;

/* The key of the benchmark's exact counts (reuse.h) into its entry, so that
 * a later --reuse-unchanged can take them; none when it cannot be made
 * (said, and the benchmark measured as ever). */
static void key_one(one_bench *ob, const pg_benchset *set, const pg_bench *bench, const pg_run_opts *o,
                    pg_metric_set metrics)
{
    char key[PG_REUSE_KEY_SIZE], choices[512];
    char *calls = calls_of(set, bench, o);
    snprintf(choices, sizeof choices, "metrics %llx markers %d calls %s", (unsigned long long)metrics,
             bench->markers >= 0 ? bench->markers : set->def_markers, calls ? calls : "");
    free(calls);
    if (pg_reuse_key(key, bench, ob->argv, ob->env, o->tree, choices) == 0)
        pg_rundoc_set(&ob->bd.reuse_key, key);
    else if (o->reuse_from)
        pg_text_warn("%s: measured, not reused: %s", bench->name, pg_error_last());
    pg_error_clear();
}

/* --reuse-unchanged: a stored benchmark of this machine and backend with the
 * same key gives its exact counts (its backend's counts) and runs; 1 when
 * taken, and the backend's series is not made. */
static int try_reuse(one_bench *ob, const pg_run_opts *o, const pg_meter *meter)
{
    const pg_rundoc *run;
    const char *backend = pg_backend_name(pg_meter_backend(meter));
    const pg_rundoc_bench *b = ob->bd.reuse_key && o->reuse_from && o->round <= 0
                                   ? pg_reuse_find(&run, o->reuse_from, ob->bd.name, ob->bd.reuse_key,
                                                   o->reuse_machine ? o->reuse_machine : "", backend)
                                   : NULL;
    if (!b)
        return 0;
    int rc = pg_rundoc_set(&ob->bd.reused_run, run->id ? run->id : "");
    if (rc == 0 && run->commit)
        rc = pg_rundoc_set(&ob->bd.reused_commit, run->commit);
    for (size_t i = 0; rc == 0 && i < b->nmetrics; i++) {
        const pg_rundoc_metric *m = &b->metrics[i];
        pg_rundoc_metric *dst;
        if (!m->source || strcmp(m->source, backend) || !pg_metric_counted(m->name, m->unit))
            continue;   /* times, and what the native runs measure, are measured anew */
        rc = pg_rundoc_metric_get(&dst, &ob->bd, m->name, m->unit, m->source);
        for (size_t k = 0; k < m->n && rc == 0; k++)
            rc = pg_rundoc_metric_push(dst, m->samples[k], pg_rundoc_metric_running(m, k));
    }
    ob->bd.runs = b->runs;
    return rc < 0 ? rc : 1;
}

/* Benchmark `bi`, described in its entry and its meter told what it asks
 * for; 1 when this round has runs of it, 0 when none, negative on error. */
static int begin_one(one_bench *ob, const set_run *sr, size_t bi, pg_meter *meter)
{
    const pg_benchset *set = sr->set;
    const pg_run_opts *o = sr->o;
    const pg_bench *bench = &set->v[bi];
    const pg_backend_props *be = pg_backend_props_of(pg_meter_backend(meter));
    int gb = bench->kind == PG_BENCH_GB_ONE;
    pg_metric_set metrics = metrics_of(set, bench, o);
    memset(ob, 0, sizeof *ob);
    /* A Google Benchmark's own report is its time per iteration already; a
     * choice of metrics (--metrics) without a native one wants no native runs. */
    ob->native = be->native_time && !gb && wants_native(metrics) ? o->native : NULL;
    bench_run *br = &ob->br;
    *br = (bench_run){.bench = bench, .o = o, .bi = bi, .bn = set->n, .b = &ob->bd,
                      .timeout = o->timeout > 0 ? o->timeout : bench->timeout > 0 ? bench->timeout : set->def_timeout};
    if (!count_runs(&ob->c, br, set, be, ob->native != NULL))
        return 0;
    pg_meter_select(meter, metrics);
    size_t nenv = 0;
    ob->env = pg_canon_env(bench->env, o->pass_env, &nenv);
    if (!ob->env || pg_canon_argv(&ob->argv, bench) < 0)
        return pg_error_set(PG_ENOMEM, "out of memory");
    int rc = describe_bench(br, set, ob->argv, &ob->c, metrics);
    br->so = (pg_spawn_opts){.cwd = bench->cwd, .tree = o->tree, .envp = ob->env, .cpu = o->cpu >= 0 ? o->cpu : -1,
                             .aslr_off = 1, .timeout_sec = br->timeout,
                             .log_cap = gb ? (size_t)PG_GBENCH_OUTPUT_CAP_MIB << 20 : 0};
    if (rc == 0 && target_meter(meter, set, bench, o, ob->env) < 0) {
        /* What the benchmark asks for cannot be had (a function not found):
         * a failure of this benchmark, said with the fix, before anything runs. */
        pg_spawn_result none;
        memset(&none, 0, sizeof none);
        snprintf(br->why, sizeof br->why, "%s", pg_error_last());
        br->fail = br->why;
        rc = record_failure(&ob->bd, br->fail, "measured run", 1, &none, br->timeout);
    }
    ob->proto = (series){.gb = gb, .first = ob->c.first, .argv = ob->argv, .env = ob->env, .nenv = nenv};
    if (rc == 0 && be->exact && !br->fail && !sr->pre)    /* a worker's result (--jobs) has its key */
        key_one(ob, set, bench, o, metrics);
    return rc < 0 ? rc : 1;
}

static void end_one(one_bench *ob)
{
    free(ob->env);
    pg_canon_argv_free(ob->argv);
    pg_rundoc_bench_free(&ob->bd);
}

/* The backend's series made beforehand (--jobs) stands for this one's:
 * its entry as the worker wrote it, failure included. */
static int take_pre(one_bench *ob, pg_rundoc *pre)
{
    if (pre->nbench != 1)
        return pg_error_set(PG_EIO, "--jobs: a worker's result holds %zu benchmarks", pre->nbench);
    pg_rundoc_bench_free(&ob->bd);
    ob->bd = pre->bench[0];
    memset(&pre->bench[0], 0, sizeof pre->bench[0]);
    pre->nbench = 0;
    ob->br.fail = NULL;
    if (ob->bd.failed) {
        snprintf(ob->br.why, sizeof ob->br.why, "%s", ob->bd.failure.reason ? ob->bd.failure.reason : "failed");
        ob->br.fail = ob->br.why;
    }
    return 0;
}

/* How the counts of the exact backend `backend` in b stand: 0 when every
 * one repeats its first value, 1 when some vary but so little that
 * PG_SPREAD_FACTOR times their spread is at most a tenth of the
 * benchmark's threshold for them (no verdict at that threshold can turn on
 * the wobble), 2 when they vary by more. */
static int wobble(const pg_rundoc_bench *b, const char *backend)
{
    int worst = 0;
    for (size_t i = 0; i < b->nmetrics; i++) {
        const pg_rundoc_metric *m = &b->metrics[i];
        if (!m->source || strcmp(m->source, backend) || !pg_metric_counted(m->name, m->unit) || m->n < 2)
            continue;
        double lo = m->samples[0], hi = m->samples[0];
        for (size_t k = 1; k < m->n; k++) {
            lo = m->samples[k] < lo ? m->samples[k] : lo;
            hi = m->samples[k] > hi ? m->samples[k] : hi;
        }
        double pct = pg_threshold_for(NULL, b->has_thresholds ? &b->thresholds : NULL, m->name, NULL);
        int w = hi == lo ? 0 : (hi - lo) * PG_SPREAD_FACTOR * 10 <= pct / 100 * lo ? 1 : 2;
        worst = w > worst ? w : worst;
    }
    return worst;
}

/* The exact series of a benchmark whose native runs printed different
 * things, measured again one run at a time, up to PG_VARIES_RUNS in all,
 * until its counts settle: two that repeat (the output moved, the count
 * did not: most programs that print their timings), or a spread far below
 * the threshold (libdeflate's benchmark moves by 2 to 9 of 138 million:
 * measuring that more closely decides nothing). A wobble two runs missed
 * is one too small to matter, or one the next stored run shows. Every
 * count is kept: their spread is the benchmark's floor, which compare
 * decides against (docs/metrics.md, "Counts that do not repeat"). A
 * program whose output repeats keeps its one run: nothing is added where
 * nothing wobbles. */
static int run_again(one_bench *ob, pg_meter *meter)
{
    const pg_backend_props *be = pg_backend_props_of(pg_meter_backend(meter));
    const char *backend = pg_backend_name(pg_meter_backend(meter));
    bench_run *br = &ob->br;
    if (!be->exact || br->bench->kind == PG_BENCH_GB_ONE)
        return 0;
    int rc = 0;
    while (rc == 0 && !br->fail && br->b->runs < PG_VARIES_RUNS) {
        if (br->b->runs >= 2 && wobble(br->b, backend) < 2)
            break;
        run_counts c = ob->c;
        c.warmup = 0, c.first = br->b->runs, c.repeat = PG_VARIES_RUNS, c.runs = 1;
        rc = run_main(br, meter, ob->native, &c, &ob->proto);
    }
    if (rc == 0 && !br->fail && wobble(br->b, backend))
        rc = pg_rundoc_set(&br->b->exact_varies, PG_VARIES_WHY);
    return rc;
}

/* Benchmark `bi` of the set: its series of runs (and its stacks), into the document. */
static int run_one(const set_run *sr, size_t bi)
{
    const pg_run_opts *o = sr->o;
    one_bench ob;
    int rc = begin_one(&ob, sr, bi, sr->meter);
    if (rc <= 0) {
        end_one(&ob);
        return rc;
    }
    /* Made beforehand (--jobs): the whole series stands in round 0, and later rounds have none. */
    rc = sr->pre ? (o->round <= 0 ? take_pre(&ob, &sr->pre[bi]) : 0) : try_reuse(&ob, o, sr->meter);
    if (rc == 0 && !sr->pre && !ob.bd.reused_run) {
        rc = run_main(&ob.br, sr->meter, ob.native, &ob.c, &ob.proto);
        pg_reuse_forget(&ob.bd, sr->meter, o->reuse_from != NULL);
    }
    rc = rc > 0 ? 0 : rc;
    if (rc == 0)
        rc = run_native(&ob.br, sr->meter, ob.native, &ob.c, &ob.proto);
    if (rc == 0 && !(sr->pre && sr->side_in_pre))
        rc = run_side(&ob.br, sr->set, sr->meter, sr->side, &ob.proto);
    if (rc == 0 && ob.br.out_varies && !ob.br.fail && !ob.bd.reused_run && o->round <= 0)
        rc = run_again(&ob, sr->meter);
    if (rc == 0 && !ob.br.fail && o->stacks && o->round <= 0)
        rc = record_stacks(&ob.br, sr->meter, ob.argv, ob.env, ob.proto.nenv);
    if (o->progress)
        fprintf(stderr, "\r\033[K");
    if (rc == 0)
        rc = add_bench(sr->doc, sr->failed, &ob.br);
    end_one(&ob);
    return rc;
}

/* --jobs: the sets whose backend series are made in workers, their items
 * numbered across them (set 0's benchmarks, then set 1's, ...). */
typedef struct exact_sets {
    const set_run *v;
    size_t n;
} exact_sets;

static pg_meter *worker_meter, *worker_side;

static void exact_end(void *ctx)
{
    (void)ctx;
    pg_meter_free(worker_meter);
    pg_meter_free(worker_side);
    worker_meter = worker_side = NULL;
}

/* In a worker: item i's backend series with the worker's own meter (made at
 * its first item), its entry into *text as a run document of one benchmark
 * (jobresult.h). */
static int exact_one(void *ctx, size_t i, char **text, size_t *len)
{
    const exact_sets *es = ctx;
    size_t s = 0;
    while (s < es->n && i >= es->v[s].set->n)
        i -= es->v[s++].set->n;
    const set_run *sr = &es->v[s];
    if (!worker_meter && pg_meter_new(&worker_meter, &(pg_meter_opts){.backend = pg_meter_backend(sr->meter)}) < 0)
        return -1;
    pg_meter *meter = worker_meter;
    one_bench ob;
    int rc = begin_one(&ob, sr, i, meter);
    if (rc == 0) {
        rc = pg_error_set(PG_EINVAL, "--jobs: benchmark %zu has no run", i);
    } else if (rc == 1 && (rc = try_reuse(&ob, sr->o, meter)) == 0) {
        rc = run_main(&ob.br, meter, ob.native, &ob.c, &ob.proto);
        pg_reuse_forget(&ob.bd, meter, sr->o->reuse_from != NULL);
    }
    rc = rc > 0 ? 0 : rc;   /* reused */
    /* The series of a backend giving metrics the chosen one does not (DHAT's
     * heap): exact counts too, so made here as well, with a meter of the worker's. */
    if (rc == 0 && sr->side && !worker_side)
        rc = pg_meter_new(&worker_side, &(pg_meter_opts){.backend = pg_meter_backend(sr->side)});
    if (rc == 0 && sr->side)
        rc = run_side(&ob.br, sr->set, meter, worker_side, &ob.proto);
    pg_rundoc doc = {.bench = &ob.bd, .nbench = 1, .capbench = 1};
    snprintf(doc.machine.id, sizeof doc.machine.id, "000000000000");
    doc.backend = (char *)pg_backend_name(pg_meter_backend(meter));
    if (rc == 0 && (rc = pg_rundoc_write(text, &doc)) == 0)
        *len = strlen(*text);
    end_one(&ob);
    return rc;
}

/* Whether the backend's series can be made --jobs at a time: counts that
 * do not depend on load, and more than one to make. */
static int parallel(size_t items, const pg_meter *meter, int jobs)
{
    return jobs > 1 && items > 1 && items <= PG_JOBS_MAX_ITEMS && pg_backend_props_of(pg_meter_backend(meter))->exact;
}

/* Item i's result, benchmark `bench` of a set measured by `meter`, read back into *out. */
static int read_result(pg_rundoc *out, const pg_jobs *j, size_t i, const pg_bench *bench, const pg_meter *meter)
{
    size_t len;
    const char *text = pg_jobs_result(&len, j, i);
    if (!text)
        return pg_error_set(PG_EIO, "--jobs: no result for item %zu", i);
    return pg_jobresult_read(out, text, len, i, bench->name, pg_backend_name(pg_meter_backend(meter)));
}

/* Every benchmark's backend series of every set, `jobs` at a time: set s's
 * benchmark i into pre[s][i]. Whole series (round -1), not pinned, quiet. */
static int exact_parallel(pg_rundoc **pre, const set_run *srs, size_t nsets, int jobs, int progress)
{
    set_run *quiet = calloc(nsets, sizeof *quiet);
    pg_run_opts *o = calloc(nsets, sizeof *o);
    size_t items = 0;
    int rc = quiet && o ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t s = 0; rc == 0 && s < nsets; s++) {
        quiet[s] = srs[s], o[s] = *srs[s].o;
        o[s].progress = 0, o[s].out = NULL, o[s].cpu = -2, o[s].round = -1, o[s].one = 0, o[s].stacks = NULL;
        quiet[s].o = &o[s];
        items += srs[s].set->n;
        if (!(pre[s] = calloc(srs[s].set->n ? srs[s].set->n : 1, sizeof *pre[s])))
            rc = pg_error_set(PG_ENOMEM, "out of memory");
    }
    if (rc == 0 && progress)
        fprintf(stderr, "\rexact counts of %zu benchmark runs, %d at a time ", items, jobs);
    pg_jobs j = {0};
    exact_sets es = {.v = quiet, .n = nsets};
    if (rc == 0)
        rc = pg_jobs_run(&j, items, jobs, exact_one, exact_end, &es);
    for (size_t s = 0, k = 0; rc == 0 && s < nsets; s++)
        for (size_t i = 0; rc == 0 && i < srs[s].set->n; i++)
            rc = read_result(&pre[s][i], &j, k++, &srs[s].set->v[i], srs[s].meter);
    pg_jobs_free(&j);
    if (progress)
        fprintf(stderr, "\r\033[K");
    free(quiet);
    free(o);
    return rc;
}

static void pre_free(pg_rundoc *pre, size_t n)
{
    for (size_t i = 0; pre && i < n; i++)
        pg_rundoc_free(&pre[i]);
    free(pre);
}

int pg_runner_run(pg_rundoc *doc, int *nfailed, const pg_benchset *set, pg_meter *meter,
                  const pg_run_opts *o)
{
    *nfailed = 0;
    pg_spawn_install_sigint();
    set_run sr = {.doc = doc, .failed = nfailed, .set = set, .meter = meter, .o = o, .pre = o->pre};
    pg_rundoc *own = NULL;
    int rc = open_side(&sr.side, doc, set, meter, o);
    if (rc == 0 && !o->pre && o->round < 0 && !o->one && parallel(set->n, meter, o->jobs))
        rc = exact_parallel(&own, &sr, 1, o->jobs, o->progress), sr.pre = own, sr.side_in_pre = 1;
    for (size_t i = 0; rc == 0 && i < set->n; i++) {
        if (o->one && i != o->one - 1)
            continue;
        rc = run_one(&sr, i);
        if (rc == 0 && pg_spawn_interrupted())
            rc = pg_error_set(PG_EINTR, "interrupted");
    }
    pre_free(own, set->n);
    pg_meter_free(sr.side);
    return rc;
}

int pg_runner_exact(pg_rundoc **pre, size_t nsets, const pg_benchset *const *sets, pg_meter *meter,
                    const pg_run_opts *const *o)
{
    size_t items = 0;
    for (size_t s = 0; s < nsets; s++)
        items += sets[s]->n;
    memset(pre, 0, nsets * sizeof *pre);
    if (!nsets || !parallel(items, meter, o[0]->jobs))
        return 0;
    set_run *srs = calloc(nsets, sizeof *srs);
    if (!srs)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t s = 0; s < nsets; s++)
        srs[s] = (set_run){.set = sets[s], .meter = meter, .o = o[s]};
    int rc = exact_parallel(pre, srs, nsets, o[0]->jobs, o[0]->progress);
    free(srs);
    if (rc < 0)
        pg_runner_exact_free(pre, nsets, sets);
    return rc;
}

void pg_runner_exact_free(pg_rundoc **pre, size_t nsets, const pg_benchset *const *sets)
{
    for (size_t s = 0; s < nsets; s++) {
        pre_free(pre[s], sets[s]->n);
        pre[s] = NULL;
    }
}

int pg_runner_merge(pg_rundoc *into, pg_rundoc *from)
{
    int rc = 0;
    for (size_t i = 0; i < from->nbench; i++) {
        int r = pg_rundoc_merge_bench(into, &from->bench[i]);
        rc = rc < 0 ? rc : r;
    }
    from->nbench = 0;
    return rc;
}
