/* report/speedscope.h — folded stacks as a speedscope file
 * (https://www.speedscope.app/file-format-schema.json), which speedscope
 * opens in its time-order, left-heavy and sandwich views.
 *
 *     {"$schema": "https://www.speedscope.app/file-format-schema.json",
 *      "shared": {"frames": [{"name": "main"}, ...]},
 *      "profiles": [{"type": "sampled", "name": NAME, "unit": "none",
 *                    "startValue": 0, "endValue": TOTAL,
 *                    "samples": [[0, 3, 7], ...], "weights": [42, ...]}],
 *      "exporter": "perfgate VERSION", "name": NAME}
 *
 * One frame per distinct name (made valid UTF-8), one sample per stack with
 * its frame indices root first and its count as weight; the weights add up to
 * endValue. Counts above 2^53 lose precision as JSON numbers.
 */
#ifndef PG_REPORT_SPEEDSCOPE_H
#define PG_REPORT_SPEEDSCOPE_H

#include "util/folded.h"

#include <stddef.h>

/* `f` as a speedscope document into *out (malloc'd, NUL-terminated, *len its
 * length); `name` names the profile (NULL: "perfgate"). PG_EINVAL when `f`
 * has no samples; PG_ENOMEM. `f` is only read. */
int pg_speedscope_encode(char **out, size_t *len, pg_folded *f, const char *name);


#endif
