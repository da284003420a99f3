/* Fuzz target: folded stacks (util/folded.c, pg_folded_parse).
 * Accepted text must survive a round trip: written out and parsed again it
 * gives the same stacks, counts and text; entries come out sorted. */
#include "tests/fuzz/fuzz.h"
#include "util/folded.h"

static char *write_text(const pg_folded *f, size_t *len)
{
    char *buf = NULL;
    FILE *m = open_memstream(&buf, len);
    PG_FUZZ_ASSERT(m);
    PG_FUZZ_ASSERT(pg_folded_write(f, m) == 0);
    fclose(m);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_folded *f, *g;
    PG_FUZZ_ASSERT(pg_folded_new(&f) == 0);
    int rc = pg_folded_parse(f, (const char *)data, size, "fuzz.folded");
    pg_fuzz_check_error(rc);
    if (rc == 0) {
        size_t n = pg_folded_count(f);
        const pg_folded_entry *e = pg_folded_entries(f);
        PG_FUZZ_ASSERT(n == 0 || e);
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++) {
            sum += e[i].count;
            PG_FUZZ_ASSERT(i == 0 || pg_folded_stack_cmp(e[i - 1].stack, e[i].stack) < 0);
        }
        PG_FUZZ_ASSERT(sum == pg_folded_total(f));

        size_t len, len2;
        char *text = write_text(f, &len);
        PG_FUZZ_ASSERT(pg_folded_new(&g) == 0);
        PG_FUZZ_ASSERT(pg_folded_parse(g, text, len, "round-trip") == 0);
        PG_FUZZ_ASSERT(pg_folded_count(g) == n && pg_folded_total(g) == sum);
        char *text2 = write_text(g, &len2);
        PG_FUZZ_ASSERT(len == len2 && memcmp(text, text2, len) == 0);
        free(text);
        free(text2);
        pg_folded_free(g);
    }
    pg_folded_free(f);
    return 0;
}
