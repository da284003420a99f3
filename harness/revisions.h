/* harness/revisions.h — measuring revisions that have no stored results
 * (`compare --run-missing`).
 *
 * Each revision's tree is exported (libgit2) into its own temporary directory,
 * built with its manifest's "build" command there, and measured. When several
 * revisions are measured their runs are interleaved round by round (A, B, A, B,
 * ...) so drift of the machine hits all alike. Results are stored under each
 * revision's commit like `perfgate run` would. The temporary trees are always
 * removed, on success, failure and Ctrl-C.
 */
#ifndef PG_HARNESS_REVISIONS_H
#define PG_HARNESS_REVISIONS_H

#include "harness/gitrepo.h"
#include "harness/runner.h"
#include "harness/session.h"

#include <stddef.h>

/* Measures `n` commits (full ids); `bench_path` is relative to the work tree
 * root (e.g. "bench"). Only the benchmarks named in only[0..nonly) when
 * `only` is not NULL. Stores into `store_root`. */
int pg_revisions_measure(pg_repo *repo, const char *const *commits, size_t n, const char *bench_path,
                         pg_session *sess, const pg_run_opts *ro, const char *store_root, const char *const *only,
                         size_t nonly);

#endif
