/* harness/measure/table.c — see table.h. */
#include "harness/measure/table.h"
#include "report/format.h"
#include "report/stats.h"
#include "util/metrics.h"
#include "util/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void print_metric(FILE *out, const pg_rundoc_metric *m)
{
    size_t n = m->n;
    if (n == 0)
        return;
    double *v = malloc(n * sizeof *v);
    if (!v)
        return;
    double minrun = 1.0;
    for (size_t i = 0; i < n; i++) {
        v[i] = m->samples[i];
        if (pg_rundoc_metric_running(m, i) < minrun)
            minrun = pg_rundoc_metric_running(m, i);
    }
    double med = pg_stats_median(v, n);
    double lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    free(v);
    char val[64], u[16], spread[32];
    pg_format_value(val, sizeof val, u, sizeof u, med, m->unit ? m->unit : "");
    double dev = fmax(hi - med, med - lo);
    if (n == 1)
        snprintf(spread, sizeof spread, "(1 run)");
    else if (med != 0)
        snprintf(spread, sizeof spread, "± %.2f%%", 100.0 * dev / fabs(med));
    else
        snprintf(spread, sizeof spread, "± %.0f", dev);
    char tn[256], tu[64];
    fprintf(out, "  %-22s %18s %-6s ", pg_text_escape_buf(tn, sizeof tn, m->name, PG_TEXT_TERM), val,
            pg_text_escape_buf(tu, sizeof tu, u, PG_TEXT_TERM));
    if (minrun < 0.9995)
        fprintf(out, "%-12s running %.1f%%\n", spread, 100.0 * minrun);
    else
        fprintf(out, "%s\n", spread);
}

/* Names, reasons and a child's stderr are shown escaped for the terminal
 * (util/text.h): a benchmark cannot write escape sequences through us. */
static void print_failure(FILE *out, const pg_rundoc_bench *b)
{
    const pg_rundoc_failure *f = &b->failure;
    char name[512], t1[256], t2[256];
    fprintf(out, "%s  FAILED: %s (%s %d)\n", pg_text_escape_buf(name, sizeof name, b->name, PG_TEXT_TERM),
            pg_text_escape_buf(t1, sizeof t1, f->reason ? f->reason : "?", PG_TEXT_TERM),
            pg_text_escape_buf(t2, sizeof t2, f->phase ? f->phase : "run", PG_TEXT_TERM), f->run);
    const char *tail = f->stderr_tail;
    if (tail && *tail) {
        fprintf(out, "  stderr (last lines):\n");
        /* Only the last few lines: the full log is on disk. */
        int lines = 0;
        const char *p = tail + strlen(tail);
        while (p > tail && lines < 6)
            if (*--p == '\n' && p[1])
                lines++;
        if (*p == '\n')
            p++;
        for (const char *q = p; *q;) {
            size_t l = strcspn(q, "\n");
            fputs("    | ", out);
            pg_text_fwrite(out, q, l, PG_TEXT_TERM);
            fputc('\n', out);
            q += l + (q[l] == '\n');
        }
    }
    if (b->stderr_log) {
        char lg[4200];
        fprintf(out, "  full log: %s\n", pg_text_escape_buf(lg, sizeof lg, b->stderr_log, PG_TEXT_TERM));
    }
    fputc('\n', out);
}

void pg_table_print_bench(FILE *out, const pg_rundoc *run, const pg_rundoc_bench *b, int verbose)
{
    if (b->failed) {
        print_failure(out, b);
        return;
    }
    char name[512];
    fprintf(out, "%s  (%d run%s)\n", pg_text_escape_buf(name, sizeof name, b->name, PG_TEXT_TERM), b->runs,
            b->runs == 1 ? "" : "s");
    if (b->reused_run) {
        char id[160], commit[64];
        fprintf(out, "  exact counts reused from run %s%s%.12s: nothing they depend on changed (key %.12s)\n",
                pg_text_escape_buf(id, sizeof id, b->reused_run, PG_TEXT_TERM), b->reused_commit ? " of " : "",
                b->reused_commit ? pg_text_escape_buf(commit, sizeof commit, b->reused_commit, PG_TEXT_TERM) : "",
                b->reuse_key ? b->reuse_key : "");
    }
    fprintf(out, "  %-22s %18s %-6s %s\n", "metric", "median", "unit", "spread");
    const pg_metric_info *info;
    for (size_t i = 0; (info = pg_metric_at(i)); i++) {
        const pg_rundoc_metric *m = pg_rundoc_metric_find(b, info->name);
        if (m)
            print_metric(out, m);
    }
    int hidden = 0;
    char own[64] = "";      /* whose own counters the hidden ones are: the backend the document names */
    for (size_t i = 0; i < b->nmetrics; i++) {
        const pg_rundoc_metric *m = &b->metrics[i];
        if (pg_metric_find(m->name))
            continue;
        pg_rundoc_props by;
        if (!verbose && pg_rundoc_backend_props(&by, run, m->source) && by.simulated && !pg_metric_is_calls(m->name)) {
            hidden++;
            snprintf(own, sizeof own, "%s", !own[0] || !strcmp(own, by.name) ? by.name : "backend");
            continue;
        }
        print_metric(out, m);
    }
    if (hidden)
        fprintf(out, "  (+%d %s metrics: -v shows them)\n", hidden, pg_text_escape_buf(name, sizeof name, own, PG_TEXT_TERM));
    fputc('\n', out);
}
