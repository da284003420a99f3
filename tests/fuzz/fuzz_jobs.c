/* Fuzz target: what a --jobs worker sends the parent (harness/measure/jobs.h,
 * jobresult.h), as the parent takes it. The input is one options byte, then
 * the bytes of one worker's channel: the parent hands it item 0 of the
 * benchmarks "a", "b", "c" (valgrind) and the next item after each complete
 * answer, as pg_jobs_run does; the options byte says in what pieces the
 * bytes arrive (0: at once; k: k bytes at a time). Each result is then read
 * as runner.c reads it.
 *
 * Checked: a refusal says why in one line; an answer is only ever taken for
 * the item that worker was handed, and once; a result read back holds one
 * benchmark, the one of its item, measured by valgrind. */
#include "tests/fuzz/fuzz.h"
#include "harness/measure/jobresult.h"
#include "harness/measure/jobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"a", "b", "c"};
    enum { N = 3 };
    if (size < 1)
        return 0;
    size_t piece = data[0] ? data[0] : size;
    data++, size--;
    pg_jobs j;
    if (pg_jobs_init(&j, N) < 0)
        return 0;
    pg_jobs_conn c = {.worker = 1, .busy = 1, .item = 0};
    size_t handed = 1;
    int rc = 0;
    for (size_t off = 0; off < size && rc >= 0;) {
        size_t n = size - off < piece ? size - off : piece;
        rc = pg_jobs_receive(&j, &c, data + off, n);
        off += n;
        pg_fuzz_check_error(rc);
        if (rc == 1) {
            PG_FUZZ_ASSERT(!c.busy);
            /* Nothing was taken for an item not yet handed out. */
            for (size_t k = handed; k < N; k++)
                PG_FUZZ_ASSERT(!j.text[k]);
            if (handed < N)
                c.item = handed++, c.busy = 1;
        }
    }
    for (size_t i = 0; i < N; i++) {
        size_t len;
        const char *text = pg_jobs_result(&len, &j, i);
        if (!text)
            continue;
        PG_FUZZ_ASSERT(i < handed && text[len] == '\0');
        pg_rundoc r;
        int k = pg_jobresult_read(&r, text, len, i, names[i], "valgrind");
        pg_fuzz_check_error(k);
        if (k == 0) {
            PG_FUZZ_ASSERT(r.nbench == 1 && !strcmp(r.bench[0].name, names[i]) && !strcmp(r.backend, "valgrind"));
            pg_rundoc_free(&r);
        }
    }
    if (j.error)
        PG_FUZZ_ASSERT(j.error_item < handed);
    pg_jobs_conn_free(&c);
    pg_jobs_free(&j);
    return 0;
}
