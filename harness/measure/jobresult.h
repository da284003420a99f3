/* harness/measure/jobresult.h — a --jobs worker's result, checked.
 *
 * A worker of `run --jobs` (jobs.h) sends the parent one benchmark's entry
 * as a run document of one benchmark (runner.c writes it). The parent
 * takes it only as the answer to what it handed out: one run, of the
 * backend it measures with, holding exactly the benchmark of that item,
 * by name; anything else is refused with an error naming the item, so that
 * no result can stand for another benchmark's.
 */
#ifndef PG_HARNESS_JOBRESULT_H
#define PG_HARNESS_JOBRESULT_H

#include "harness/store/rundoc.h"

#include <stddef.h>

/* `text` (`len` bytes, the result of item `item`) into *out, when it is one
 * run of backend `backend` measuring the one benchmark `name`; else
 * PG_EIO (or the reader's PG_EINVAL) saying why, *out untouched. */
int pg_jobresult_read(pg_rundoc *out, const char *text, size_t len, size_t item, const char *name,
                      const char *backend);

#endif
