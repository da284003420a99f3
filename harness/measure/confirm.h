/* harness/measure/confirm.h — the second round of `compare --run-missing`
 * (report/confirm.h): the benchmarks whose regression rests on noisy gating
 * metrics are measured again at both revisions, interleaved (A B A B ...:
 * harness/measure/revisions.h), the new runs are stored like any other, and the
 * comparison of those new samples alone settles the first one.
 */
#ifndef PG_HARNESS_CONFIRM_H
#define PG_HARNESS_CONFIRM_H

#include "harness/store/gitrepo.h"
#include "harness/store/rundoc.h"
#include "harness/measure/runner.h"
#include "report/compare.h"

typedef struct pg_round2 {
    pg_rundoc_list runs[2];     /* every run stored for each commit, the new ones last */
    pg_side side[2];
    pg_comparison c;
    int compared;
} pg_round2;

/* Measures again the benchmarks of `c` that report/confirm.h wants confirmed,
 * at commits[0] and commits[1], with `backend` and `ro` (native runs too when
 * `native`), with the benchmarks `bench_path` names (revisions.h, `worktree`
 * as there); stores the runs in `store_root` (and the git notes when `notes`);
 * compares them with `co` into r->c and applies the result to `c`. `r`
 * (zeroed by the caller) must outlive `c`; free it with pg_round2_free. */
int pg_round2_run(pg_round2 *r, pg_comparison *c, pg_repo *repo, const char *const commits[2], const char *bench_path,
                  const char *worktree, pg_backend_kind backend, int native, int notes, const pg_run_opts *ro,
                  const char *store_root, const pg_compare_opts *co);
void pg_round2_free(pg_round2 *r);

#endif
