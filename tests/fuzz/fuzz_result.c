/* Fuzz target: the result document — what `compare A.json B.json` and
 * `show FILE.json` do with a file: read and validate it (rundoc.h), merge its
 * runs for a comparison (results.h), print every benchmark's table (table.h),
 * and write it back (the writer must accept whatever the reader accepted). */
#include "tests/fuzz/fuzz.h"
#include "harness/store/results.h"
#include "harness/store/rundoc.h"
#include "harness/measure/table.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull)
        PG_FUZZ_ASSERT((devnull = fopen("/dev/null", "w")) != NULL);
    pg_rundoc_list runs = {0};
    int rc = pg_rundoc_parse(&runs, (const char *)data, size, "fuzz.json");
    pg_fuzz_check_error(rc);
    if (rc < 0) {
        pg_rundoc_list_free(&runs);
        return 0;
    }

    pg_side side = {0};
    rc = pg_results_collect(&side, &runs, NULL, NULL, "/fuzz/store");
    pg_fuzz_check_error(rc);
    pg_side_free(&side);

    for (size_t i = 0; i < runs.n; i++)
        for (size_t b = 0; b < runs.v[i].nbench; b++)
            for (int verbose = 0; verbose < 2; verbose++)
                pg_table_print_bench(devnull, &runs.v[i], &runs.v[i].bench[b], verbose);

    char *text = NULL;
    rc = pg_rundoc_list_write(&text, &runs);
    pg_fuzz_check_error(rc);
    free(text);
    pg_rundoc_list_free(&runs);
    return 0;
}
