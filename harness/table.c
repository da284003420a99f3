#include "harness/table.h"
#include "report/format.h"
#include "report/stats.h"
#include "util/jsonfile.h"
#include "util/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const shared[] = {
    "instructions", "cycles", "cache-misses", "branch-misses", "task-clock", "wall-time",
    "page-faults", "context-switches", "cpu-migrations", "max-rss", NULL,
};

static int is_shared(const char *n)
{
    for (const char *const *s = shared; *s; s++)
        if (!strcmp(*s, n))
            return 1;
    return 0;
}

static void print_metric(FILE *out, const char *name, const cJSON *m)
{
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(m, "samples");
    const cJSON *running = cJSON_GetObjectItemCaseSensitive(m, "running");
    const char *unit = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "unit"));
    int n = cJSON_GetArraySize(samples);
    if (n == 0)
        return;
    double *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return;
    double minrun = 1.0;
    for (int i = 0; i < n; i++) {
        v[i] = cJSON_GetArrayItem(samples, i)->valuedouble;
        const cJSON *r = cJSON_GetArrayItem(running, i);
        if (r && r->valuedouble < minrun)
            minrun = r->valuedouble;
    }
    double med = pg_stats_median(v, (size_t)n);
    double lo = v[0], hi = v[0];
    for (int i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    free(v);
    char val[64], u[16], spread[32];
    pg_format_value(val, sizeof val, u, sizeof u, med, unit ? unit : "");
    double dev = fmax(hi - med, med - lo);
    if (n == 1)
        snprintf(spread, sizeof spread, "(1 run)");
    else if (med != 0)
        snprintf(spread, sizeof spread, "± %.2f%%", 100.0 * dev / fabs(med));
    else
        snprintf(spread, sizeof spread, "± %.0f", dev);
    char tn[256], tu[64];
    fprintf(out, "  %-22s %18s %-6s ", pg_text_escape_buf(tn, sizeof tn, name, PG_TEXT_TERM), val,
            pg_text_escape_buf(tu, sizeof tu, u, PG_TEXT_TERM));
    if (minrun < 0.9995)
        fprintf(out, "%-12s running %.1f%%\n", spread, 100.0 * minrun);
    else
        fprintf(out, "%s\n", spread);
}

void pg_table_print_bench(FILE *out, const cJSON *b, int verbose)
{
    /* Names, reasons and a child's stderr are shown escaped for the terminal
     * (util/text.h): a benchmark cannot write escape sequences through us. */
    char name[512], t1[256], t2[256];
    pg_text_escape_buf(name, sizeof name, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "name")), PG_TEXT_TERM);
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "status"));
    int runs = pg_json_int(cJSON_GetObjectItemCaseSensitive(b, "runs"), 0);
    const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(b, "metrics");
    const cJSON *fail = cJSON_GetObjectItemCaseSensitive(b, "failure");
    if (status && !strcmp(status, "failed")) {
        const char *reason = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fail, "reason"));
        const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fail, "phase"));
        int run = pg_json_int(cJSON_GetObjectItemCaseSensitive(fail, "run"), 0);
        fprintf(out, "%s  FAILED: %s (%s %d)\n", name, pg_text_escape_buf(t1, sizeof t1, reason ? reason : "?", PG_TEXT_TERM),
                pg_text_escape_buf(t2, sizeof t2, phase ? phase : "run", PG_TEXT_TERM), run);
        const char *tail = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fail, "stderr_tail"));
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
        const char *log = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "stderr_log"));
        if (log) {
            char lg[4200];
            fprintf(out, "  full log: %s\n", pg_text_escape_buf(lg, sizeof lg, log, PG_TEXT_TERM));
        }
        fputc('\n', out);
        return;
    }
    fprintf(out, "%s  (%d run%s)\n", name, runs, runs == 1 ? "" : "s");
    fprintf(out, "  %-22s %18s %-6s %s\n", "metric", "median", "unit", "spread");
    for (const char *const *s = shared; *s; s++) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(metrics, *s);
        if (m)
            print_metric(out, *s, m);
    }
    int hidden = 0;
    for (const cJSON *m = cJSON_IsObject(metrics) ? metrics->child : NULL; m; m = m->next) {
        if (is_shared(m->string))
            continue;
        const char *be = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "backend"));
        if (!verbose && be && !strcmp(be, "valgrind")) {
            hidden++;
            continue;
        }
        print_metric(out, m->string, m);
    }
    if (hidden)
        fprintf(out, "  (+%d valgrind metrics: -v shows them)\n", hidden);
    fputc('\n', out);
}
