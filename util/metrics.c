/* util/metrics.c — see metrics.h. docs/metrics.md explains every value here. */
#include "util/metrics.h"
#include "util/strdist.h"

#include <string.h>

static const char *const instructions_aliases[] = {"Ir", NULL};
static const char *const cycles_aliases[] = {"cpu-cycles", NULL};
static const char *const faults_aliases[] = {"faults", NULL};
static const char *const cs_aliases[] = {"cs", NULL};
static const char *const migrations_aliases[] = {"migrations", NULL};

/* Instructions are exact with valgrind and nearly so with perf: 1% is real.
 * Cycles and time move with frequency scaling and neighbours: 5%. Miss counts
 * are small numbers that move more: 10%. Scheduler counts: 50%. */
static const pg_metric_info registry[] = {
    {"instructions", "count", 1.0, 1, instructions_aliases},
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

const char *pg_metric_canonical(const char *name)
{
    const pg_metric_info *m = pg_metric_find_alias(name);
    return m ? m->name : name;
}

const char *const pg_metric_valgrind_events[] = {"Ir",  "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw",
                                                 "D1mw", "DLmw", "Bc",   "Bcm", "Bi",  "Bim", NULL};

int pg_metric_known(const char *name)
{
    /* a Google Benchmark's iterations and user counters (docs/google-benchmark.md) */
    if (pg_metric_find(name) || pg_metric_find_alias(name) || !strcmp(name, "iterations") ||
        !strncmp(name, "counter:", 8))
        return 1;
    for (const char *const *v = pg_metric_valgrind_events; *v; v++)
        if (!strcmp(*v, name))
            return 1;
    return 0;
}

/* A typo is a few edits away: 1 for short names, up to a third of longer ones. */
static void consider(const char **best, size_t *bestd, const char *name, const char *cand)
{
    size_t d = pg_str_distance(name, cand), len = strlen(name);
    size_t limit = len <= 4 ? 1 : len / 3 > 2 ? len / 3 : 2;
    if (d <= limit && d < *bestd) {
        *best = cand;
        *bestd = d;
    }
}

const char *pg_metric_suggest(const char *name, const char *const *extra, size_t n)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1;
    for (size_t i = 0; i < NREG; i++) {
        consider(&best, &bestd, name, registry[i].name);
        for (const char *const *a = registry[i].aliases; a && *a; a++)
            consider(&best, &bestd, name, *a);
    }
    for (const char *const *v = pg_metric_valgrind_events; *v; v++)
        consider(&best, &bestd, name, *v);
    for (size_t i = 0; extra && i < n; i++)
        if (extra[i])
            consider(&best, &bestd, name, extra[i]);
    return best;
}
