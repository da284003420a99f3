/* harness/table.h — a benchmark's result as the aligned table `run` and `show` print. */
#ifndef PG_HARNESS_TABLE_H
#define PG_HARNESS_TABLE_H

#include <cjson/cJSON.h>
#include <stdio.h>

/* Prints one benchmark object of a run document: each metric's median, spread
 * (± the largest distance of min or max from the median, in % of it), unit, and
 * the running fraction when counters were multiplexed. Backend-specific extras
 * (valgrind's D1mr...) only when `verbose`. Failed benchmarks print the reason
 * and the tail of stderr. */
void pg_table_print_bench(FILE *out, const cJSON *bench, int verbose);

/* Formats a value for people: counts with thousands separators, ns as ms or s,
 * bytes as KiB/MiB. Writes the unit shown into `unit_out`. */
void pg_table_format(char *buf, size_t len, char *unit_out, size_t ulen, double v, const char *unit);

#endif
