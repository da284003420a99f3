/* util/metrics.c — see metrics.h. docs/metrics.md explains every value here. */
#include "util/metrics.h"

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
    {"instructions", "count", 0.1, 1, instructions_aliases},
    {"cycles", "count", 5.0, 1, cycles_aliases},
    {"cache-misses", "count", 10.0, 1, NULL},
    {"branch-misses", "count", 10.0, 1, NULL},
    {"task-clock", "ns", 5.0, 0, NULL},
    {"wall-time", "ns", 5.0, 0, NULL},
    {"page-faults", "count", 10.0, 0, faults_aliases},
    {"context-switches", "count", 50.0, 0, cs_aliases},
    {"cpu-migrations", "count", 50.0, 0, migrations_aliases},
    {"max-rss", "bytes", 10.0, 0, NULL},
    /* Google Benchmark's own, per iteration (docs/google-benchmark.md) */
    {"real-time", "ns", 5.0, 0, NULL},
    {"cpu-time", "ns", 5.0, 0, NULL},
};
#define NREG (sizeof registry / sizeof registry[0])

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

double pg_metric_threshold(const char *name)
{
    const pg_metric_info *m = pg_metric_find(name);
    return m ? m->threshold_pct : PG_METRIC_OTHER_THRESHOLD;
}
