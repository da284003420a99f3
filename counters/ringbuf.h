/* counters/ringbuf.h — reading one perf_event mmap ring buffer.
 *
 * The kernel writes records at data_head; we consume from data_tail. The
 * protocol (man perf_event_open, "MMAP layout"): load data_head with acquire
 * semantics, read the records between tail and head, then store the new
 * data_tail with release semantics so the kernel may overwrite them. A record
 * that wraps past the end of the buffer is copied out into a contiguous
 * scratch buffer before the callback sees it, so callers always get one whole,
 * aligned record.
 */
#ifndef PG_COUNTERS_RINGBUF_H
#define PG_COUNTERS_RINGBUF_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pg_ringbuf {
    struct perf_event_mmap_page *meta;  /* the first page of the mapping (not owned) */
    unsigned char *data;                /* start of the data area (not owned) */
    size_t size;                        /* data area size, a power of two */
    uint64_t scratch[65536 / 8];        /* a wrapped record is reassembled here (max 64 KiB) */
} pg_ringbuf;

/* Called once per record, in buffer order. `rec` is valid only during the call.
 * Return non-zero to stop early (the records so far are consumed). */
typedef int (*pg_ringbuf_fn)(void *ctx, const struct perf_event_header *rec);

/* Sets up `rb` over a mapping of 1 + 2^n pages starting at `base`. Uses the
 * page's data_offset/data_size when the kernel fills them, else page_size. */
void pg_ringbuf_init(pg_ringbuf *rb, void *base, size_t map_len, size_t page_size);

/* Consumes every complete record available now, calling `fn` for each.
 * Returns the number of records read, or PG_EIO when the buffer holds a
 * malformed record (size under 8, not a multiple of 8, or bigger than the
 * buffer or what is left of it): the rest is skipped so
 * the kernel can go on writing. */
int pg_ringbuf_read(pg_ringbuf *rb, pg_ringbuf_fn fn, void *ctx);

#endif
