/* counters/ringbuf.c — perf ring buffer consumer. See ringbuf.h. */
#include "counters/ringbuf.h"
#include "util/error.h"

#include <string.h>

void pg_ringbuf_init(pg_ringbuf *rb, void *base, size_t map_len, size_t page_size)
{
    rb->meta = base;
    size_t off = page_size, size = map_len - page_size;
    /* Kernels since 4.1 say where the data area is; older ones put it after page 0. */
    if (rb->meta->data_size && rb->meta->data_offset) {
        off = (size_t)rb->meta->data_offset;
        size = (size_t)rb->meta->data_size;
    }
    rb->data = (unsigned char *)base + off;
    rb->size = size;
}

int pg_ringbuf_read(pg_ringbuf *rb, pg_ringbuf_fn fn, void *ctx)
{
    /* Acquire pairs with the kernel's store of data_head after it wrote the records. */
    uint64_t head = __atomic_load_n(&rb->meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = rb->meta->data_tail;    /* only we write it */
    uint64_t mask = rb->size - 1;
    int n = 0, rc = 0;
    while (tail < head) {
        const struct perf_event_header *h;
        size_t pos = (size_t)(tail & mask);
        struct perf_event_header hdr;
        /* The header itself may straddle the end (8 bytes, records are 8-aligned: it never
         * does in practice, but a corrupted tail must not make us read out of bounds). */
        if (pos + sizeof hdr <= rb->size) {
            memcpy(&hdr, rb->data + pos, sizeof hdr);
        } else {
            size_t first = rb->size - pos;
            memcpy(&hdr, rb->data + pos, first);
            memcpy((char *)&hdr + first, rb->data, sizeof hdr - first);
        }
        /* The kernel writes whole 8-byte words: any other size is corruption,
         * and would leave every later record misaligned. */
        if (hdr.size < sizeof hdr || hdr.size % 8 || hdr.size > head - tail || hdr.size > rb->size) {
            rc = pg_error_set(PG_EIO, "perf ring buffer: malformed record (size %u at offset %zu)",
                              (unsigned)hdr.size, pos);
            tail = head;
            break;
        }
        if (pos + hdr.size <= rb->size) {
            h = (const struct perf_event_header *)(rb->data + pos);
        } else {
            size_t first = rb->size - pos;
            memcpy(rb->scratch, rb->data + pos, first);
            memcpy((char *)rb->scratch + first, rb->data, hdr.size - first);
            h = (const struct perf_event_header *)rb->scratch;
        }
        tail += hdr.size;
        n++;
        if (fn(ctx, h))
            break;
    }
    /* Release: our reads of the records happen before the kernel may reuse the space. */
    __atomic_store_n(&rb->meta->data_tail, tail, __ATOMIC_RELEASE);
    return rc < 0 ? rc : n;
}
