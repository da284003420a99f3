/* Fuzz target: what a Google Benchmark run leaves (counters/gbench.c): its
 * JSON report (pg_gbench_parse_json) and callgrind's dumps at the timed
 * region's edges (pg_gbench_parse_dump, which reads a NUL-terminated text).
 * A report accepted lists at least one run, each with its samples: every
 * value finite (what is stored must read back), and no metric with more
 * samples than the report has runs (a key given twice in a run is not two). */
#include "tests/fuzz/fuzz.h"
#include "counters/gbench.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_gbench_report rep;
    pg_readings r = {0};
    int rc = pg_gbench_parse_json(&rep, &r, "perf", (const char *)data, size);
    pg_fuzz_check_error(rc);
    if (rc == 0) {
        PG_FUZZ_ASSERT(rep.runs > 0);
        PG_FUZZ_ASSERT(isfinite(rep.iterations) && rep.iterations >= 0);
        for (size_t i = 0; i < r.n; i++) {
            PG_FUZZ_ASSERT(isfinite(r.v[i].value));
            size_t same = 0;
            for (size_t j = 0; j < r.n; j++)
                same += !strcmp(r.v[i].name, r.v[j].name);
            PG_FUZZ_ASSERT(same <= rep.runs);
        }
        free(rep.error);
    }
    pg_readings_free(&r);

    char *text = malloc(size + 1);
    PG_FUZZ_ASSERT(text);
    memcpy(text, data, size);
    text[size] = '\0';
    int part, trigger;
    unsigned long long ir;
    rc = pg_gbench_parse_dump(&part, &trigger, &ir, text, "callgrind.out.fuzz");
    pg_fuzz_check_error(rc);
    if (rc == 0)
        PG_FUZZ_ASSERT(part > 0 && trigger >= PG_GBENCH_TRIGGER_OTHER && trigger <= PG_GBENCH_TRIGGER_END_BATCH);
    free(text);
    return 0;
}
