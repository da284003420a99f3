/* counters/profile.c — records -> unwound, symbolized, folded stacks. See profile.h. */
#include "counters/profile.h"
#include "counters/kallsyms.h"
#include "counters/maps.h"
#include "counters/symbolize.h"
#include "counters/unwind.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MAX_FRAMES 512

typedef struct sample {
    uint32_t pid, tid;
    uint64_t ip;
    uint64_t period;
    uint64_t nchain;
    const uint64_t *chain;
    uint64_t nregs;
    const uint64_t *regs;
    uint64_t stack_len;
    const unsigned char *stack;
} sample;

/* Decodes a PERF_RECORD_SAMPLE written with `type` (sampler.h's layout).
 * Counts come from the record, so every one is checked against the words
 * left in it (as a count: a pointer past the end would already be undefined). */
static int decode(sample *out, const struct perf_event_header *h, uint64_t type, uint64_t mask)
{
    const uint64_t *w = (const uint64_t *)(h + 1);
    uint64_t left = h->size > sizeof *h ? (h->size - sizeof *h) / 8 : 0;
    memset(out, 0, sizeof *out);
#define NEED(k) do { if ((k) > left) return -1; left -= (k); } while (0)
    if (type & PERF_SAMPLE_IP) { NEED(1); out->ip = *w++; }
    if (type & PERF_SAMPLE_TID) { NEED(1); out->pid = (uint32_t)*w; out->tid = (uint32_t)(*w >> 32); w++; }
    if (type & PERF_SAMPLE_TIME) { NEED(1); w++; }
    if (type & PERF_SAMPLE_PERIOD) { NEED(1); out->period = *w++; }
    if (type & PERF_SAMPLE_CALLCHAIN) {
        NEED(1);
        out->nchain = *w++;
        NEED(out->nchain);
        out->chain = w;
        w += out->nchain;
    }
    if (type & PERF_SAMPLE_REGS_USER) {
        NEED(1);
        uint64_t abi = *w++;
        if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
            out->nregs = (uint64_t)__builtin_popcountll(mask);
            NEED(out->nregs);
            out->regs = w;
            w += out->nregs;
        }
    }
    if (type & PERF_SAMPLE_STACK_USER) {
        NEED(1);
        uint64_t size = *w++ / 8;   /* in words: the kernel copies whole words */
        if (size) {
            NEED(size);
            NEED(1);
            const unsigned char *data = (const unsigned char *)w;
            w += size;
            uint64_t dyn = *w++;
            out->stack = data;
            out->stack_len = dyn < size * 8 ? dyn : size * 8;
        }
    }
#undef NEED
    return 0;
}

/* Outermost frames of a complete stack: where a process or thread begins. */
static int is_root_name(const char *frames)
{
    static const char *const roots[] = {"_start", "__libc_start_main", "__libc_start_main_impl",
                                        "__libc_start_call_main", "start_thread", "clone", "__clone",
                                        "clone3", "__clone3", "thread_start", NULL};
    for (const char *const *r = roots; *r; r++) {
        size_t l = strlen(*r);
        if (!strncmp(frames, *r, l) && (frames[l] == '\0' || frames[l] == ';'))
            return 1;
    }
    return 0;
}

/* ...or, in a stripped program, the function at its ELF entry point. */
static int is_root_addr(const pg_procs *procs, pid_t pid, uint64_t addr)
{
    const pg_map *m = pg_procs_find(procs, pid, addr);
    uint64_t start;
    return m && m->file->ok && m->file->entry &&
           pg_elffile_func_start(m->file, addr - m->bias, &start) == 0 && start == m->file->entry;
}

typedef struct builder {
    pg_procs *procs;
    pg_unwinder *unw;
    pg_symbolizer *sym;
    pg_folded *out;
    pg_profile_stats *st;
    uint64_t type, mask;
    pg_callgraph cg;
    pg_kallsyms *ksyms;         /* loaded at the first kernel frame */
    int ksyms_tried;
    uint64_t ips[MAX_FRAMES];
    uint64_t kips[MAX_FRAMES];  /* the kernel's part of a stack, leaf first */
    const char *names[2 * MAX_FRAMES + 2];   /* comm, [truncated], user frames, kernel frames */
    char unknown[MAX_FRAMES][48];
} builder;

/* Symbolized frames of one address (maybe several, with inlining), outermost first. */
static const char *name_of(builder *b, size_t slot, pid_t pid, uint64_t addr)
{
    const pg_map *m = pg_procs_find(b->procs, pid, addr);
    if (!m) {
        snprintf(b->unknown[slot], sizeof b->unknown[slot], "[unknown]");
        return b->unknown[slot];
    }
    if (!m->file->ok) {
        /* [vdso], anonymous memory or a file that is gone: module+offset into the mapping */
        snprintf(b->unknown[slot], sizeof b->unknown[slot], "%.24s+0x%llx", m->file->base,
                 (unsigned long long)(addr - m->start + m->pgoff));
        return b->unknown[slot];
    }
    return pg_symbolize(b->sym, m->file, addr - m->bias);
}

/* The frame-pointer walk starts from the sampled rbp, so when the leaf has not
 * set up a frame of its own (gcc omits it in leaf functions, and every
 * function is sampled in its prologue at times) the leaf's caller is missing
 * from the chain. One DWARF step over the copied top of the stack finds the
 * leaf's real return address; when the chain lacks it, it is inserted. */
static void fix_leaf(builder *b, const sample *s, size_t *n)
{
    uint64_t two[2];
    size_t m = 0;
    if (!s->regs || !s->stack || *n >= MAX_FRAMES)
        return;
    pg_unwind(b->unw, two, 2, &m, b->procs, (pid_t)s->pid, s->regs, b->mask, s->stack, s->stack_len);
    if (m < 2 || two[0] != b->ips[0] || (*n > 1 && two[1] == b->ips[1]))
        return;
    memmove(&b->ips[2], &b->ips[1], (*n - 1) * sizeof *b->ips);
    b->ips[1] = two[1];
    ++*n;
}

/* The call chain split by its context marks: kernel frames into b->kips
 * (*nk), user frames into b->ips (*n), each leaf first. Without marks (a
 * user-only chain) every frame is the user's. */
static void split_chain(builder *b, const sample *s, size_t *nk, size_t *n)
{
    int kernel = 0;
    for (uint64_t i = 0; i < s->nchain; i++) {
        uint64_t ip = s->chain[i];
        if (ip >= PERF_CONTEXT_MAX) {
            kernel = ip == PERF_CONTEXT_KERNEL;
            continue;
        }
        if (kernel || pg_kallsyms_is_kernel(ip)) {
            if (*nk < MAX_FRAMES)
                b->kips[(*nk)++] = ip;
        } else if (*n < MAX_FRAMES) {
            b->ips[(*n)++] = ip;
        }
    }
}

static const char *kernel_frame(builder *b, uint64_t ip)
{
    if (!b->ksyms_tried) {
        b->ksyms_tried = 1;
        if (pg_kallsyms_load(&b->ksyms, NULL) < 0)
            b->ksyms = NULL;    /* out of memory: unnamed kernel frames, still counted */
        b->st->kernel_hidden = pg_kallsyms_hidden(b->ksyms);
    }
    return pg_kallsyms_frame(b->ksyms, ip);
}

static int add_sample(builder *b, const struct perf_event_header *h)
{
    sample s;
    if (decode(&s, h, b->type, b->mask) < 0)
        return 0;   /* a malformed record is skipped, not fatal */
    size_t n = 0, nk = 0;
    int truncated = 0;
    int why = PG_UNWIND_DONE;
    split_chain(b, &s, &nk, b->cg == PG_CALLGRAPH_FP ? &n : &(size_t){0});
    if (!nk && pg_kallsyms_is_kernel(s.ip))
        b->kips[nk++] = s.ip;   /* in the kernel with no chain: its one frame */
    if (nk && !s.regs) {
        /* A kernel thread (or the idle task): the kernel's stack is all there is. */
    } else if (b->cg == PG_CALLGRAPH_FP) {
        if (!n)
            b->ips[n++] = s.ip;
        fix_leaf(b, &s, &n);
    } else if (s.regs && s.stack) {
        why = pg_unwind(b->unw, b->ips, MAX_FRAMES, &n, b->procs, (pid_t)s.pid, s.regs, b->mask, s.stack,
                        s.stack_len);
        truncated = why != PG_UNWIND_DONE;
    } else if (!pg_kallsyms_is_kernel(s.ip)) {
        b->ips[n++] = s.ip;
        truncated = 1;
    }
    /* names[0] is the comm; then the frames root first. Return addresses point
     * after the call: look up addr - 1 so the caller's line and inlining are right. */
    size_t k = 0;
    b->names[k++] = pg_procs_comm_of(b->procs, (pid_t)s.pid, (pid_t)s.tid);
    size_t first = k;
    k++;    /* room for [truncated] */
    for (size_t i = n; i-- > 0;) {
        const char *nm = name_of(b, i, (pid_t)s.pid, i ? b->ips[i] - 1 : b->ips[i]);
        if (!nm)
            return pg_error_set(PG_ENOMEM, "out of memory");
        b->names[k++] = nm;
    }
    if (!truncated && n && k > first + 1 && !is_root_name(b->names[first + 1]) &&
        !is_root_addr(b->procs, (pid_t)s.pid, b->ips[n - 1] - (n > 1)))
        truncated = 1;
    if (n && !pg_procs_find(b->procs, (pid_t)s.pid, b->ips[0]))
        b->st->unmapped++;
    /* The kernel's frames below the user's: root first, so the leaf last. */
    for (size_t i = nk; i-- > 0 && k < 2 * MAX_FRAMES + 2;)
        b->names[k++] = kernel_frame(b, b->kips[i]);
    b->st->kernel += nk > 0;
    if (truncated) {
        b->names[first] = "[truncated]";
        b->st->truncated++;
        b->st->truncated_stack += why == PG_UNWIND_STACK_END;
    } else {
        memmove(&b->names[first], &b->names[first + 1], (k - first - 1) * sizeof *b->names);
        k--;
    }
    b->st->samples++;
    /* Names holding inlined chains contain ';' already: join, then add as one stack. */
    size_t len = 0;
    for (size_t i = 0; i < k; i++)
        len += strlen(b->names[i]) + 1;
    char *stack = malloc(len + 1), *p = stack;
    if (!stack)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < k; i++) {
        size_t l = strlen(b->names[i]);
        memcpy(p, b->names[i], l);
        /* a frame may not carry the separator or a newline except between inlined frames */
        for (size_t j = 0; j < l; j++)
            if (p[j] == '\n' || p[j] == '\r' || (p[j] == ' ' && i == 0))
                p[j] = i == 0 ? '_' : ' ';
        p += l;
        *p++ = ';';
    }
    p[-1] = '\0';
    int rc = pg_folded_add(b->out, stack, 1);
    free(stack);
    return rc;
}

struct pg_profile {
    builder b;
    const pg_sampler *s;    /* its layout is known once it attached */
    pg_profile_stats st;
};

/* The folded stacks keep where each function comes from, for pprof files. */
static void note_source(void *ctx, const char *name, const pg_frame_source *src)
{
    if (pg_folded_set_source(ctx, name, src) < 0)
        pg_error_clear();   /* only the pprof file's source lines are lost */
}

int pg_profile_new(pg_profile **out, pg_folded *f, const pg_sampler *s)
{
    *out = NULL;
    pg_profile *p = calloc(1, sizeof *p);
    if (!p)
        return pg_error_set(PG_ENOMEM, "out of memory");
    builder *b = &p->b;
    int rc;
    if ((rc = pg_procs_new(&b->procs)) < 0 || (rc = pg_unwinder_new(&b->unw)) < 0 ||
        (rc = pg_symbolizer_new(&b->sym)) < 0) {
        pg_profile_free(p);
        return rc;
    }
    b->out = f;
    b->st = &p->st;
    p->s = s;
    pg_symbolizer_on_source(b->sym, note_source, f);
    *out = p;
    return 0;
}

void pg_profile_free(pg_profile *p)
{
    if (!p)
        return;
    /* The symbolizer's per-file state lives in the files, freed with the procs. */
    pg_symbolizer_free(p->b.sym);
    pg_kallsyms_free(p->b.ksyms);
    pg_unwinder_free(p->b.unw);
    pg_procs_free(p->b.procs);
    free(p);
}

void pg_profile_stats_get(const pg_profile *p, pg_profile_stats *out) { *out = p->st; }

int pg_profile_add(void *ctx, const struct perf_event_header *h)
{
    pg_profile *p = ctx;
    builder *b = &p->b;
    if (!b->type) {
        b->type = pg_sampler_sample_type(p->s);
        b->mask = pg_sampler_regs_mask(p->s);
        b->cg = pg_sampler_callgraph(p->s);
    }
    /* Side-band records (perf_event_open(2)): fixed fields, then a NUL-terminated
     * name, then the sample_id trailer. One too short, or whose name does not
     * end inside it, is skipped like a malformed sample. */
    const uint32_t *u = (const uint32_t *)(h + 1);
    const uint64_t *w = (const uint64_t *)(u + 2);
    size_t size = h->size;
    switch (h->type) {
    case PERF_RECORD_SAMPLE:
        return add_sample(b, h);
    case PERF_RECORD_MMAP2:     /* pid, tid, addr, len, pgoff, maj/min/ino/ino_gen (or build id), prot, flags, filename */
    case PERF_RECORD_MMAP: {    /* pid, tid, addr, len, pgoff, filename */
        size_t at = h->type == PERF_RECORD_MMAP2 ? 72 : 40;
        const char *fname = (const char *)h + at;
        if (size <= at || !memchr(fname, '\0', size - at))
            return 0;
        /* Without mmap_data only executable mappings are recorded: MMAP's permissions go without saying. */
        uint32_t prot = PROT_READ | PROT_EXEC;
        if (h->type == PERF_RECORD_MMAP2)
            memcpy(&prot, (const char *)h + 64, sizeof prot);
        return pg_procs_mmap(b->procs, (pid_t)u[0], w[0], w[1], w[2], prot, fname);
    }
    case PERF_RECORD_COMM: {    /* pid, tid, comm */
        const char *comm = (const char *)(u + 2);
        if (size <= 16 || !memchr(comm, '\0', size - 16))
            return 0;
        return pg_procs_comm(b->procs, (pid_t)u[0], (pid_t)u[1], comm, (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0);
    }
    case PERF_RECORD_FORK:      /* pid, ppid, tid, ptid, time */
        if (size < 24)
            return 0;
        return pg_procs_fork(b->procs, (pid_t)u[0], (pid_t)u[1], (pid_t)u[2], (pid_t)u[3]);
    default:
        return 0;
    }
}
