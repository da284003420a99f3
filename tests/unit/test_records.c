/* Records as the sampler and the profile decode them (counters/sampler.h,
 * profile.h), each in an allocation of exactly its size so that a read past
 * a record is an ASan error: a record too short for its fields, or whose
 * name does not end inside it, is skipped; counts in a sample never take
 * the decoder past its end. Found by fuzzing (tests/fuzz/fuzz_records.c). */
#include "counters/profile.h"
#include "counters/sampler.h"
#include "tests/check.h"

#include <stdlib.h>

/* A record of `type` with body[0..len) (len need not be a multiple of 8). */
static struct perf_event_header *rec(uint32_t type, uint16_t misc, const void *body, size_t len)
{
    struct perf_event_header *h = malloc(sizeof *h + len);
    h->type = type;
    h->misc = misc;
    h->size = (uint16_t)(sizeof *h + len);
    memcpy(h + 1, body, len);
    return h;
}

static int add(pg_profile *p, struct perf_event_header *h)
{
    int rc = pg_profile_add(p, h);
    free(h);
    return rc;
}

static int keep(pg_sampler *s, struct perf_event_header *h)
{
    int rc = pg_sampler_keep(s, h);
    free(h);
    return rc;
}

int main(void)
{
    pg_sampler_opts o = {.pinned_cpu = -1};   /* dwarf: IP, TID, TIME, PERIOD, REGS_USER, STACK_USER */
    pg_sampler *s;
    pg_folded *f;
    pg_profile *p;
    CHECK_EQ_INT(pg_sampler_new(&s, &o), 0);
    CHECK_EQ_INT(pg_folded_new(&f), 0);
    CHECK_EQ_INT(pg_profile_new(&p, f, s), 0);

    /* pid 7 becomes "bench"; a COMM whose name has no NUL inside the record does not rename it. */
    struct { uint32_t pid, tid; char comm[8]; } comm = {7, 7, "bench"};
    CHECK_EQ_INT(add(p, rec(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, &comm, sizeof comm)), 0);
    memcpy(comm.comm, "xxxxxxxx", 8);
    CHECK_EQ_INT(add(p, rec(PERF_RECORD_COMM, 0, &comm, sizeof comm)), 0);
    CHECK_EQ_INT(add(p, rec(PERF_RECORD_COMM, 0, &comm, 8)), 0);
    /* MMAP / MMAP2 ending before their file name; a FORK without its ptid. */
    uint64_t words[8] = {7 | (7ull << 32), 0x400000, 0x1000, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(add(p, rec(PERF_RECORD_MMAP2, 0, words, 64)), 0);
    CHECK_EQ_INT(add(p, rec(PERF_RECORD_MMAP, 0, words, 32)), 0);
    CHECK_EQ_INT(add(p, rec(PERF_RECORD_FORK, 0, words, 12)), 0);

    /* Samples whose chain or stack size is far past their end are skipped. */
    uint64_t bad[6] = {0x1000, 7 | (7ull << 32), 1, 1, 0, 1ull << 61};
    CHECK_EQ_INT(add(p, rec(PERF_RECORD_SAMPLE, 0, bad, sizeof bad)), 0);
    bad[5] = 64;   /* a stack of 64 bytes that is not there */
    CHECK_EQ_INT(add(p, rec(PERF_RECORD_SAMPLE, 0, bad, sizeof bad)), 0);
    pg_profile_stats ps;
    pg_profile_stats_get(p, &ps);
    CHECK_EQ_INT(ps.samples, 0);
    /* A whole sample (no registers, no stack) is one stack of its thread. */
    bad[5] = 0;
    CHECK_EQ_INT(add(p, rec(PERF_RECORD_SAMPLE, 0, bad, sizeof bad)), 0);
    pg_profile_stats_get(p, &ps);
    CHECK_EQ_INT(ps.samples, 1);
    CHECK_EQ_INT(pg_folded_count(f), 1);
    CHECK_STR(pg_folded_entries(f)[0].stack, "bench;[truncated];[unknown]");

    /* LOST records too short for their count are not counted. */
    uint64_t lost[2] = {1, 5};
    CHECK_EQ_INT(keep(s, rec(PERF_RECORD_LOST, 0, lost, 8)), 0);
    CHECK_EQ_INT(keep(s, rec(PERF_RECORD_LOST_SAMPLES, 0, lost, 4)), 0);
    CHECK_EQ_INT(keep(s, rec(PERF_RECORD_LOST, 0, lost, 16)), 0);
    pg_sampler_stats st;
    pg_sampler_stats_get(s, &st);
    CHECK_EQ_INT(st.lost, 5);

    pg_profile_free(p);
    pg_folded_free(f);
    pg_sampler_free(s);
    return pg_check_done();
}
