/* harness/measure/table.h — a benchmark's result as the aligned table `run` and `show` print. */
#ifndef PG_HARNESS_TABLE_H
#define PG_HARNESS_TABLE_H

#include "harness/store/rundoc.h"

#include <stdio.h>

/* Prints one benchmark of a run document: each metric's median, spread
 * (± the largest distance of min or max from the median, in % of it), unit, and
 * the running fraction when counters were multiplexed. The registry's metrics
 * first, in its order (util/metrics.h); backend-specific extras (valgrind's
 * D1mr...) only when `verbose`. Failed benchmarks print the reason and the
 * tail of stderr. */
void pg_table_print_bench(FILE *out, const pg_rundoc *run, const pg_rundoc_bench *bench, int verbose);

#endif
