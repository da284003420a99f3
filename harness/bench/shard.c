/* harness/bench/shard.c — see shard.h. */
#include "harness/bench/shard.h"
#include "harness/store/results.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How far back to look for stored durations. */
#define HISTORY_DEPTH 50

int pg_shard_parse(pg_shard *out, const char *arg)
{
    char *end;
    long i = strtol(arg, &end, 10), n = 0;
    int ok = end != arg && *end == '/';
    if (ok) {
        const char *ns = end + 1;
        n = strtol(ns, &end, 10);
        ok = end != ns && !*end;
    }
    if (!ok)
        return pg_error_set(PG_EINVAL, "--shard '%s': expected I/N, like 2/4", arg);
    if (n < 1 || n > 10000 || i < 1 || i > n)
        return pg_error_set(PG_EINVAL, "--shard %s: I must be between 1 and N (and N at most 10000)", arg);
    out->index = (int)i;
    out->count = (int)n;
    return 0;
}

typedef struct item {
    const char *name;
    double d;
    size_t at;
} item;

static int by_duration(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->d != y->d)
        return x->d > y->d ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const item *)a)->name, ((const item *)b)->name);
}

void pg_shard_assign(int *shard_of, const char *const *names, const double *durations, size_t n, int count)
{
    item *it = malloc((n ? n : 1) * sizeof *it);
    double *load = calloc((size_t)count, sizeof *load);
    if (!it || !load) {             /* no memory: by position, still deterministic */
        for (size_t i = 0; i < n; i++)
            shard_of[i] = (int)(i % (size_t)count);
        free(it);
        free(load);
        return;
    }
    double sum = 0;
    size_t known = 0;
    for (size_t i = 0; i < n; i++)
        if (durations && durations[i] >= 0) {
            sum += durations[i];
            known++;
        }
    for (size_t i = 0; i < n; i++)
        it[i] = (item){names[i], durations && durations[i] >= 0 ? durations[i] : known ? sum / (double)known : 0, i};
    if (!known) {
        qsort(it, n, sizeof *it, by_name);
        for (size_t i = 0; i < n; i++)
            shard_of[it[i].at] = (int)(i % (size_t)count);
    } else {
        qsort(it, n, sizeof *it, by_duration);
        for (size_t i = 0; i < n; i++) {
            int best = 0;
            for (int s = 1; s < count; s++)
                if (load[s] < load[best])
                    best = s;
            load[best] += it[i].d;
            shard_of[it[i].at] = best;
        }
    }
    free(it);
    free(load);
}

int pg_shard_history(pg_rundoc_list *runs, char from[PG_OID_HEXSZ + 1], pg_repo *repo, const char *store,
                     const char *head)
{
    char c[PG_OID_HEXSZ + 1];
    from[0] = '\0';
    if (!repo || !head)
        return 0;
    snprintf(c, sizeof c, "%s", head);
    for (int depth = 0; depth < HISTORY_DEPTH && pg_repo_first_parent(c, repo, c) == 0; depth++) {
        int rc = pg_results_load(runs, store, repo, c);
        if (rc == 0) {
            snprintf(from, PG_OID_HEXSZ + 1, "%s", c);
            return 0;
        }
        if (rc != PG_ENOTFOUND)
            return rc;
        pg_error_clear();
    }
    return 0;
}

/* The median of every stored wall time of `name` in `runs`; -1 when none. */
static double wall_time(const pg_rundoc_list *runs, const char *name)
{
    size_t n = 0, cap = 0;
    double *v = NULL;
    for (size_t r = 0; r < runs->n; r++) {
        const pg_rundoc_bench *b = pg_rundoc_bench_find(&runs->v[r], name);
        const pg_rundoc_metric *m = b ? pg_rundoc_metric_find(b, "wall-time") : NULL;
        for (size_t k = 0; m && k < m->n; k++) {
            if (n == cap) {
                size_t nc = cap ? 2 * cap : 8;
                double *nv = realloc(v, nc * sizeof *nv);
                if (!nv)
                    break;
                v = nv;
                cap = nc;
            }
            v[n++] = m->samples[k];
        }
    }
    double med = -1;
    if (n) {
        for (size_t i = 1; i < n; i++)          /* insertion sort: a few samples */
            for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
                double t = v[j];
                v[j] = v[j - 1];
                v[j - 1] = t;
            }
        med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
    free(v);
    return med;
}

int pg_shard_select(pg_benchset *set, int *balanced, const pg_shard *sh, const pg_rundoc_list *history)
{
    size_t n = set->n;
    const char **names = malloc((n ? n : 1) * sizeof *names);
    double *d = malloc((n ? n : 1) * sizeof *d);
    int *of = malloc((n ? n : 1) * sizeof *of);
    unsigned char *keep = malloc(n ? n : 1);
    int rc = 0;
    *balanced = 0;
    if (!names || !d || !of || !keep) {
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    } else {
        for (size_t i = 0; i < n; i++) {
            names[i] = set->v[i].name;
            d[i] = wall_time(history, names[i]);
            *balanced |= d[i] >= 0;
        }
        pg_shard_assign(of, names, d, n, sh->count);
        for (size_t i = 0; i < n; i++)
            keep[i] = of[i] == sh->index - 1;
        pg_benchset_keep(set, keep);
    }
    free(names);
    free(d);
    free(of);
    free(keep);
    return rc;
}
