/* The per-benchmark table: median, spread, units, the running fraction
 * shown only when the PMU multiplexed the counter, and the registry's order. */
#include "harness/measure/table.h"
#include "report/format.h"
#include "tests/check.h"

#include <stdlib.h>

static void metric(pg_rundoc_bench *b, const char *name, const char *unit, const char *source, const double *v,
                   const double *run, int n)
{
    pg_rundoc_metric *m;
    CHECK_EQ_INT(pg_rundoc_metric_get(&m, b, name, unit, source), 0);
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(pg_rundoc_metric_push(m, v[i], run[i]), 0);
}

static char *print(const pg_rundoc *run, const pg_rundoc_bench *b, int verbose)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pg_table_print_bench(f, run, b, verbose);
    fclose(f);
    return text;
}

int main(void)
{
    pg_rundoc doc = {0};
    pg_rundoc_bench *b;
    CHECK_EQ_INT(pg_rundoc_add_bench(&b, &doc), 0);
    pg_rundoc_set(&b->name, "sort");
    b->runs = 3;
    metric(b, "D1mr", "count", "valgrind", (double[]){7, 7, 7}, (double[]){1, 1, 1}, 3);
    metric(b, "max-rss", "bytes", "os", (double[]){4194304, 4194304, 4194304}, (double[]){1, 1, 1}, 3);
    metric(b, "task-clock", "ns", "perf", (double[]){2e6, 2.2e6, 2.1e6}, (double[]){1, 1, 1}, 3);
    metric(b, "instructions", "count", "perf", (double[]){1000000, 1010000, 990000}, (double[]){0.5, 0.75, 0.6}, 3);

    char *text = print(&doc, b, 0);
    CHECK_CONTAINS(text, "sort  (3 runs)");
    CHECK_CONTAINS(text, "1,000,000 count  ± 1.00%     running 50.0%\n");
    CHECK_CONTAINS(text, "2.100 ms     ± 4.76%\n");
    CHECK_CONTAINS(text, "4.0 MiB    ± 0.00%\n");
    /* Only the multiplexed counter says so. */
    const char *first = strstr(text, "running");
    CHECK(first && strstr(first + 1, "running") == NULL);
    /* The registry's order, whatever the order measured. */
    CHECK(strstr(text, "instructions") < strstr(text, "task-clock"));
    CHECK(strstr(text, "task-clock") < strstr(text, "max-rss"));
    /* valgrind's own metrics only with -v. */
    CHECK(strstr(text, "D1mr") == NULL);
    CHECK_CONTAINS(text, "(+1 valgrind metrics: -v shows them)");
    /* ...named as the document names their backend, whichever it is */
    pg_rundoc other = {0};
    pg_rundoc_bench *ob;
    CHECK_EQ_INT(pg_rundoc_add_bench(&ob, &other), 0);
    pg_rundoc_set(&ob->name, "alloc");
    ob->runs = 1;
    other.backends[other.nbackends++] = (pg_rundoc_props){.name = "heapsim", .exact = 1, .simulated = 1};
    metric(ob, "pp-blocks", "count", "heapsim", (double[]){7}, (double[]){1}, 1);
    char *otext = print(&other, ob, 0);
    CHECK_CONTAINS(otext, "(+1 heapsim metrics: -v shows them)");
    CHECK(!strstr(otext, "valgrind"));
    free(otext);
    free(text);
    text = print(&doc, b, 1);
    CHECK_CONTAINS(text, "D1mr");
    free(text);

    /* A failed benchmark: the reason, where, and the tail of stderr. */
    b->failed = 1;
    pg_rundoc_set(&b->failure.reason, "exit status 3");
    pg_rundoc_set(&b->failure.phase, "measured run");
    b->failure.run = 2;
    pg_rundoc_set(&b->failure.stderr_tail, "one\ntwo\n");
    text = print(&doc, b, 0);
    CHECK_CONTAINS(text, "sort  FAILED: exit status 3 (measured run 2)\n");
    CHECK_CONTAINS(text, "    | two\n");
    free(text);

    char buf[64], unit[16];
    pg_format_value(buf, sizeof buf, unit, sizeof unit, 1234567890, "count");
    CHECK_STR(buf, "1,234,567,890");
    CHECK_STR(unit, "count");
    pg_format_value(buf, sizeof buf, unit, sizeof unit, 2.5e9, "ns");
    CHECK_STR(unit, "s");
    pg_rundoc_free(&doc);
    pg_rundoc_free(&other);
    return pg_check_done();
}
