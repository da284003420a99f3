/* Fuzz target: the result document — what `compare A.json B.json` and
 * `show FILE.json` do with a file: load it (store.h), merge its runs for a
 * comparison (results.h), print every benchmark's table (table.h).
 *
 * The document goes through a file because that is the entry point today:
 * a memfd named by /proc/self/fd/N, so no disk is touched. When the document
 * has a from-memory reader, only read_doc() below changes. */
#include "tests/fuzz/fuzz.h"
#include "harness/results.h"
#include "harness/store.h"
#include "harness/table.h"

#include <sys/mman.h>
#include <unistd.h>

static int read_doc(cJSON **runs, const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz-result", MFD_CLOEXEC);
        PG_FUZZ_ASSERT(fd >= 0);
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    PG_FUZZ_ASSERT(ftruncate(fd, 0) == 0);
    PG_FUZZ_ASSERT(size == 0 || pwrite(fd, data, size, 0) == (ssize_t)size);
    return pg_store_load_file(runs, path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull)
        PG_FUZZ_ASSERT((devnull = fopen("/dev/null", "w")) != NULL);
    cJSON *runs = NULL;
    int rc = read_doc(&runs, data, size);
    pg_fuzz_check_error(rc);
    if (rc < 0)
        return 0;
    PG_FUZZ_ASSERT(cJSON_IsArray(runs));

    pg_side side = {0};
    rc = pg_results_collect(&side, runs, NULL, NULL, "/fuzz/store");
    pg_fuzz_check_error(rc);
    pg_side_free(&side);

    const cJSON *run, *b;
    cJSON_ArrayForEach(run, runs)
        cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(run, "benchmarks"))
            for (int verbose = 0; verbose < 2; verbose++)
                pg_table_print_bench(devnull, b, verbose);
    cJSON_Delete(runs);
    return 0;
}
