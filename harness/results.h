/* harness/results.h — stored runs of one revision, merged for comparison.
 *
 * A revision may hold several runs on several machines. Comparison uses one
 * machine's runs: every run of that machine is merged per benchmark, its
 * metrics' samples concatenated (more runs, more samples), so statistics see
 * every raw value ever stored for the commit on that machine.
 */
#ifndef PG_HARNESS_RESULTS_H
#define PG_HARNESS_RESULTS_H

#include <cjson/cJSON.h>
#include <stddef.h>

typedef struct pg_result_metric {
    char *name, *unit, *backend;
    double *v;
    size_t n, cap;
} pg_result_metric;

typedef struct pg_result_bench {
    char *name;
    int failed;                 /* failed in the latest run that had it */
    char *failure;              /* its reason, or NULL */
    cJSON *thresholds;          /* the manifest's thresholds (latest run), owned, may be NULL */
    pg_result_metric *m;
    size_t nm;
    char *stacks;               /* folded stacks path (latest run with stacks), or NULL */
} pg_result_bench;

typedef struct pg_result_side {
    char label[128];            /* what the user typed: "HEAD~1", "a.json" */
    char commit[41];            /* "" when unknown (a file without commit) */
    char machine_id[16];
    char machine_desc[256];     /* "cpu model, N cores" */
    char backend[16];
    size_t nruns;
    pg_result_bench *b;
    size_t nb;
} pg_result_side;

/* Distinct machine ids among `runs`, in the order first seen; returns the count. */
size_t pg_results_machines(const cJSON *runs, char ids[][16], size_t max);

/* Merges the runs of `machine_id` (NULL: all runs) into `side`. `store_dir` is
 * where relative stack paths resolve (may be NULL). */
int pg_results_collect(pg_result_side *side, const cJSON *runs, const char *machine_id);
void pg_results_free(pg_result_side *side);

#endif
