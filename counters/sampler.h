/* counters/sampler.h — perf_event stack sampling of a child and all its threads.
 *
 * Opened on the child's pid while it is held before exec (spawn.h hooks): one
 * event per online CPU (pid = child, cpu = c, inherit = 1), because an
 * inherited per-task event cannot be mmapped on "all CPUs"; each has its own
 * ring buffer, as `perf record` does. The events start at exec
 * (enable_on_exec) and carry MMAP2, COMM (with the exec flag), FORK and EXIT
 * records, so addresses can be mapped to files after exec, per process.
 *
 * While the child runs the buffers are drained into memory (records copied
 * out, nothing decoded): the expensive work — unwinding and symbolizing —
 * is done by the caller on what pg_sampler_flush hands it, normally after
 * the child exited, so it does not compete with the measured program. When
 * more than flush_bytes are buffered the caller may flush during the run, to
 * bound memory on long runs (on another thread: pg_sampler_take below). Records are handed on in time order: a flush
 * during the run passes only records older than the end of the previous
 * drain (perf's "finished round"), which every CPU's buffer has been read
 * past, so no older record can arrive after them. Buffered records are
 * capped (max_bytes); samples past the cap are counted as dropped, and
 * PERF_RECORD_LOST counts are summed as lost.
 *
 * Sample layout (sample_type): IP | TID | TIME | PERIOD, then
 *   fp:    CALLCHAIN (user only, kernel frame-pointer walk), plus REGS_USER and
 *          512 bytes of STACK_USER to find the leaf's caller (profile.h)
 *   dwarf: REGS_USER (x86-64 general registers) | STACK_USER (stack_size bytes)
 * Non-sample records carry sample_id_all = {pid, tid, time}.
 */
#ifndef PG_COUNTERS_SAMPLER_H
#define PG_COUNTERS_SAMPLER_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The DWARF stack copy: the kernel takes a sample_stack_user below 65535
 * (USHRT_MAX) and a multiple of 8, so 65528 at most; it shortens the copy
 * itself when a whole sample would not fit in a record. */
#define PG_SAMPLE_STACK_DEFAULT 8192
#define PG_SAMPLE_STACK_MAX 65528

typedef enum pg_callgraph {
    PG_CALLGRAPH_DWARF = 0,   /* copy user stack + registers, unwind with libunwind (unwind.h) */
    PG_CALLGRAPH_FP,          /* kernel frame-pointer call chains */
} pg_callgraph;

/* Parses "fp" or "dwarf"; PG_EINVAL naming the value otherwise. */
int pg_callgraph_parse(pg_callgraph *out, const char *s);

/* Samples per second unless told: a prime, so that sampling does not lock onto
 * periodic work (a loop of 1000 iterations a second). The one place it is written. */
#define PG_SAMPLE_FREQ_DEFAULT 997

typedef struct pg_sampler_opts {
    unsigned long freq;       /* samples per second; used when period == 0 (0: PG_SAMPLE_FREQ_DEFAULT) */
    uint64_t period;          /* sample every N events (-c N); 0: by frequency */
    pg_callgraph callgraph;
    unsigned stack_size;      /* dwarf: user stack bytes per sample, multiple of 8 up to
                               * PG_SAMPLE_STACK_MAX; 0: PG_SAMPLE_STACK_DEFAULT */
    const char *event;        /* NULL: cycles when the PMU allows, else cpu-clock; else a
                                 libpfm4 name (counters/evsel.h) or cpu-clock / task-clock */
    unsigned mmap_pages;      /* data pages per CPU buffer, a power of two; 0: 128 */
    size_t max_bytes;         /* cap on buffered record bytes; 0: 512 MiB */
    size_t flush_bytes;       /* pg_sample_run flushes during the run past this; 0: 64 MiB */
    int pinned_cpu;           /* the CPU the child is pinned to, its buffer polled first; -1: none */
    int system_wide;          /* every process on every CPU (`record -a`): the attached pid is
                               * only the recording's end; sampling starts at attach, and the
                               * processes already running are read from /proc (procscan.h) */
    int kernel;               /* system-wide: kernel stacks too, when the kernel allows
                               * (else user stacks only, and pg_sampler_notice says why) */
} pg_sampler_opts;

typedef struct pg_sampler_stats {
    uint64_t samples;         /* PERF_RECORD_SAMPLE records kept */
    uint64_t lost;            /* samples the kernel dropped (PERF_RECORD_LOST / LOST_SAMPLES) */
    uint64_t dropped;         /* samples perfgate dropped past max_bytes */
    uint64_t throttled;       /* PERF_RECORD_THROTTLE events */
    size_t bytes;             /* record bytes buffered now (not counting taken batches) */
} pg_sampler_stats;

typedef struct pg_sampler pg_sampler;

int pg_sampler_new(pg_sampler **out, const pg_sampler_opts *o);
void pg_sampler_free(pg_sampler *s);

/* Opens the events on `pid` (held before exec) and maps their buffers.
 * PG_ENOTSUP with a plain-words reason when sampling is not allowed here
 * (perf_event_paranoid, no such event). Call once per sampler. */
int pg_sampler_attach(pg_sampler *s, pid_t pid);

/* The ring buffer fds to poll while the child runs, the pinned CPU's first;
 * returns how many. */
size_t pg_sampler_pollfds(pg_sampler *s, int *fds, size_t max);

/* Copies one record into the sampler's buffer, as a drain does for each
 * record of a ring buffer (a pg_ringbuf_fn: a test or fuzzer drains its own
 * buffer into a sampler that never attached). Records of unknown types are
 * ignored, LOST and THROTTLE only counted. Always returns 0. */
int pg_sampler_keep(void *sampler, const struct perf_event_header *rec);

/* Copies every available record out of every buffer. */
int pg_sampler_drain(pg_sampler *s);
/* The same, and ends a round: a later flush may pass on every record
 * stamped before this drain started. */
int pg_sampler_drain_round(pg_sampler *s);

/* After the child exited: drains a last time and closes the events; a flush
 * then passes on everything. */
int pg_sampler_finish(pg_sampler *s);

/* Bytes of records buffered (what a flush would free). */
size_t pg_sampler_pending(const pg_sampler *s);

/* Calls `fn` on the buffered records that may be passed on (see above), in
 * time order, ties in arrival order, and frees them. `rec` is valid only
 * during the call; a negative return from `fn` stops and is returned. */
typedef int (*pg_sampler_fn)(void *ctx, const struct perf_event_header *rec);
int pg_sampler_flush(pg_sampler *s, pg_sampler_fn fn, void *ctx);

/* pg_sampler_flush in three steps, so that the records can be unwound on
 * another thread while this one goes on draining: unwinding in the drain
 * loop stops the draining, the per-CPU buffers fill up and the kernel drops
 * records, MMAP2 and COMM among them, and later samples then resolve against
 * the wrong files. pg_sampler_take moves the records that may be passed on
 * into a batch (*out NULL when there are none); pg_sampler_batch_replay calls
 * `fn` on them in order and touches nothing but the batch (any thread, one
 * batch at a time, in the order taken); pg_sampler_release frees it (on the
 * sampler's thread). Until released, a batch's bytes count against max_bytes. */
typedef struct pg_sampler_batch pg_sampler_batch;
int pg_sampler_take(pg_sampler *s, pg_sampler_batch **out);
int pg_sampler_batch_replay(const pg_sampler_batch *b, pg_sampler_fn fn, void *ctx);
void pg_sampler_release(pg_sampler *s, pg_sampler_batch *b);

void pg_sampler_stats_get(const pg_sampler *s, pg_sampler_stats *out);
/* What was sampled, e.g. "cpu-clock" or "cycles", and the sample_type / regs
 * mask the records were written with (for decoding, profile.h). */
const char *pg_sampler_event(const pg_sampler *s);
uint64_t pg_sampler_sample_type(const pg_sampler *s);
uint64_t pg_sampler_regs_mask(const pg_sampler *s);
pg_callgraph pg_sampler_callgraph(const pg_sampler *s);
/* A one-line note when the requested event fell back (no PMU: cycles -> cpu-clock,
 * kernel stacks not allowed), or "". */
const char *pg_sampler_notice(const pg_sampler *s);

#endif
