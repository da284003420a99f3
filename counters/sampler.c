/* counters/sampler.c — per-CPU sampling events and their buffers. See sampler.h. */
#include "counters/sampler.h"
#include "util/array.h"
#include "counters/evsel.h"
#include "counters/procscan.h"
#include "counters/ringbuf.h"
#include "util/error.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHUNK (4u << 20)
#define MAX_CPUS 1024

typedef struct chunk {
    struct chunk *next;
    size_t used;
    _Alignas(8) unsigned char data[];
} chunk;

typedef struct rec_ref {
    uint64_t time, seq;
    const struct perf_event_header *h;
} rec_ref;

typedef struct cpu_buf {
    int cpu;
    int fd;
    void *map;
    size_t map_len;
    pg_ringbuf rb;
} cpu_buf;

struct pg_sampler {
    pg_sampler_opts o;
    struct perf_event_attr attr;
    char event[96];
    char notice[256];
    cpu_buf *bufs;
    size_t nbufs;
    chunk *chunks;
    rec_ref *refs;
    size_t nrefs, caprefs;
    pg_sampler_stats st;
    uint64_t seen_max;        /* latest record time read so far */
    uint64_t round_mark;      /* seen_max as of the end of the previous drain */
    size_t taken;             /* bytes of records taken out and not yet released */
    int attached;
    int kernel;               /* kernel stacks are sampled */
    char knotice[200];        /* why they are not, when asked for */
};

int pg_callgraph_parse(pg_callgraph *out, const char *s)
{
    if (!strcmp(s, "dwarf"))
        *out = PG_CALLGRAPH_DWARF;
    else if (!strcmp(s, "fp"))
        *out = PG_CALLGRAPH_FP;
    else
        return pg_error_set(PG_EINVAL, "--call-graph: expected fp or dwarf, got '%s'", s);
    return 0;
}

/* x86-64 general registers; the segment registers other than CS/SS are not sampled
 * on 64-bit (the kernel refuses them). Order in a sample is ascending bit order. */
static uint64_t regs_mask(void)
{
    uint64_t m = 0;
    for (int r = PERF_REG_X86_AX; r < PERF_REG_X86_64_MAX; r++)
        if (r < PERF_REG_X86_DS || r > PERF_REG_X86_GS)
            m |= 1ull << r;
    return m;
}

static void fill_attr(pg_sampler *s);

int pg_sampler_new(pg_sampler **out, const pg_sampler_opts *o)
{
    *out = NULL;
    pg_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory");
    s->o = *o;
    if (!s->o.freq)
        s->o.freq = PG_SAMPLE_FREQ_DEFAULT;
    if (!s->o.stack_size)
        s->o.stack_size = PG_SAMPLE_STACK_DEFAULT;
    if (!s->o.mmap_pages)
        s->o.mmap_pages = 128;
    if (!s->o.max_bytes)
        s->o.max_bytes = (size_t)512 << 20;
    if (s->o.stack_size % 8 || s->o.stack_size > PG_SAMPLE_STACK_MAX) {
        free(s);
        return pg_error_set(PG_EINVAL, "stack size %u: must be a multiple of 8 up to %d", o->stack_size,
                            PG_SAMPLE_STACK_MAX);
    }
    if (s->o.mmap_pages & (s->o.mmap_pages - 1)) {
        free(s);
        return pg_error_set(PG_EINVAL, "mmap pages %u: must be a power of two", o->mmap_pages);
    }
    /* The record layout is known from the options alone: pg_sampler_sample_type
     * and a profile can use it before the events are opened. */
    fill_attr(s);
    *out = s;
    return 0;
}

static void close_bufs(pg_sampler *s)
{
    for (size_t i = 0; i < s->nbufs; i++) {
        if (s->bufs[i].map)
            munmap(s->bufs[i].map, s->bufs[i].map_len);
        if (s->bufs[i].fd >= 0)
            close(s->bufs[i].fd);
    }
    free(s->bufs);
    s->bufs = NULL;
    s->nbufs = 0;
}

static void free_chunks(chunk *c)
{
    for (chunk *n; c; c = n) {
        n = c->next;
        free(c);
    }
}

void pg_sampler_free(pg_sampler *s)
{
    if (!s)
        return;
    close_bufs(s);
    free_chunks(s->chunks);
    free(s->refs);
    free(s);
}

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
    return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Fills type/config of s->attr from the requested event. */
static int choose_event(pg_sampler *s)
{
    struct perf_event_attr *a = &s->attr;
    const char *e = s->o.event;
    if (!e || !strcmp(e, "cpu-cycles"))
        e = "cycles";   /* perf's other name for it */
    pg_evsel ev;
    int rc = pg_evsel_init(&ev, e, 1);
    if (rc < 0)
        return pg_error_wrap(rc, "-e %s", e);
    a->type = ev.attr.type;
    a->config = ev.attr.config;
    a->config1 = ev.attr.config1;
    a->config2 = ev.attr.config2;
    snprintf(s->event, sizeof s->event, "%s", e);
    return 0;
}

/* Kernel stacks on or off. In DWARF mode the kernel's part of a stack comes
 * as a call chain of its own (the user part is unwound from the copy). */
static void set_kernel(pg_sampler *s, int on)
{
    struct perf_event_attr *a = &s->attr;
    s->kernel = on;
    a->exclude_kernel = !on;
    if (s->o.callgraph == PG_CALLGRAPH_FP) {
        a->exclude_callchain_kernel = !on;
    } else if (on) {
        a->sample_type |= PERF_SAMPLE_CALLCHAIN;
        a->exclude_callchain_user = 1;
    } else {
        a->sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
        a->exclude_callchain_user = 0;
    }
}

static void fill_attr(pg_sampler *s)
{
    struct perf_event_attr *a = &s->attr;
    a->size = sizeof *a;
    a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
    if (s->o.callgraph == PG_CALLGRAPH_FP) {
        /* The registers and the top 512 bytes of stack repair the leaf frame (profile.c). */
        a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        a->exclude_callchain_kernel = 1;
        a->sample_regs_user = regs_mask();
        a->sample_stack_user = 512;
    } else {
        a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        a->sample_regs_user = regs_mask();
        a->sample_stack_user = s->o.stack_size;
    }
    if (s->o.period) {
        a->sample_period = s->o.period;
    } else {
        a->freq = 1;
        a->sample_freq = s->o.freq;
    }
    a->disabled = 1;
    a->enable_on_exec = 1;
    a->inherit = 1;
    a->exclude_kernel = 1;    /* user stacks only: what a benchmark's author can change */
    if (s->o.system_wide) {
        /* Per CPU, every task: nothing to inherit, no exec to wait for. */
        a->inherit = 0;
        a->enable_on_exec = 0;
        a->disabled = 0;
        set_kernel(s, s->o.kernel);
    }
    a->exclude_hv = 1;
    a->mmap = 1;
    a->mmap2 = 1;
    a->comm = 1;
    a->comm_exec = 1;
    a->task = 1;
    a->sample_id_all = 1;
    /* Wake the poller when half the buffer is full, not per sample: with no
     * wakeup_watermark the kernel takes half of the buffer actually mapped,
     * which map_all may have had to shrink. */
    a->watermark = 1;
}

static int open_all(pg_sampler *s, pid_t pid, int *err)
{
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    if (ncpu < 1)
        ncpu = 1;
    if (ncpu > MAX_CPUS)
        ncpu = MAX_CPUS;
    s->bufs = calloc((size_t)ncpu, sizeof *s->bufs);
    if (!s->bufs)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (long c = 0; c < ncpu; c++) {
        int fd = perf_open(&s->attr, s->o.system_wide ? -1 : pid, (int)c);
        if (fd < 0) {
            if (errno == ENODEV)      /* offline CPU */
                continue;
            *err = errno;
            close_bufs(s);
            return -1;
        }
        s->bufs[s->nbufs++] = (cpu_buf){.cpu = (int)c, .fd = fd};
    }
    if (!s->nbufs) {
        *err = ENODEV;
        return -1;
    }
    return 0;
}

static int map_all(pg_sampler *s)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = s->o.mmap_pages;
    for (size_t i = 0; i < s->nbufs; i++) {
        cpu_buf *b = &s->bufs[i];
        for (;;) {
            b->map_len = (pages + 1) * page;
            b->map = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
            if (b->map != MAP_FAILED)
                break;
            b->map = NULL;
            /* Unprivileged users are limited by perf_event_mlock_kb: try smaller. */
            if ((errno == EPERM || errno == ENOMEM) && pages > 8) {
                pages /= 2;
                continue;
            }
            return pg_error_errno(PG_ENOTSUP, "cannot map the sampling buffer of CPU %d (%zu pages)", b->cpu, pages);
        }
        pg_ringbuf_init(&b->rb, b->map, b->map_len, page);
    }
    return 0;
}

static int paranoid(void)
{
    int v = 2;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = 2;
        fclose(f);
    }
    return v;
}

/* open_all, and system-wide: without kernel stacks when only they are refused,
 * and a refusal said in plain words. -1 with *err for any other failure. */
static int open_events(pg_sampler *s, pid_t pid, int *err)
{
    if (open_all(s, pid, err) == 0)
        return 0;
    if (!s->o.system_wide || (*err != EACCES && *err != EPERM))
        return -1;
    if (s->kernel) {
        set_kernel(s, 0);
        snprintf(s->knotice, sizeof s->knotice, "kernel stacks not sampled: not allowed here "
                 "(kernel.perf_event_paranoid is %d); fix: run as root, or sudo sysctl kernel.perf_event_paranoid=-1",
                 paranoid());
        if (open_all(s, pid, err) == 0)
            return 0;
    }
    *err = 0;   /* said here: not an event's problem */
    return pg_error_set(PG_ENOTSUP, "system-wide sampling is not allowed here (kernel.perf_event_paranoid is %d; "
                        "-a needs 0 or less, or CAP_PERFMON); fix: run as root, or sudo sysctl "
                        "kernel.perf_event_paranoid=0", paranoid());
}

int pg_sampler_attach(pg_sampler *s, pid_t pid)
{
    if (s->attached)
        return pg_error_set(PG_EINVAL, "sampler already attached");
    s->attached = 1;
    int rc = choose_event(s);
    if (rc < 0)
        return rc;
    int err = 0;
    if ((rc = open_events(s, pid, &err)) < 0 && !err)
        return rc;      /* refused, and said why */
    if (err) {
        int fallback = !s->o.event && s->attr.type == PERF_TYPE_HARDWARE &&
                       (err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL);
        if (!fallback) {
            char why[512];
            unsigned long max_rate = 0;
            FILE *fp = err == EINVAL && !s->o.period ? fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r") : NULL;
            if (fp) {
                if (fscanf(fp, "%lu", &max_rate) != 1)
                    max_rate = 0;
                fclose(fp);
            }
            if (max_rate && s->o.freq > max_rate)
                snprintf(why, sizeof why, "-F %lu is above this kernel's limit of %lu Hz "
                         "(kernel.perf_event_max_sample_rate)", s->o.freq, max_rate);
            else if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
                snprintf(why, sizeof why, "no hardware performance counters here (%s: a VM without a "
                         "virtual PMU?); leave out -e to sample the cpu-clock software event", strerror(err));
            else
                pg_evsel_strerror(err, why, sizeof why);
            return pg_error_set(PG_ENOTSUP, "cannot sample %s: %s", s->event, why);
        }
        snprintf(s->notice, sizeof s->notice,
                 "no hardware cycle counter here (%s: a VM without a virtual PMU?); sampling cpu-clock instead",
                 strerror(err));
        s->attr.type = PERF_TYPE_SOFTWARE;
        s->attr.config = PERF_COUNT_SW_CPU_CLOCK;
        snprintf(s->event, sizeof s->event, "cpu-clock");
        if ((rc = open_events(s, pid, &err)) < 0)
            return err ? pg_error_set(PG_ENOTSUP, "cannot sample cpu-clock: %s", strerror(err)) : rc;
    }
    if (s->knotice[0]) {
        size_t l = strlen(s->notice);
        snprintf(s->notice + l, sizeof s->notice - l, "%s%s", l ? "; " : "", s->knotice);
    }
    if ((rc = map_all(s)) < 0)
        return rc;
    if (s->o.system_wide) {
        /* After the events are open: a process started in between is both read and recorded, never neither. */
        rc = pg_procscan(NULL, pg_sampler_keep, s);
        if (rc < 0)
            return rc;
    }
    return 0;
}

size_t pg_sampler_pollfds(pg_sampler *s, int *fds, size_t max)
{
    /* The pinned CPU's buffer first: when a poller takes fewer fds than there are
     * CPUs, the one that fills up is still watched. Any wake-up drains them all. */
    size_t n = 0;
    for (size_t i = 0; i < s->nbufs && n < max; i++)
        if (s->bufs[i].fd >= 0 && s->bufs[i].cpu == s->o.pinned_cpu)
            fds[n++] = s->bufs[i].fd;
    for (size_t i = 0; i < s->nbufs && n < max; i++)
        if (s->bufs[i].fd >= 0 && s->bufs[i].cpu != s->o.pinned_cpu)
            fds[n++] = s->bufs[i].fd;
    return n;
}

/* Time of a record: samples have it after IP and TID; others in the sample_id trailer. */
static uint64_t rec_time(const struct perf_event_header *h)
{
    const uint64_t *w = (const uint64_t *)h;
    if (h->type == PERF_RECORD_SAMPLE)
        return h->size >= 32 ? w[3] : 0;
    return h->size >= 16 ? w[h->size / 8 - 1] : 0;
}

/* Appends a copy of `h` to the buffered records. -1 when out of memory. */
static int store(pg_sampler *s, const struct perf_event_header *h)
{
    size_t sz = h->size;
    if (!s->chunks || s->chunks->used + sz > CHUNK) {
        chunk *c = malloc(sizeof *c + CHUNK);
        if (!c)
            return -1;
        c->used = 0;
        c->next = s->chunks;
        s->chunks = c;
    }
    if (pg_array_grow(&s->refs, &s->caprefs, s->nrefs, sizeof *s->refs, 4096) < 0)
        return -1;
    unsigned char *dst = s->chunks->data + s->chunks->used;
    memcpy(dst, h, sz);
    s->chunks->used += (sz + 7) & ~(size_t)7;
    s->st.bytes += sz;
    const struct perf_event_header *copy = (const struct perf_event_header *)dst;
    s->refs[s->nrefs] = (rec_ref){.time = rec_time(copy), .seq = s->nrefs, .h = copy};
    if (s->refs[s->nrefs].time > s->seen_max)
        s->seen_max = s->refs[s->nrefs].time;
    s->nrefs++;
    return 0;
}

int pg_sampler_keep(void *ctx, const struct perf_event_header *h)
{
    pg_sampler *s = ctx;
    switch (h->type) {
    case PERF_RECORD_LOST: {    /* id, lost */
        const uint64_t *w = (const uint64_t *)(h + 1);
        if (h->size >= sizeof *h + 16)
            s->st.lost += w[1];
        return 0;
    }
    case PERF_RECORD_LOST_SAMPLES:  /* lost */
        if (h->size >= sizeof *h + 8)
            s->st.lost += *(const uint64_t *)(h + 1);
        return 0;
    case PERF_RECORD_THROTTLE:
        s->st.throttled++;
        return 0;
    case PERF_RECORD_SAMPLE:
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
    case PERF_RECORD_COMM:
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
        break;
    default:
        return 0;
    }
    int sample = h->type == PERF_RECORD_SAMPLE;
    /* Past the cap (which counts records taken out and not yet released),
     * samples go; maps and process events must stay or later samples land nowhere. */
    if (sample && s->st.bytes + s->taken + h->size > s->o.max_bytes) {
        s->st.dropped++;
        return 0;
    }
    if (store(s, h) < 0) {
        if (sample)
            s->st.dropped++;
        return 0;
    }
    if (sample)
        s->st.samples++;
    return 0;
}

int pg_sampler_drain(pg_sampler *s)
{
    int rc = 0;
    for (size_t i = 0; i < s->nbufs; i++) {
        if (!s->bufs[i].map)
            continue;
        int r = pg_ringbuf_read(&s->bufs[i].rb, pg_sampler_keep, s);
        if (r < 0)
            rc = r;
    }
    return rc;
}



static int by_time(const void *a, const void *b)
{
    const rec_ref *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int pg_sampler_drain_round(pg_sampler *s)
{
    uint64_t mark = s->seen_max;
    int rc = pg_sampler_drain(s);
    s->round_mark = mark;
    return rc;
}

int pg_sampler_finish(pg_sampler *s)
{
    int rc = pg_sampler_drain(s);
    close_bufs(s);
    s->round_mark = UINT64_MAX;
    return rc;
}

size_t pg_sampler_pending(const pg_sampler *s) { return s->st.bytes; }

struct pg_sampler_batch {
    chunk *chunks;            /* hold the records (and copies of others, since moved) */
    rec_ref *refs;            /* the records to pass on, in time order */
    size_t n, bytes;
};

int pg_sampler_take(pg_sampler *s, pg_sampler_batch **out)
{
    *out = NULL;
    if (!s->nrefs)
        return 0;
    qsort(s->refs, s->nrefs, sizeof *s->refs, by_time);
    size_t k = 0, bytes = 0;
    /* After finish (round_mark UINT64_MAX) everything goes, even a record
     * stamped UINT64_MAX: a corrupt time must not keep it buffered forever. */
    for (; k < s->nrefs && (s->refs[k].time < s->round_mark || s->round_mark == UINT64_MAX); k++)
        bytes += s->refs[k].h->size;
    if (!k)
        return 0;
    pg_sampler_batch *b = calloc(1, sizeof *b);
    rec_ref *rest = s->nrefs > k ? malloc((s->nrefs - k) * sizeof *rest) : NULL;
    if (!b || (s->nrefs > k && !rest)) {
        free(b);
        free(rest);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    /* The batch takes the chunks and the first k refs; the rest are copied
     * into fresh chunks, so the batch can be replayed on another thread while
     * this one goes on draining. */
    size_t nrest = s->nrefs - k;
    if (nrest)
        memcpy(rest, s->refs + k, nrest * sizeof *rest);
    b->chunks = s->chunks;
    b->refs = s->refs;
    b->n = k;
    b->bytes = bytes;
    s->chunks = NULL;
    s->refs = NULL;
    s->nrefs = s->caprefs = 0;
    s->st.bytes = 0;
    s->taken += bytes;
    int rc = 0;
    for (size_t i = 0; i < nrest && rc == 0; i++)
        if (store(s, rest[i].h) < 0)
            rc = pg_error_set(PG_ENOMEM, "out of memory");
    free(rest);
    *out = b;
    return rc;
}

int pg_sampler_batch_replay(const pg_sampler_batch *b, pg_sampler_fn fn, void *ctx)
{
    for (size_t i = 0; i < b->n; i++) {
        int rc = fn(ctx, b->refs[i].h);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void pg_sampler_release(pg_sampler *s, pg_sampler_batch *b)
{
    if (!b)
        return;
    s->taken -= b->bytes;
    free_chunks(b->chunks);
    free(b->refs);
    free(b);
}

int pg_sampler_flush(pg_sampler *s, pg_sampler_fn fn, void *ctx)
{
    pg_sampler_batch *b;
    int rc = pg_sampler_take(s, &b);
    if (rc == 0 && b)
        rc = pg_sampler_batch_replay(b, fn, ctx);
    pg_sampler_release(s, b);
    return rc;
}

void pg_sampler_stats_get(const pg_sampler *s, pg_sampler_stats *out) { *out = s->st; }
const char *pg_sampler_event(const pg_sampler *s) { return s->event; }
uint64_t pg_sampler_sample_type(const pg_sampler *s) { return s->attr.sample_type; }
uint64_t pg_sampler_regs_mask(const pg_sampler *s) { return s->attr.sample_regs_user; }
pg_callgraph pg_sampler_callgraph(const pg_sampler *s) { return s->o.callgraph; }
const char *pg_sampler_notice(const pg_sampler *s) { return s->notice; }
