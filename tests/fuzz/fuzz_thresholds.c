/* Fuzz target: the thresholds file calibrate writes and compare reads
 * (<store>/thresholds.json, harness/store/calibration.h), for the machine "m" and
 * the backend "valgrind". What it accepts is a floor and a threshold that
 * are finite numbers >= 0 for each benchmark and metric. */
#include "tests/fuzz/fuzz.h"
#include "harness/store/calibration.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_floors f = {0};
    int rc = pg_calibration_parse(&f, (const char *)data, size, "thresholds.json", "m", "valgrind");
    pg_fuzz_check_error(rc);
    for (size_t i = 0; rc == 0 && i < f.n; i++)
        PG_FUZZ_ASSERT(isfinite(f.v[i].floor_pct) && f.v[i].floor_pct >= 0 && isfinite(f.v[i].threshold_pct) &&
                       f.v[i].threshold_pct >= 0);
    pg_floors_free(&f);
    return 0;
}
