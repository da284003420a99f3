/* Fuzz target: perf_event ring-buffer records, the way `record` and `run
 * --sample` consume them: a ring buffer (counters/ringbuf.c) drained into a
 * sampler (counters/sampler.c, pg_sampler_keep), then every buffered record
 * replayed in time order into a profile (counters/profile.c, pg_profile_add):
 * SAMPLE with call chains, registers and stack copies (unwound with
 * libunwind, symbolized with libdw), MMAP/MMAP2, COMM, FORK, EXIT, LOST...
 *
 * Input: one byte of options, then the bytes between the buffer's tail and
 * its head.
 *   bit 0     call graph: 0 dwarf, 1 fp (decides the sample layout)
 *   bit 1     cap buffered records at 4 KiB (samples past it are dropped)
 *   bits 2-7  where the tail starts, in 8-byte steps (so records wrap)
 * The data area is the smallest power of two (>= 64 bytes) holding the rest.
 *
 * Files a MMAP record names are opened and parsed (ELF, unwind tables,
 * symbols). Only two kinds are let through: "[vdso]", and the test programs
 * (tests/progs/: a name ".../tests/progs/X" is read as $PG_TEST_PROGS/X, so
 * seeds captured in one build directory replay in any). Every other absolute
 * path becomes one that does not exist: the fuzzer never opens a FIFO or a
 * device, a replay does not depend on this machine's files, and no input
 * spends half a second loading the C library's DWARF (libdw's own work, not
 * perfgate's). */
#include "tests/fuzz/fuzz.h"
#include "counters/profile.h"
#include "counters/ringbuf.h"
#include "counters/sampler.h"

#define PAGE 4096

/* Where a MMAP / MMAP2 record's file name starts (perf_event_open(2)). */
static size_t name_offset(uint32_t type)
{
    return type == PERF_RECORD_MMAP ? 40 : type == PERF_RECORD_MMAP2 ? 72 : 0;
}

/* The name a MMAP record's file is opened by here (see above) into buf. */
static void file_name(char *buf, size_t len, const char *name, size_t max)
{
    size_t n = strnlen(name, max);
    static const char progs[] = "/tests/progs/";
    const char *dir = getenv("PG_TEST_PROGS");
    const char *p = memmem(name, n, progs, sizeof progs - 1);
    if (!n || name[0] != '/')
        snprintf(buf, len, "%.*s", (int)n, name);
    else if (p && dir && !memchr(p + sizeof progs - 1, '/', n - (size_t)(p - name) - (sizeof progs - 1)))
        snprintf(buf, len, "%s/%.*s", dir, (int)(n - (size_t)(p - name) - (sizeof progs - 1)), p + sizeof progs - 1);
    else
        snprintf(buf, len, "/nonexistent/fuzz");
}

static int add(void *profile, const struct perf_event_header *h)
{
    size_t off = name_offset(h->type);
    if (!off || h->size <= off || !memchr((const char *)h + off, '\0', h->size - off))
        return pg_profile_add(profile, h);
    /* The record with its name replaced (and no sample_id trailer: not read). */
    _Alignas(8) unsigned char copy[72 + PAGE + 8] = {0};
    memcpy(copy, h, off);
    char *name = (char *)copy + off;
    file_name(name, PAGE, (const char *)h + off, h->size - off);
    ((struct perf_event_header *)copy)->size = (uint16_t)((off + strlen(name) + 1 + 7) & ~(size_t)7);
    return pg_profile_add(profile, (const struct perf_event_header *)copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t flags = data[0];
    data++;
    size--;
    size_t dsize = 64;
    while (dsize < size)
        dsize *= 2;
    if (dsize > (1u << 24))
        return 0;

    /* The mapping: a metadata page, then the data area. */
    unsigned char *map = calloc(1, PAGE + dsize);
    static pg_ringbuf rb;   /* 64 KiB of scratch: not on the stack */
    PG_FUZZ_ASSERT(map);
    pg_ringbuf_init(&rb, map, PAGE + dsize, PAGE);
    PG_FUZZ_ASSERT(rb.size == dsize && rb.data == map + PAGE);
    uint64_t tail = (uint64_t)(flags >> 2) * 8;
    size_t pos = (size_t)(tail & (dsize - 1)), first = dsize - pos < size ? dsize - pos : size;
    memcpy(rb.data + pos, data, first);
    memcpy(rb.data, data + first, size - first);
    rb.meta->data_tail = tail;
    rb.meta->data_head = tail + size;

    pg_sampler_opts o = {.callgraph = flags & 1 ? PG_CALLGRAPH_FP : PG_CALLGRAPH_DWARF,
                         .max_bytes = flags & 2 ? 4096 : 0, .pinned_cpu = -1};
    pg_sampler *s;
    PG_FUZZ_ASSERT(pg_sampler_new(&s, &o) == 0);
    int rc = pg_ringbuf_read(&rb, pg_sampler_keep, s);
    pg_fuzz_check_error(rc);
    /* Read to the head either way: a bad record must not wedge the buffer. */
    PG_FUZZ_ASSERT(rb.meta->data_tail == rb.meta->data_head);
    free(map);
    PG_FUZZ_ASSERT(pg_sampler_finish(s) == 0);

    pg_folded *f;
    pg_profile *p;
    PG_FUZZ_ASSERT(pg_folded_new(&f) == 0);
    PG_FUZZ_ASSERT(pg_profile_new(&p, f, s) == 0);
    rc = pg_sampler_flush(s, add, p);
    pg_fuzz_check_error(rc);
    if (rc == 0) {
        pg_sampler_stats ss;
        pg_profile_stats ps;
        pg_sampler_stats_get(s, &ss);
        pg_profile_stats_get(p, &ps);
        PG_FUZZ_ASSERT(ps.samples <= ss.samples && ps.truncated <= ps.samples);
        PG_FUZZ_ASSERT(pg_folded_total(f) == ps.samples);
        PG_FUZZ_ASSERT(pg_sampler_pending(s) == 0);
        if (getenv("PG_FUZZ_SHOW"))    /* what a seed reaches: its stacks */
            pg_folded_write(f, stderr);
    }
    pg_profile_free(p);
    pg_folded_free(f);
    pg_sampler_free(s);
    return 0;
}
