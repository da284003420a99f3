/* The perf ring buffer reader (counters/ringbuf.h): records in order, a
 * record wrapping the end of the buffer reassembled, data_tail advanced. */
#include "counters/ringbuf.h"
#include "util/error.h"
#include "tests/check.h"

#include <stdlib.h>
#include <string.h>

#define PAGE 4096
#define DATA 4096

typedef struct seen {
    int n;
    unsigned sizes[16];
    unsigned char first[16];
    unsigned char last[16];
    int stop_after;
} seen;

static int collect(void *ctx, const struct perf_event_header *h)
{
    seen *s = ctx;
    const unsigned char *p = (const unsigned char *)h;
    if (s->n < 16) {
        s->sizes[s->n] = h->size;
        s->first[s->n] = p[sizeof *h];
        s->last[s->n] = p[h->size - 1];
    }
    s->n++;
    return s->stop_after && s->n >= s->stop_after;
}

/* Writes a record of `size` bytes at logical position `pos`, its payload bytes all `fill`. */
static void put(unsigned char *data, uint64_t pos, uint16_t size, unsigned char fill)
{
    unsigned char rec[256];
    struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .misc = 0, .size = size};
    memcpy(rec, &h, sizeof h);
    memset(rec + sizeof h, fill, size - sizeof h);
    for (uint16_t i = 0; i < size; i++)
        data[(pos + i) % DATA] = rec[i];
}

int main(void)
{
    unsigned char *map = aligned_alloc(PAGE, PAGE + DATA);
    memset(map, 0, PAGE + DATA);
    struct perf_event_mmap_page *meta = (struct perf_event_mmap_page *)map;
    unsigned char *data = map + PAGE;
    pg_ringbuf *rb = malloc(sizeof *rb);
    pg_ringbuf_init(rb, map, PAGE + DATA, PAGE);
    CHECK(rb->data == data);
    CHECK_EQ_INT(rb->size, DATA);

    /* Empty buffer: nothing read. */
    seen s = {0};
    CHECK_EQ_INT(pg_ringbuf_read(rb, collect, &s), 0);

    /* Three records, the second wrapping the end: tail starts 24 bytes before it. */
    uint64_t tail = 10 * DATA - 24;     /* positions are free-running, not modulo */
    meta->data_tail = tail;
    put(data, tail, 16, 0x11);
    put(data, tail + 16, 48, 0x22);     /* 8 bytes before the end, 40 after */
    put(data, tail + 64, 32, 0x33);
    meta->data_head = tail + 96;
    memset(&s, 0, sizeof s);
    CHECK_EQ_INT(pg_ringbuf_read(rb, collect, &s), 3);
    CHECK_EQ_INT(s.n, 3);
    CHECK_EQ_INT(s.sizes[0], 16);
    CHECK_EQ_INT(s.sizes[1], 48);
    CHECK_EQ_INT(s.first[1], 0x22);
    CHECK_EQ_INT(s.last[1], 0x22);     /* the wrapped part came along */
    CHECK_EQ_INT(s.last[2], 0x33);
    CHECK_EQ_INT(meta->data_tail, tail + 96);

    /* A header split by the end of the buffer. */
    tail = meta->data_tail = 11 * DATA - 4;
    put(data, tail, 24, 0x44);
    meta->data_head = tail + 24;
    memset(&s, 0, sizeof s);
    CHECK_EQ_INT(pg_ringbuf_read(rb, collect, &s), 1);
    CHECK_EQ_INT(s.sizes[0], 24);
    CHECK_EQ_INT(s.last[0], 0x44);

    /* Stopping early consumes only what was seen. */
    tail = meta->data_tail;
    put(data, tail, 16, 1);
    put(data, tail + 16, 16, 2);
    meta->data_head = tail + 32;
    memset(&s, 0, sizeof s);
    s.stop_after = 1;
    CHECK_EQ_INT(pg_ringbuf_read(rb, collect, &s), 1);
    CHECK_EQ_INT(meta->data_tail, tail + 16);
    memset(&s, 0, sizeof s);
    CHECK_EQ_INT(pg_ringbuf_read(rb, collect, &s), 1);
    CHECK_EQ_INT(s.first[0], 2);

    /* A corrupt record (size 0) is an error; the buffer is skipped to head. */
    tail = meta->data_tail;
    memset(data + tail % DATA, 0, 16);
    meta->data_head = tail + 64;
    memset(&s, 0, sizeof s);
    CHECK_EQ_INT(pg_ringbuf_read(rb, collect, &s), PG_EIO);
    CHECK_CONTAINS(pg_error_last(), "malformed record");
    CHECK_EQ_INT(meta->data_tail, tail + 64);
    CHECK_EQ_INT(s.n, 0);

    /* A record claiming more than was written is not read past head. */
    tail = meta->data_tail;
    put(data, tail, 64, 5);
    meta->data_head = tail + 32;
    memset(&s, 0, sizeof s);
    CHECK_EQ_INT(pg_ringbuf_read(rb, collect, &s), PG_EIO);
    CHECK_EQ_INT(s.n, 0);

    /* A size that is not a whole number of words is corrupt: read as is, every
     * later record would be misaligned (found by fuzzing). */
    tail = meta->data_tail;
    put(data, tail, 12, 6);
    put(data, tail + 12, 20, 7);
    meta->data_head = tail + 32;
    memset(&s, 0, sizeof s);
    CHECK_EQ_INT(pg_ringbuf_read(rb, collect, &s), PG_EIO);
    CHECK_CONTAINS(pg_error_last(), "malformed record (size 12");
    CHECK_EQ_INT(s.n, 0);
    CHECK_EQ_INT(meta->data_tail, tail + 32);

    free(rb);
    free(map);
    return pg_check_done();
}
