/* harness/store/rundoc_json.h — between the reader and the writer of rundoc.h only. */
#ifndef PG_HARNESS_RUNDOC_JSON_H
#define PG_HARNESS_RUNDOC_JSON_H

#include "harness/store/rundoc.h"

#include <cjson/cJSON.h>

/* Validates a parsed store document as the reader would, keeping nothing:
 * the writer appends to one it must not lose anything of. */
int pg_rundoc_check_store_json(const cJSON *doc, const char *file);

/* Reads one run object of a note or store document into a new entry of
 * `out` (NULL: only validates it), as the reader would, strictly
 * (pg_json_check_strict); its place `index` in "runs" names it in errors. */
int pg_rundoc_read_run_json(pg_rundoc_list *out, const cJSON *run, const char *file, size_t index);

#endif
