/* harness/cli/gatecheck.h — `compare` fails closed: a gate that names no metric,
 * or a gating metric that was not compared, is an error, not a pass.
 *
 * A metric name is valid when perfgate knows it (util/metrics.h: registry,
 * aliases, valgrind's own counters) or a result of either side holds it (a
 * raw perf event counted with -e). Anything else would never match, so the
 * gate or threshold would silently do nothing.
 */
#ifndef PG_HARNESS_GATECHECK_H
#define PG_HARNESS_GATECHECK_H

#include "harness/store/rundoc.h"
#include "report/compare.h"
#include "report/threshold.h"

/* Checks the names of --gate `gates`, --threshold `cli` and the thresholds
 * stored with every benchmark of `runs` (n lists, the sides; a label each).
 * PG_EINVAL "--gate 'instruction': unknown metric (did you mean
 * 'instructions'?)" for the first unknown one. */
int pg_gatecheck_names(const pg_gates *gates, const pg_thresholds *cli, const pg_rundoc_list *const *runs,
                       const char *const *labels, size_t n);

/* Whether `c` may decide: PG_EINVAL when it compared no gating metric at all,
 * or when a benchmark was not gated (c->missing) and `allow_missing` is 0;
 * the message names the benchmarks (the first few) and their reasons. With
 * `allow_missing` the benchmarks not gated are a warning on stderr. */
int pg_gatecheck_missing(const pg_comparison *c, int allow_missing);

#endif
