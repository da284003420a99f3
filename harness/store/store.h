/* harness/store/store.h — results on disk, keyed by commit and machine.
 *
 * Layout (docs/result-schema.md):
 *     <root>/results/<commit>/<machine-id>.json      a store document:
 *         { "schema": "perfgate-store/1", "commit": ..., "machine_id": ..., "runs": [ run, ... ] }
 * where each run is a whole run document (harness/store/rundoc.h) as printed by
 * `perfgate run --format json`. A second run on the same commit and machine is
 * appended; the file is replaced atomically under an exclusive lock, so a crash
 * or a Ctrl-C leaves the old file or the new one, and concurrent runs never lose
 * each other's results. Results keyed to no commit (outside a git repository)
 * go under <root>/results/nocommit/. Each run's benchmark logs are in
 * <root>/logs/<commit>/<machine-id>/<run-id>/. This module does the files and the
 * locking; rundoc.h owns what is in them.
 */
#ifndef PG_HARNESS_STORE_H
#define PG_HARNESS_STORE_H

#include "harness/store/rundoc.h"
#include "util/owned_dir.h"

#include <stddef.h>

#define PG_NO_COMMIT "nocommit"

/* Where the store is: `option` (--store), else $PERFGATE_STORE, else
 * <workdir>/.perfgate (workdir NULL: none, PG_ENOTFOUND). */
int pg_store_root(char *out, size_t len, const char *option, const char *workdir);

/* The directory of one run's files of a kind ("stacks", "logs"), relative to
 * the store root: <kind>/<commit or nocommit>/<machine_id>/<run_id>, the run
 * id's ':' as '-' (they would trouble CI artifact uploads). */
void pg_store_run_path(char *rel, size_t len, const char *kind, const char *commit, const char *machine_id,
                       const char *run_id);

/* Makes <root>/<pg_store_run_path("logs", ...)>, owned (util/owned_dir.h):
 * each run's benchmark logs are its own, never overwritten by a later run.
 * Release it keeping its files once the run is stored, else removing them. */
int pg_store_logs_open(pg_owned_dir *d, const char *root, const char *commit, const char *machine_id,
                       const char *run_id);

/* Checks, before anything is measured, that a run of (commit, machine_id)
 * can be stored: the directory can be made and written, and the document
 * already there (if any) is a valid store document. An error says which, so
 * no measurement is made only to be lost. */
int pg_store_check(const char *root, const char *commit, const char *machine_id);

/* Appends `run` to the document of (commit, machine_id); writes the path it
 * wrote to `path_out` when non-NULL. A document that is there but invalid is
 * never overwritten: PG_EINVAL naming it; nor is a run written that the
 * reader would refuse (a benchmark named twice): PG_EINVAL saying why, the
 * document as it was. */
int pg_store_append(char *path_out, size_t path_len, const char *root, const char *commit,
                    const char *machine_id, const pg_rundoc *run);

/* Appends to `runs` every run stored for `commit`, over all machines.
 * PG_ENOTFOUND when there is none. A file that is not a valid store document
 * is an error naming it and the place in it. */
int pg_store_load(pg_rundoc_list *runs, const char *root, const char *commit);

/* Reads a store document, a single run document (`run --format json`) or an
 * array of them (`show --format json`) from `path` into `runs` (for
 * `compare A.json B.json` and `show FILE`). */
int pg_store_load_file(pg_rundoc_list *runs, const char *path);

#endif
