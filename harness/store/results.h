/* harness/store/results.h — stored runs of one revision, merged for comparison.
 *
 * A revision may hold several runs on several machines. Comparison uses one
 * machine's runs: every run of that machine is merged per benchmark, its
 * metrics' samples concatenated (more runs, more samples), so statistics see
 * every raw value ever stored for the commit on that machine. The result is a
 * pg_side (report/series.h), the input of report/compare.h.
 */
#ifndef PG_HARNESS_RESULTS_H
#define PG_HARNESS_RESULTS_H

#include "harness/store/gitrepo.h"
#include "harness/store/rundoc.h"
#include "report/history.h"
#include "report/series.h"

#include <stddef.h>

/* Appends to `runs` every run of `commit`: those of the local store at
 * `store_root` first, then those of the commit's git note (harness/store/notes.h;
 * `repo` NULL: none) that the store does not hold. The store's copy of a run
 * wins because its stacks paths resolve here. PG_ENOTFOUND when neither has
 * any; a damaged document or note is an error naming it. */
int pg_results_load(pg_rundoc_list *runs, const char *store_root, pg_repo *repo, const char *commit);

/* Merges into `side` the runs of `machine_id` (NULL: every run) measured by
 * `backend` (NULL: any). A "stacks" path resolves inside `stacks_base` (the
 * store root, or the result file's directory; NULL: stacks are left out). An
 * exact metric given two different values is pooled, the two recorded
 * (pg_series_add_run): its spread is what compare decides against. */
int pg_results_collect(pg_side *side, const pg_rundoc_list *runs, const char *machine_id, const char *backend,
                       const char *stacks_base);
/* pg_results_collect, then `runs` freed: each benchmark as soon as it is
 * collected, so that a large document's memory becomes its side's rather
 * than both being held at once. */
int pg_results_take(pg_side *side, pg_rundoc_list *runs, const char *machine_id, const char *backend,
                    const char *stacks_base);

/* Says on stderr, one line a benchmark, where the exact counts of `runs`
 * do not repeat for one machine and backend (two values, where each came
 * from, and their spread): for `show`, which prints runs one by one. */
void pg_results_check_exact(const pg_rundoc_list *runs);

/* A benchmark's "stacks" path, taken from a document, as a file name under
 * `base` (the store root, or a result file's directory). Data never names a
 * file elsewhere: an absolute path, a "." or ".." component, no `base`, or
 * a link that leads out of `base` is PG_EINVAL saying so. */
int pg_results_stacks_path(char *out, size_t len, const char *stacks, const char *base);

/* Hands `h` (its commit `commit` just added) a side per machine and backend
 * of `runs`: those of `machine` (an id's prefix; NULL: any) and `backend`
 * (NULL: any), collected as pg_results_collect does. */
int pg_results_history_add(pg_history *h, const pg_rundoc_list *runs, const char *commit, const char *store,
                           const char *machine, const char *backend);

#endif
