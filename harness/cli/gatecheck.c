/* harness/cli/gatecheck.c — see gatecheck.h. */
#include "harness/cli/gatecheck.h"
#include "report/render.h"
#include "util/array.h"
#include "counters/backend.h"
#include "util/error.h"
#include "util/metrics.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct names {
    const char **v;
    size_t n, cap;
    int listed;                         /* v holds the results' names (made on first need) */
    const pg_rundoc_list *const *runs;
    size_t nruns;
} names;

/* Every metric name the results hold (borrowed from them), for "measured" and suggestions. */
static int measured_names(names *out, const pg_rundoc_list *const *runs, size_t n)
{
    for (size_t s = 0; s < n; s++)
        for (size_t r = 0; r < runs[s]->n; r++)
            for (size_t b = 0; b < runs[s]->v[r].nbench; b++) {
                const pg_rundoc_bench *rb = &runs[s]->v[r].bench[b];
                for (size_t m = 0; m < rb->nmetrics; m++) {
                    const char *name = rb->metrics[m].name;
                    size_t k = 0;
                    while (k < out->n && strcmp(out->v[k], name))
                        k++;
                    if (k < out->n)
                        continue;
                    if (pg_array_grow(&out->v, &out->cap, out->n, sizeof *out->v, 16) < 0)
                        return PG_ENOMEM;
                    out->v[out->n++] = name;
                }
            }
    return 0;
}

static int check(const char *what, const char *name, names *seen)
{
    if (pg_metric_known(name, pg_backend_events()))
        return 0;
    /* An unknown name: the results' own, listed once (a walk of every
     * metric of 10^4 benchmarks, not made when every name is known). */
    if (!seen->listed && measured_names(seen, seen->runs, seen->nruns) < 0)
        return pg_error_set(PG_ENOMEM, "out of memory");
    seen->listed = 1;
    for (size_t i = 0; i < seen->n; i++)
        if (!strcmp(seen->v[i], name))
            return 0;
    char mean[128];
    return pg_error_set(PG_EINVAL, "%s: unknown metric '%s'%s; no result measured it (docs/metrics.md lists the names)", what,
                        name, pg_metric_suggest(mean, sizeof mean, name, pg_backend_events(), seen->v, seen->n));
}

int pg_gatecheck_names(const pg_gates *gates, const pg_thresholds *cli, const pg_rundoc_list *const *runs,
                       const char *const *labels, size_t n)
{
    names seen = {.runs = runs, .nruns = n};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < gates->n; i++)
        rc = check("--gate", gates->v[i], &seen);
    for (size_t i = 0; rc == 0 && i < cli->n; i++)
        if (cli->v[i].metric)
            rc = check("--threshold", cli->v[i].metric, &seen);
    /* The thresholds stored with the results came from a manifest (perfgate
     * run checks them now; an older one did not). */
    char what[512];
    for (size_t s = 0; rc == 0 && s < n; s++)
        for (size_t r = 0; rc == 0 && r < runs[s]->n; r++)
            for (size_t b = 0; rc == 0 && b < runs[s]->v[r].nbench; b++) {
                const pg_rundoc_bench *rb = &runs[s]->v[r].bench[b];
                for (size_t t = 0; rc == 0 && t < rb->thresholds.n; t++) {
                    if (!rb->thresholds.v[t].metric)
                        continue;
                    snprintf(what, sizeof what, "%s: benchmark %s: manifest threshold", labels[s], rb->name);
                    rc = check(what, rb->thresholds.v[t].metric, &seen);
                }
            }
    free(seen.v);
    return rc;
}

/* "a (not in the baseline), b (failed in the candidate: exit status 3)" and
 * "and N more" past the first few: one line. */
static void list(char *buf, size_t len, const pg_comparison *c)
{
    size_t o = 0, shown = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->nmissing && o + 64 < len; i++, shown++) {
        if (shown == 5) {
            snprintf(buf + o, len - o, ", and %zu more", c->nmissing - shown);
            return;
        }
        char name[160];
        pg_text_escape_buf(name, sizeof name, c->missing[i].bench, PG_TEXT_TERM);
        o += (size_t)snprintf(buf + o, len - o, "%s%s (%s)", i ? ", " : "", name, c->missing[i].reason);
    }
}

int pg_gatecheck_missing(const pg_comparison *c, int allow_missing)
{
    char gates[256], items[2048];
    pg_render_gates(gates, sizeof gates, c->gates);
    list(items, sizeof items, c);
    if (!c->ngated)
        return pg_error_set(PG_EINVAL, "no gating metric (%s) was compared for any benchmark of %s and %s%s%s: nothing "
                            "to decide on", gates, c->base->label, c->cand->label, c->nmissing ? ": " : "", items);
    if (!c->nmissing)
        return 0;
    if (allow_missing) {
        pg_text_warn("warning: not gated (--allow-missing): %zu benchmark%s: %s", c->nmissing,
                     c->nmissing == 1 ? "" : "s", items);
        return 0;
    }
    return pg_error_set(PG_EINVAL,
                        "gating metric %s not compared for %zu benchmark%s: %s; pass --allow-missing to decide on what "
                        "was compared",
                        gates, c->nmissing, c->nmissing == 1 ? "" : "s", items);
}
