/* harness/store.h — results on disk, keyed by commit and machine.
 *
 * Layout (docs/result-schema.md):
 *     <root>/results/<commit>/<machine-id>.json      a store document:
 *         { "schema": "perfgate-store/1", "commit": ..., "machine_id": ..., "runs": [ run, ... ] }
 * where each run is a whole run document (docs/result-schema.md) as printed by
 * `perfgate run --format json`. A second run on the same commit and machine is
 * appended; the file is replaced atomically under an exclusive lock, so a crash
 * or a Ctrl-C leaves the old file or the new one, and concurrent runs never lose
 * each other's results. Results keyed to no commit (outside a git repository)
 * go under <root>/results/nocommit/.
 */
#ifndef PG_HARNESS_STORE_H
#define PG_HARNESS_STORE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#define PG_STORE_SCHEMA "perfgate-store/1"
#define PG_NO_COMMIT "nocommit"

/* Where the store is: `option` (--store), else $PERFGATE_STORE, else
 * <workdir>/.perfgate (workdir NULL: none, PG_ENOTFOUND). */
int pg_store_root(char *out, size_t len, const char *option, const char *workdir);

/* Appends `run` (not consumed) to the document of (commit, machine_id); writes
 * the path it wrote to `path_out` when non-NULL. */
int pg_store_append(char *path_out, size_t path_len, const char *root, const char *commit,
                    const char *machine_id, const cJSON *run);

/* Every run stored for `commit`, over all machines, as a new JSON array of run
 * documents (caller frees). PG_ENOTFOUND when there is none. A file that is not
 * a store document is an error naming it. */
int pg_store_load(cJSON **runs, const char *root, const char *commit);

/* Reads a store document, a single run document (`run --format json`) or an
 * array of them (`show --format json`) from `path` into an array of run
 * documents (for `compare A.json B.json`). */
int pg_store_load_file(cJSON **runs, const char *path);

#endif
