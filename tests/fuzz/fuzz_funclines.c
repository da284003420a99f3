/* Fuzz target: a function table as compare's coverage reads it from the
 * store (<benchmark>.funclines.json beside its stacks; report/coverage.h),
 * mapped against a fixed change (a.c lines 3-5 and 40) and fixed stacks.
 * What it promises: it never fails but for memory; a table it takes gives
 * changed functions whose changed line lies in their span and a changed
 * line count that fits in it; one it refuses leaves a note and no mapping. */
#include "tests/fuzz/fuzz.h"
#include "report/coverage.h"

#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void clean(void)
{
    char p[128];
    snprintf(p, sizeof p, "%s/b.folded", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/b.funclines.json", dir);
    unlink(p);
    rmdir(dir);
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "w");
    PG_FUZZ_ASSERT(f && fwrite(data, 1, size, f) == size && fclose(f) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char stacks[128], table[128];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/pg-fuzz-funclines-%ld", (long)getpid());
        PG_FUZZ_ASSERT(mkdir(dir, 0700) == 0 || access(dir, W_OK) == 0);
        atexit(clean);
    }
    snprintf(stacks, sizeof stacks, "%s/b.folded", dir);
    snprintf(table, sizeof table, "%s/b.funclines.json", dir);
    static const char folded[] = "main;parse.part.0;hash 10\nmain;cold_init 2\n";
    write_file(stacks, (const uint8_t *)folded, sizeof folded - 1);
    write_file(table, data, size);

    pg_side a = {.stacks_exact = 1}, b = {.stacks_exact = 1, .label = "B"};
    pg_bench_cmp bench = {.name = "b", .stacks_a = stacks, .stacks_b = stacks};
    pg_comparison c = {.base = &a, .cand = &b, .bench = &bench, .nbench = 1};
    int range[2][2] = {{3, 5}, {40, 40}};
    pg_change_file file = {.path = "a.c", .range = range, .nrange = 2};
    pg_change ch = {.files = &file, .nfiles = 1};
    pg_coverage cv;
    int rc = pg_coverage_map(&cv, &ch, &c);
    PG_FUZZ_ASSERT(rc == 0 || rc == PG_ENOMEM);
    PG_FUZZ_ASSERT(cv.mapped || (cv.note && cv.note[0] && cv.nf == 0));
    PG_FUZZ_ASSERT(cv.nuncovered <= cv.nf);
    for (size_t i = 0; i < cv.nf; i++) {
        const pg_cov_func *f = &cv.f[i];
        PG_FUZZ_ASSERT(f->first <= f->changed_at && f->changed_at <= f->last);
        PG_FUZZ_ASSERT(f->nchanged >= 1 && f->nchanged <= (size_t)(f->last - f->first) + 1);
        PG_FUZZ_ASSERT(f->nbench <= 1);
    }
    pg_coverage_free(&cv);
    return 0;
}
