/* harness/store/calibration.h — the thresholds `perfgate calibrate` measured, kept
 * in the store beside the results: <store>/thresholds.json
 *
 *     { "schema": "perfgate-thresholds/1",
 *       "machines": { "<machine-id>": { "<backend>": {
 *           "commit": "<full id>" | null, "time": "<ISO 8601 UTC>", "pairs": 5, "repeat": 1,
 *           "benchmarks": { "<name>": { "<metric>": { "floor_pct": 0.0001, "threshold_pct": 0.01 } } } } } } }
 *
 * Noise depends on the machine and on how it is measured, so a calibration
 * is keyed by both; a new one replaces the entry of its machine and backend
 * and keeps the others. The file is replaced atomically; one that is there
 * but is not such a document is never overwritten.
 */
#ifndef PG_HARNESS_CALIBRATION_H
#define PG_HARNESS_CALIBRATION_H

#include "report/calib.h"
#include "report/compare.h"

#include <stddef.h>

#define PG_CALIBRATION_FILE "thresholds.json"

/* <store_root>/thresholds.json */
void pg_calibration_path(char *out, size_t len, const char *store_root);

/* Adds to `floors` what was calibrated for (machine_id, backend). 0 with
 * nothing added when there is no file or no such entry; PG_EINVAL naming the
 * file and the JSON path of what is wrong. */
int pg_calibration_load(pg_floors *floors, const char *store_root, const char *machine_id, const char *backend);

/* The same from the text of a thresholds document (`path` names it in
 * errors): a document that is not one, strictly, or a floor or threshold
 * that is not a finite number >= 0, is PG_EINVAL naming where. */
int pg_calibration_parse(pg_floors *floors, const char *text, size_t len, const char *path, const char *machine_id,
                         const char *backend);

typedef struct pg_calibration_meta {
    const char *commit;     /* NULL: the tree had no commit */
    int pairs, repeat;
} pg_calibration_meta;

/* Whether a calibration could be saved without losing anything: 0 when
 * there is no thresholds.json or a valid one, else what pg_calibration_save
 * would fail with. For calibrate to check before it measures. */
int pg_calibration_check(const char *store_root);

/* Replaces the entry of (machine_id, backend) with `floors`; the path
 * written to `path_out`. PG_EINVAL for a file that is there but invalid, PG_EIO. */
int pg_calibration_save(char *path_out, size_t path_len, const char *store_root, const char *machine_id,
                        const char *backend, const pg_calibration_meta *meta, const pg_floors *floors);

/* Warns on stderr, one line each, of every gating metric of `c` whose
 * threshold in force is below the noise floor calibrate measured for it:
 * A/A runs on this machine differ by more, so expect false alarms. */
void pg_calibration_warn(const pg_comparison *c);

#endif
