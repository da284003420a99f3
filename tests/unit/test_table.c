/* The per-benchmark table: median, spread, units, and the running fraction
 * shown only when the PMU multiplexed the counter. */
#include "harness/table.h"
#include "report/format.h"
#include "tests/check.h"

#include <stdlib.h>

static cJSON *metric(cJSON *metrics, const char *name, const char *unit, const double *v, const double *run, int n)
{
    cJSON *m = cJSON_AddObjectToObject(metrics, name);
    cJSON_AddStringToObject(m, "unit", unit);
    cJSON_AddStringToObject(m, "backend", "perf");
    cJSON_AddItemToObject(m, "samples", cJSON_CreateDoubleArray(v, n));
    cJSON_AddItemToObject(m, "running", cJSON_CreateDoubleArray(run, n));
    return m;
}

int main(void)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "name", "sort");
    cJSON_AddStringToObject(b, "status", "ok");
    cJSON_AddNumberToObject(b, "runs", 3);
    cJSON *ms = cJSON_AddObjectToObject(b, "metrics");
    metric(ms, "instructions", "count", (double[]){1000000, 1010000, 990000}, (double[]){0.5, 0.75, 0.6}, 3);
    metric(ms, "task-clock", "ns", (double[]){2e6, 2.2e6, 2.1e6}, (double[]){1, 1, 1}, 3);
    metric(ms, "max-rss", "bytes", (double[]){4194304, 4194304, 4194304}, (double[]){1, 1, 1}, 3);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pg_table_print_bench(f, b, 0);
    fclose(f);
    CHECK_CONTAINS(text, "sort  (3 runs)");
    CHECK_CONTAINS(text, "1,000,000 count  ± 1.00%     running 50.0%\n");
    CHECK_CONTAINS(text, "2.100 ms     ± 4.76%\n");
    CHECK_CONTAINS(text, "4.0 MiB    ± 0.00%\n");
    /* Only the multiplexed counter says so. */
    const char *first = strstr(text, "running");
    CHECK(first && strstr(first + 1, "running") == NULL);
    free(text);

    char buf[64], unit[16];
    pg_format_value(buf, sizeof buf, unit, sizeof unit, 1234567890, "count");
    CHECK_STR(buf, "1,234,567,890");
    CHECK_STR(unit, "count");
    pg_format_value(buf, sizeof buf, unit, sizeof unit, 2.5e9, "ns");
    CHECK_STR(unit, "s");
    cJSON_Delete(b);
    return pg_check_done();
}
