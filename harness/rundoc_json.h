/* harness/rundoc_json.h — between the reader and the writer of rundoc.h only. */
#ifndef PG_HARNESS_RUNDOC_JSON_H
#define PG_HARNESS_RUNDOC_JSON_H

#include <cjson/cJSON.h>

/* Validates a parsed store document as the reader would, keeping nothing:
 * the writer appends to one it must not lose anything of. */
int pg_rundoc_check_store_json(const cJSON *doc, const char *file);

#endif
