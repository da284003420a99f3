/* harness/measure/gbench_list.c — a suite's listing: the executable run with
 * --benchmark_list_tests, contained like a benchmark, and its names turned
 * into benchmarks by gbench_suite.c. See gbench_list.h. */
#include "harness/measure/gbench_list.h"
#include "harness/measure/canon.h"
#include "harness/measure/runner.h"
#include "harness/measure/spawn.h"
#include "util/error.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most of a listing read (bench.h): some hundred thousand names. */
#define LIST_MAX ((size_t)PG_GBENCH_OUTPUT_CAP_MIB << 20)
/* How long listing a suite may take: it only prints names. */
#define LIST_TIMEOUT_SEC 120


/* Runs `suite --benchmark_list_tests` and returns its stdout. */
static int list_tests(char **out, const pg_bench *suite, const char *pass_env)
{
    size_t n = 0;
    while (suite->argv[n])
        n++;
    char **argv = calloc(n + 3, sizeof *argv);
    char **env = pg_canon_env(suite->env, pass_env, NULL);
    char *filter = NULL;
    if (!argv || !env) {
        free(argv);
        free(env);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    memcpy(argv, suite->argv, n * sizeof *argv);
    argv[n] = "--benchmark_list_tests=true";
    if (suite->gb_filter && (filter = malloc(strlen(suite->gb_filter) + 32)))
        sprintf(filter, "--benchmark_filter=%s", suite->gb_filter);
    argv[n + 1] = filter;
    pg_spawn_opts so = {
        .argv = argv, .cwd = suite->cwd, .envp = env, .cpu = -1,
        .timeout_sec = suite->timeout > 0 ? suite->timeout : LIST_TIMEOUT_SEC, .log_cap = LIST_MAX,
    };
    pg_spawn_result res;
    int rc = pg_spawn_run(&res, &so);
    free(filter);
    free(argv);
    free(env);
    if (rc < 0)
        return rc;
    if (res.interrupted)
        rc = pg_error_set(PG_EINTR, "interrupted");
    else if (!res.started)
        rc = pg_error_set(PG_EINVAL, "%s: cannot run %s: %s", suite->source, suite->argv[0], strerror(res.exec_errno));
    else if (res.out_cut)   /* what the bound cut out would be taken for names */
        rc = pg_error_set(PG_EINVAL, "%s: %s --benchmark_list_tests printed more than %d MiB: too many benchmarks "
                          "for one suite entry (give it a \"filter\")", suite->source, suite->argv[0],
                          PG_GBENCH_OUTPUT_CAP_MIB);
    else if (res.timed_out || res.signal || res.exit_code)
        rc = pg_error_set(PG_EINVAL, "%s: %s --benchmark_list_tests failed (%s %d): %s", suite->source, suite->argv[0],
                          res.timed_out ? "timed out after" : res.signal ? "signal" : "exit status",
                          res.timed_out ? (int)so.timeout_sec : res.signal ? res.signal : res.exit_code,
                          pg_spawn_tail(res.err_log, res.err_len, 300));
    if (rc == 0) {
        *out = res.out_log;
        res.out_log = NULL;
    }
    pg_spawn_result_free(&res);
    return rc;
}

/* Appends the benchmarks of `suite` to `out`. */
static int expand_suite(pg_benchset *out, const pg_bench *suite, const char *pass_env)
{
    char *list = NULL;
    int rc = list_tests(&list, suite, pass_env);
    if (rc == 0)
        rc = pg_benchset_add_listing(out, suite, list);
    free(list);
    return rc;
}

int pg_benchset_expand(pg_benchset *s, const char *pass_env)
{
    size_t i = 0;
    while (i < s->n && s->v[i].kind != PG_BENCH_GB_SUITE)
        i++;
    if (i == s->n)
        return 0;
    pg_benchset out;
    pg_benchset_init(&out);
    int rc = 0;
    for (i = 0; i < s->n && rc == 0; i++) {
        pg_bench *b;
        if (s->v[i].kind == PG_BENCH_GB_SUITE) {
            rc = expand_suite(&out, &s->v[i], pass_env);
        } else if ((rc = pg_bench_new_entry(&out, &b)) == 0) {
            *b = s->v[i];
            memset(&s->v[i], 0, sizeof s->v[i]);
        }
    }
    /* Two suites may have benchmarks of one name, or a suite a command's name. */
    if (rc == 0)
        rc = pg_benchset_check_unique(&out);
    /* The set keeps its build and defaults; only its entries change. */
    for (size_t k = 0; k < s->n; k++)
        pg_bench_free(&s->v[k]);
    free(s->v);
    s->v = out.v;
    s->n = out.n;
    s->cap = out.cap;
    return rc;
}
