/* harness/bench/gbench_suite.c — Google Benchmark executables as suites of
 * benchmarks: recognised, and each name of a listing made a perfgate
 * benchmark that runs it alone. See bench.h and docs/google-benchmark.md. */
#include "harness/bench/bench.h"
#include "util/error.h"
#include "util/strindex.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int pg_gbench_is_executable(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int found = 0;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            /* Linked dynamically, the library's mangled symbols (namespace
             * benchmark::internal) are in the file; statically, its usage text
             * too. Spelt backwards here, so perfgate itself is not one. */
            static const char *const marks[] = {"lanretni8kramhcneb9NZ_", "}eslaf|eurt{=stset_tsil_kramhcneb--", NULL};
            for (const char *const *m = marks; *m && !found; m++) {
                char fwd[64];
                size_t n = strlen(*m);
                for (size_t i = 0; i < n; i++)
                    fwd[i] = (*m)[n - 1 - i];
                found = memmem(p, (size_t)st.st_size, fwd, n) != NULL;
            }
            munmap(p, (size_t)st.st_size);
        }
    }
    close(fd);
    return found;
}

/* A name's characters that Google Benchmark's regex (POSIX extended, or
 * ECMAScript) would read as syntax, escaped so the filter matches it alone. */
static char *exact_filter(const char *name)
{
    size_t n = strlen(name);
    char *f = malloc(2 * n + 32);
    if (!f)
        return NULL;
    char *o = f + sprintf(f, "--benchmark_filter=^");
    for (const char *p = name; *p; p++) {
        if (strchr(".[](){}*+?|^$\\", *p))
            *o++ = '\\';
        *o++ = *p;
    }
    strcpy(o, "$");
    return f;
}

/* perfgate's name for Google Benchmark's `gb`: '/' (which Google Benchmark
 * puts between arguments) becomes ':', and a suite's prefix comes first. */
static char *perfgate_name(const char *prefix, const char *gb)
{
    size_t n = (prefix ? strlen(prefix) + 1 : 0) + strlen(gb) + 1;
    char *s = malloc(n);
    if (!s)
        return NULL;
    snprintf(s, n, "%s%s%s", prefix ? prefix : "", prefix ? ":" : "", gb);
    for (char *p = s; *p; p++)
        if (*p == '/')
            *p = ':';
    return s;
}

static char **strv_dup(char *const *v, size_t extra)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    char **d = calloc(n + extra + 1, sizeof *d);
    for (size_t i = 0; d && i < n; i++)
        if (!(d[i] = strdup(v[i]))) {
            while (i--)
                free(d[i]);
            free(d);
            return NULL;
        }
    return d;
}

/* Under valgrind the runs are counted only inside the timed region, but a
 * first call through the PLT there would count the dynamic linker's lazy
 * binding: bind everything at start-up instead. */
static char **env_with_bind_now(char *const *env)
{
    for (size_t i = 0; env && env[i]; i++)
        if (!strncmp(env[i], "LD_BIND_NOW=", 12))
            return strv_dup(env, 0);
    char **d = strv_dup(env, 1);
    size_t n = 0;
    while (d && d[n])
        n++;
    if (d)
        d[n] = strdup("LD_BIND_NOW=1");
    return d;
}
/* One benchmark `gb` of `suite` into `b` (a new entry). */
static int fill_one(pg_bench *b, const pg_bench *suite, const char *gb)
{
    size_t n = 0;
    while (suite->argv[n])
        n++;
    b->kind = PG_BENCH_GB_ONE;
    b->name = perfgate_name(suite->name, gb);
    b->argv = strv_dup(suite->argv, 2);
    b->cwd = suite->cwd ? strdup(suite->cwd) : NULL;
    b->argv0_in_tree = suite->argv0_in_tree;
    b->env = env_with_bind_now(suite->env);
    b->source = strdup(suite->source);
    b->repeat = suite->repeat;
    b->warmup = suite->warmup;
    b->timeout = suite->timeout;
    b->metrics = suite->metrics;
    if (!b->name || !b->argv || !b->env || !b->source || (suite->cwd && !b->cwd))
        return pg_error_set(PG_ENOMEM, "out of memory");
    b->argv[n] = exact_filter(gb);
    b->argv[n + 1] = strdup("--benchmark_format=json");
    if (!b->argv[n] || !b->argv[n + 1])
        return pg_error_set(PG_ENOMEM, "out of memory");
    if (suite->has_thresholds) {
        b->has_thresholds = 1;
        return pg_thresholds_copy(&b->thresholds, &suite->thresholds);
    }
    return 0;
}

int pg_benchset_add_listing(pg_benchset *out, const pg_bench *suite, char *list)
{
    size_t before = out->n;
    int rc = 0;
    for (char *save = NULL, *line = strtok_r(list, "\n", &save); line && rc == 0; line = strtok_r(NULL, "\n", &save)) {
        line[strcspn(line, "\r")] = '\0';
        if (!*line)
            continue;
        pg_bench *b;
        if ((rc = pg_bench_new_entry(out, &b)) == 0)
            rc = fill_one(b, suite, line);
        const char *problem = rc == 0 ? pg_bench_name_problem(b->name) : NULL;
        if (problem)
            rc = pg_error_set(PG_EINVAL, "%s: the Google Benchmark \"%s\" would be named \"%s\", which %s",
                              suite->source, line, b->name, problem);
    }
    if (rc == 0 && out->n == before)
        rc = pg_error_set(PG_ENOTFOUND, "%s: %s lists no benchmark%s%s", suite->source, suite->argv[0],
                          suite->gb_filter ? " matching the filter " : "", suite->gb_filter ? suite->gb_filter : "");
    return rc;
}

int pg_benchset_check_unique(const pg_benchset *s)
{
    /* A listing may hold a million names: a map, not a comparison of every pair. */
    pg_strindex seen = {0};
    int rc = 0;
    size_t k;
    for (size_t a = 0; a < s->n && rc == 0; a++) {
        if (pg_strindex_get(&seen, s->v[a].name, &k))
            rc = pg_error_set(PG_EINVAL, "two benchmarks are named \"%s\" (%s and %s); give a Google Benchmark "
                              "suite a \"name\" in a perfgate.json to prefix its benchmarks' names",
                              s->v[a].name, s->v[k].source, s->v[a].source);
        else if (pg_strindex_put(&seen, s->v[a].name, a) < 0)
            rc = pg_error_set(PG_ENOMEM, "out of memory");
    }
    pg_strindex_free(&seen);
    return rc;
}

