/* harness/runner.c — the measuring loop. See runner.h. */
#include "harness/runner.h"
#include "harness/spawn.h"
#include "harness/stacks.h"
#include "harness/table.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/text.h"

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

char **pg_runner_env(char **extra)
{
    size_t n = 0, m = 0;
    while (environ[n])
        n++;
    while (extra && extra[m])
        m++;
    char **env = calloc(n + m + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int overridden = 0;
        for (size_t j = 0; j < m && !overridden; j++) {
            size_t kl = strcspn(extra[j], "=");
            overridden = !strncmp(environ[i], extra[j], kl) && environ[i][kl] == '=';
        }
        if (!overridden)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < m; j++)
        env[k++] = extra[j];
    return env;
}

static int attach_hook(void *ctx, pid_t pid) { return pg_meter_attach(ctx, pid); }

static int pick(int cli, int bench, int manifest, int fallback)
{
    return cli >= 0 ? cli : bench >= 0 ? bench : manifest >= 0 ? manifest : fallback;
}

static int write_logs(const char *dir, const char *name, const pg_spawn_result *r, pg_rundoc_bench *b)
{
    if (!dir)
        return 0;
    char p[4096], fname[PG_SAFE_NAME_SIZE];
    int rc = 0;
    pg_path_safe_name(fname, name);
    snprintf(p, sizeof p, "%s/%s.stdout", dir, fname);
    if (pg_file_write_atomic(p, r->out_log ? r->out_log : "", r->out_len) == 0)
        rc = pg_rundoc_set(&b->stdout_log, p);
    snprintf(p, sizeof p, "%s/%s.stderr", dir, fname);
    if (rc == 0 && pg_file_write_atomic(p, r->err_log ? r->err_log : "", r->err_len) == 0)
        rc = pg_rundoc_set(&b->stderr_log, p);
    return rc;
}

/* The failure of run j (measured or not) into b->failure. */
static int record_failure(pg_rundoc_bench *b, const char *why, int measured, int run, const pg_spawn_result *res,
                          double timeout)
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
        rc = pg_rundoc_set(&f->phase, measured ? "measured run" : "warmup");
    if (rc == 0)
        rc = pg_rundoc_set(&f->stderr_tail, pg_spawn_tail(res->err_log, res->err_len, 2000));
    return rc;
}

/* The readings of one measured run into the benchmark's metrics. */
static int record_readings(pg_rundoc_bench *b, const pg_readings *rd)
{
    int rc = 0;
    for (size_t k = 0; k < rd->n && rc == 0; k++) {
        const pg_reading *r = &rd->v[k];
        pg_rundoc_metric *m;
        if ((rc = pg_rundoc_metric_get(&m, b, r->name, r->unit, r->backend)) == 0)
            rc = pg_rundoc_metric_push(m, r->value, r->running);
    }
    return rc;
}

/* The benchmark's description, before anything runs. */
static int describe_bench(pg_rundoc_bench *b, const pg_benchset *set, const pg_bench *bench, int repeat, int warmup,
                          double timeout)
{
    size_t n = 0;
    while (bench->argv[n])
        n++;
    b->repeat = repeat;
    b->warmup = warmup;
    b->timeout = timeout > 0 ? timeout : 0;
    int rc = pg_rundoc_set(&b->name, bench->name);
    if (rc == 0 && !(b->command = calloc(n + 1, sizeof *b->command)))
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = pg_rundoc_set(&b->command[i], bench->argv[i]);
    if (rc == 0)
        rc = pg_rundoc_set(&b->cwd, bench->cwd);
    const pg_thresholds *th = bench->has_thresholds ? &bench->thresholds : set->has_def_thresholds ? &set->def_thresholds : NULL;
    if (rc == 0 && th) {
        b->has_thresholds = 1;
        rc = pg_thresholds_copy(&b->thresholds, th);
    }
    return rc;
}

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

int pg_runner_repeat(const pg_benchset *set, size_t i, const pg_run_opts *o, int valgrind)
{
    return pick(o->repeat, set->v[i].repeat, set->def_repeat, valgrind ? 1 : 5);
}

static int run_one(pg_rundoc *doc, int *failed, const pg_benchset *set, size_t bi, pg_meter *meter,
                   const pg_run_opts *o)
{
    const pg_bench *bench = &set->v[bi];
    int valgrind = pg_meter_backend(meter) == PG_BACKEND_VALGRIND;
    int gb = bench->kind == PG_BENCH_GB_ONE;
    int repeat = pg_runner_repeat(set, bi, o, valgrind);
    int warmup = pick(o->warmup, bench->warmup, set->def_warmup, valgrind ? 0 : 1);
    if (o->round >= 0) {
        if (o->round >= repeat)
            return 0;
        if (o->round > 0)
            warmup = 0;
    }
    int measured_runs = o->round >= 0 ? 1 : repeat;
    double timeout = o->timeout > 0 ? o->timeout : bench->timeout > 0 ? bench->timeout : set->def_timeout;
    char **env = pg_runner_env(bench->env);
    if (!env)
        return pg_error_set(PG_ENOMEM, "out of memory");

    pg_rundoc_bench bd = {0}, *b = &bd;
    int rc = describe_bench(b, set, bench, repeat, warmup, timeout);
    pg_spawn_opts so = {
        .cwd = bench->cwd, .envp = env, .cpu = o->cpu >= 0 ? o->cpu : -1, .aslr_off = 1,
        .timeout_sec = timeout,
    };
    pg_spawn_hooks hooks = {.ctx = meter, .attach = attach_hook};
    pg_readings rd = {0};
    pg_spawn_result res;
    char why[160];
    const char *fail = NULL;
    int total = warmup + measured_runs;
    for (int j = 0; j < total && !fail && rc == 0; j++) {
        int measured = j >= warmup;
        progress(o, bi, set->n, bench->name, measured ? "run" : "warmup",
                 measured ? (o->round >= 0 ? o->round : j - warmup) + 1 : j + 1, measured ? repeat : warmup);
        char **argv = (char **)bench->argv;
        if (measured && (rc = gb ? pg_meter_wrap_gbench(meter, &argv, bench->argv)
                                 : pg_meter_wrap_argv(meter, &argv, bench->argv)) < 0)
            break;
        so.argv = argv;
        so.hooks = measured ? &hooks : NULL;
        if ((rc = pg_spawn_run(&res, &so)) < 0)
            break;
        if (res.interrupted) {
            pg_spawn_result_free(&res);
            rc = pg_error_set(PG_EINTR, "interrupted");
            break;
        }
        fail = failure_of(&res, why, sizeof why);
        if (measured && !fail) {
            pg_readings_clear(&rd);
            double rss = (double)res.ru.ru_maxrss * 1024.0;
            rc = gb ? pg_meter_collect_gbench(meter, &rd, res.out_log ? res.out_log : "", res.out_len, res.wall_ns, rss)
                    : pg_meter_collect(meter, &rd, res.wall_ns, rss);
            if (rc < 0) {
                /* The program ran but the backend produced nothing: a failure of this
                 * benchmark (e.g. it cannot start under valgrind), not of perfgate. */
                snprintf(why, sizeof why, "%s", pg_error_last());
                fail = why;
                rc = 0;
            } else {
                rc = record_readings(b, &rd);
                b->runs++;
            }
        } else if (measured) {
            /* A failed measured run still leaves backend output behind: drop it. */
            pg_readings_clear(&rd);
            if (gb)
                pg_meter_collect_gbench(meter, &rd, "", 0, 0, 0);
            else
                pg_meter_collect(meter, &rd, 0, 0);
        }
        if (rc == 0 && (fail || j == total - 1))
            rc = write_logs(o->log_dir, bench->name, &res, b);
        if (rc == 0 && fail)
            rc = record_failure(b, fail, measured, measured ? (o->round >= 0 ? o->round : j - warmup) + 1 : j + 1,
                                &res, timeout);
        pg_spawn_result_free(&res);
    }
    if (rc == 0 && !fail && o->stacks && o->round <= 0) {
        /* Stacks come from a run of their own, so profiling cannot touch the counts. */
        progress(o, bi, set->n, bench->name, "stacks", 1, 1);
        int sfailed = 0;
        so.argv = bench->argv;
        so.hooks = NULL;
        rc = pg_stacks_record(o->stacks, b, bench->name, &so, &sfailed);
        if (rc == 0 && sfailed) {
            rc = pg_rundoc_set(&b->stacks_error, pg_error_last());
            pg_text_warn("%s: no stacks: %s", bench->name, b->stacks_error ? b->stacks_error : "");
        }
    }
    pg_readings_free(&rd);
    free(env);
    if (o->progress)
        fprintf(stderr, "\r\033[K");
    pg_rundoc_bench *added = NULL;
    if (rc == 0 && (rc = pg_rundoc_add_bench(&added, doc)) == 0) {
        *added = bd;
        memset(&bd, 0, sizeof bd);
    }
    pg_rundoc_bench_free(&bd);
    if (rc < 0)
        return rc;
    if (fail)
        ++*failed;
    if (o->out)
        pg_table_print_bench(o->out, added, o->verbose);
    return 0;
}

int pg_runner_run(pg_rundoc *doc, int *nfailed, const pg_benchset *set, pg_meter *meter,
                  const pg_run_opts *o)
{
    *nfailed = 0;
    pg_spawn_install_sigint();
    for (size_t i = 0; i < set->n; i++) {
        int rc = run_one(doc, nfailed, set, i, meter, o);
        if (rc < 0)
            return rc;
        if (pg_spawn_interrupted())
            return pg_error_set(PG_EINTR, "interrupted");
    }
    return 0;
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
