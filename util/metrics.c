/* util/metrics.c — see metrics.h. docs/metrics.md explains every value here. */
#include "util/metrics.h"
#include "util/error.h"
#include "util/suggest.h"

#include <stdio.h>
#include <string.h>

static const char *const instructions_aliases[] = {"Ir", NULL};
static const char *const cycles_aliases[] = {"cpu-cycles", NULL};
static const char *const faults_aliases[] = {"faults", NULL};
static const char *const cs_aliases[] = {"cs", NULL};
static const char *const migrations_aliases[] = {"migrations", NULL};

/* Instructions are exact with valgrind and nearly so with perf: 0.1% is real
 * (docs/metrics.md, "Why 0.1% for instructions": the A/A floor across
 * checkouts is below 0.001%, bench/tools/aa-floor.sh).
 * Cycles and time move with frequency scaling and neighbours: 5%. Miss counts
 * are small numbers that move more: 10%. Scheduler counts: 50%. */
static const pg_metric_info registry[] = {
    {"instructions", "count", 0.1, 1, instructions_aliases, PG_METRIC_HARDWARE},
    {"cycles", "count", 5.0, 1, cycles_aliases, PG_METRIC_HARDWARE},
    {"cache-misses", "count", 10.0, 1, NULL, PG_METRIC_HARDWARE},
    {"branch-misses", "count", 10.0, 1, NULL, PG_METRIC_HARDWARE},
    {"task-clock", "ns", 5.0, 0, NULL, PG_METRIC_SOFTWARE},
    {"wall-time", "ns", 5.0, 0, NULL, PG_METRIC_OS},
    {"page-faults", "count", 10.0, 0, faults_aliases, PG_METRIC_SOFTWARE},
    {"context-switches", "count", 50.0, 0, cs_aliases, PG_METRIC_SOFTWARE},
    {"cpu-migrations", "count", 50.0, 0, migrations_aliases, PG_METRIC_SOFTWARE},
    {"max-rss", "bytes", 10.0, 0, NULL, PG_METRIC_OS},
    /* Google Benchmark's own, per iteration (docs/google-benchmark.md) */
    {"real-time", "ns", 5.0, 0, NULL, PG_METRIC_GBENCH},
    {"cpu-time", "ns", 5.0, 0, NULL, PG_METRIC_GBENCH},
    /* valgrind's DHAT: exact like valgrind's instructions; last, so that
     * the bits of a stored choice of metrics (pg_metric_set) keep their meaning (docs/metrics.md, "Heap metrics") */
    {"heap-allocations", "count", 0.1, 0, NULL, PG_METRIC_HEAP},
    {"heap-bytes", "bytes", 0.1, 0, NULL, PG_METRIC_HEAP},
    {"heap-peak", "bytes", 0.1, 0, NULL, PG_METRIC_HEAP},
};
#define NREG (sizeof registry / sizeof registry[0])

size_t pg_metric_names(const char **out, size_t max, pg_metric_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < NREG; i++)
        if (registry[i].kind == kind) {
            if (n < max)
                out[n] = registry[i].name;
            n++;
        }
    return n;
}

const pg_metric_info *pg_metric_at(size_t i) { return i < NREG ? &registry[i] : NULL; }

const pg_metric_info *pg_metric_find(const char *name)
{
    for (size_t i = 0; i < NREG; i++)
        if (!strcmp(registry[i].name, name))
            return &registry[i];
    return NULL;
}

const pg_metric_info *pg_metric_find_alias(const char *name)
{
    for (size_t i = 0; i < NREG; i++)
        for (const char *const *a = registry[i].aliases; a && *a; a++)
            if (!strcmp(*a, name))
                return &registry[i];
    return NULL;
}

size_t pg_metric_order(const char *name)
{
    const pg_metric_info *m = pg_metric_find(name);
    return m ? (size_t)(m - registry) : NREG;
}

int pg_metric_is_calls(const char *name) { return !strncmp(name, PG_METRIC_CALLS_PREFIX, sizeof PG_METRIC_CALLS_PREFIX - 1); }

int pg_metric_load_bound(const char *name, const char *unit)
{
    if (unit && !strcmp(unit, "ns"))
        return 1;
    const pg_metric_info *m = pg_metric_find(name);
    return m && (!strcmp(m->name, "context-switches") || !strcmp(m->name, "cpu-migrations"));
}

int pg_metric_counted(const char *name, const char *unit)
{
    const pg_metric_info *m = pg_metric_find(name);
    return (unit && !strcmp(unit, "count")) || (m && m->kind == PG_METRIC_HEAP && unit && !strcmp(unit, m->unit));
}

double pg_metric_threshold(const char *name)
{
    /* A call count is exact on both backends, like valgrind's instructions. */
    if (pg_metric_is_calls(name))
        return PG_METRIC_CALLS_THRESHOLD;
    const pg_metric_info *m = pg_metric_find(name);
    return m ? m->threshold_pct : PG_METRIC_OTHER_THRESHOLD;
}

int pg_metric_set_add(pg_metric_set *set, const char *name)
{
    const pg_metric_info *m = pg_metric_find(name);
    if (!m)
        m = pg_metric_find_alias(name);
    if (m) {
        *set |= 1u << (m - registry);
        return 0;
    }
    char mean[128];
    if (*pg_metric_suggest(mean, sizeof mean, name, NULL, NULL, 0))
        return pg_error_set(PG_EINVAL, "unknown metric '%s'%s", name, mean);
    return pg_error_set(PG_EINVAL, "unknown metric '%s' (docs/metrics.md lists them)", name);
}

int pg_metric_set_parse(pg_metric_set *set, const char *list)
{
    char name[64];
    const char *p = list;
    for (;;) {
        size_t n = strcspn(p, ",");
        if (n == 0)
            return pg_error_set(PG_EINVAL, "empty metric name in '%s'", list);
        if (n >= sizeof name)
            return pg_error_set(PG_EINVAL, "unknown metric '%.*s'", (int)n, p);
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        int rc = pg_metric_set_add(set, name);
        if (rc < 0)
            return rc;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

int pg_metric_set_has(pg_metric_set set, const char *name)
{
    const pg_metric_info *m = pg_metric_find(name);
    return !set || (m && (set & (1u << (m - registry))));
}

void pg_metric_set_names(const char **out, pg_metric_set set)
{
    size_t k = 0;
    for (size_t i = 0; i < NREG; i++)
        if (set & (1u << i))
            out[k++] = registry[i].name;
    out[k] = NULL;
}

const char *pg_metric_canonical(const char *name)
{
    const pg_metric_info *m = pg_metric_find_alias(name);
    return m ? m->name : name;
}

int pg_metric_known(const char *name, const char *const *own)
{
    /* a Google Benchmark's iterations and user counters (docs/google-benchmark.md) */
    if (pg_metric_find(name) || pg_metric_find_alias(name) || !strcmp(name, "iterations") ||
        !strncmp(name, "counter:", 8))
        return 1;
    for (const char *const *v = own; v && *v; v++)
        if (!strcmp(*v, name))
            return 1;
    return 0;
}

const char *pg_metric_suggest(char *buf, size_t len, const char *name, const char *const *own,
                              const char *const *extra, size_t n)
{
    pg_suggest s;
    pg_suggest_init(&s, name);
    for (size_t i = 0; i < NREG; i++) {
        pg_suggest_offer(&s, registry[i].name);
        for (const char *const *a = registry[i].aliases; a && *a; a++)
            pg_suggest_offer(&s, *a);
    }
    for (const char *const *v = own; v && *v; v++)
        pg_suggest_offer(&s, *v);
    for (size_t i = 0; extra && i < n; i++)
        pg_suggest_offer(&s, extra[i]);
    return pg_suggest_clause(&s, buf, len);
}
