/* counters/unwind.c — libunwind remote accessors over a sample. See unwind.h. */
#include "counters/unwind.h"
#include "util/error.h"

#include <asm/perf_regs.h>
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>

/* Not in libunwind's public headers, but exported; perf declares it the same way. */
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di,
                                              unw_proc_info_t *pi, int need_unwind_info, void *arg);

typedef struct sample_ctx {
    const pg_procs *procs;
    pid_t pid;
    const uint64_t *regs;
    uint64_t mask;
    const unsigned char *stack;
    size_t stack_len;
    uint64_t sp;
    int above_copy;     /* a read above the copied stack failed (during the current step) */
} sample_ctx;

struct pg_unwinder {
    unw_addr_space_t as;
    uint64_t gen;
    pid_t pid;      /* whose code the cache holds: with ASLR off every PIE loads at one address */
};

static int reg_value(uint64_t *out, const sample_ctx *c, int perf_reg)
{
    if (!(c->mask & (1ull << perf_reg)))
        return -1;
    /* The value's index is the number of set mask bits below it. */
    int idx = __builtin_popcountll(c->mask & ((1ull << perf_reg) - 1));
    *out = c->regs[idx];
    return 0;
}

static int perf_reg_of(unw_regnum_t r)
{
    switch (r) {
    case UNW_X86_64_RAX: return PERF_REG_X86_AX;
    case UNW_X86_64_RDX: return PERF_REG_X86_DX;
    case UNW_X86_64_RCX: return PERF_REG_X86_CX;
    case UNW_X86_64_RBX: return PERF_REG_X86_BX;
    case UNW_X86_64_RSI: return PERF_REG_X86_SI;
    case UNW_X86_64_RDI: return PERF_REG_X86_DI;
    case UNW_X86_64_RBP: return PERF_REG_X86_BP;
    case UNW_X86_64_RSP: return PERF_REG_X86_SP;
    case UNW_X86_64_R8: return PERF_REG_X86_R8;
    case UNW_X86_64_R9: return PERF_REG_X86_R9;
    case UNW_X86_64_R10: return PERF_REG_X86_R10;
    case UNW_X86_64_R11: return PERF_REG_X86_R11;
    case UNW_X86_64_R12: return PERF_REG_X86_R12;
    case UNW_X86_64_R13: return PERF_REG_X86_R13;
    case UNW_X86_64_R14: return PERF_REG_X86_R14;
    case UNW_X86_64_R15: return PERF_REG_X86_R15;
    case UNW_X86_64_RIP: return PERF_REG_X86_IP;
    default: return -1;
    }
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need_unwind_info, void *arg)
{
    sample_ctx *c = arg;
    const pg_map *m = pg_procs_find(c->procs, c->pid, ip);
    if (!m || !m->file->ok || !m->file->has_eh)
        return -UNW_ENOINFO;
    const pg_elffile *f = m->file;
    unw_dyn_info_t di;
    memset(&di, 0, sizeof di);
    di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
    di.start_ip = m->start;
    di.end_ip = m->end;
    di.u.rti.segbase = f->eh_hdr_vaddr + m->bias;
    di.u.rti.table_data = f->eh_table_vaddr + m->bias;
    /* In words: each entry is two int32 (initial location, FDE address). */
    di.u.rti.table_len = f->eh_fde_count * 8 / sizeof(unw_word_t);
    return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg) { }

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
    return -UNW_ENOINFO;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write, void *arg)
{
    sample_ctx *c = arg;
    if (write)
        return -UNW_EINVAL;
    if (addr + sizeof *valp < addr)
        return -UNW_EINVAL;
    if (addr >= c->sp && addr + sizeof *valp <= c->sp + c->stack_len) {
        memcpy(valp, c->stack + (addr - c->sp), sizeof *valp);
        return 0;
    }
    if (pg_procs_read(c->procs, c->pid, addr, valp, sizeof *valp) == 0)
        return 0;
    if (addr >= c->sp + c->stack_len)
        c->above_copy = 1;
    return -UNW_EINVAL;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp, int write, void *arg)
{
    sample_ctx *c = arg;
    uint64_t v;
    int r = perf_reg_of(regnum);
    if (write || r < 0 || reg_value(&v, c, r) < 0)
        return -UNW_EBADREG;
    *valp = v;
    return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val, int write, void *arg)
{
    return -UNW_EINVAL;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg) { return -UNW_EINVAL; }

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *bufp, size_t buf_len, unw_word_t *offp, void *arg)
{
    return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
    .find_proc_info = find_proc_info,
    .put_unwind_info = put_unwind_info,
    .get_dyn_info_list_addr = get_dyn_info_list_addr,
    .access_mem = access_mem,
    .access_reg = access_reg,
    .access_fpreg = access_fpreg,
    .resume = resume,
    .get_proc_name = get_proc_name,
};

/* Whether every frame of ips[0..n) has an FDE. Asked of the files' own
 * tables, not of libunwind: a frame without one is unwound by guessing from
 * rbp, and a guess that reads past the copy says nothing about how deep the
 * stack is. Return addresses (all but ips[0]) are looked up at ip - 1. */
static int all_described(const sample_ctx *c, const uint64_t *ips, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t ip = ips[i] - (i > 0), start;
        const pg_map *m = pg_procs_find(c->procs, c->pid, ip);
        if (!m || !m->file->ok || pg_elffile_func_start(m->file, ip - m->bias, &start) < 0)
            return 0;
    }
    return 1;
}

int pg_unwinder_new(pg_unwinder **out)
{
    pg_unwinder *u = calloc(1, sizeof *u);
    if (!u)
        return pg_error_set(PG_ENOMEM, "out of memory");
    u->as = unw_create_addr_space(&accessors, 0);
    if (!u->as) {
        free(u);
        return pg_error_set(PG_ENOMEM, "libunwind: cannot create an address space");
    }
    /* One cache for the whole profile: the same code is unwound thousands of times.
     * It is flushed whenever the mappings change (exec, dlopen). */
    unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
    u->gen = (uint64_t)-1;
    *out = u;
    return 0;
}

void pg_unwinder_free(pg_unwinder *u)
{
    if (!u)
        return;
    unw_destroy_addr_space(u->as);
    free(u);
}

int pg_unwind(pg_unwinder *u, uint64_t *ips, size_t max, size_t *n,
              const pg_procs *procs, pid_t pid,
              const uint64_t *regs, uint64_t mask, const unsigned char *stack, size_t stack_len)
{
    *n = 0;
    if (!max)
        return PG_EINVAL;
    sample_ctx c = {.procs = procs, .pid = pid, .regs = regs, .mask = mask, .stack = stack, .stack_len = stack_len};
    uint64_t ip;
    if (reg_value(&ip, &c, PERF_REG_X86_IP) < 0 || reg_value(&c.sp, &c, PERF_REG_X86_SP) < 0)
        return PG_EINVAL;
    ips[(*n)++] = ip;
    if (pg_procs_generation(procs) != u->gen || pid != u->pid) {
        unw_flush_cache(u->as, 0, 0);
        u->gen = pg_procs_generation(procs);
        u->pid = pid;
    }
    unw_cursor_t cur;
    if (unw_init_remote(&cur, u->as, &c) < 0)
        return PG_UNWIND_STOPPED;
    for (;;) {
        c.above_copy = 0;
        int r = unw_step(&cur);
        if (r == 0)
            return PG_UNWIND_DONE;      /* the outermost frame: the CFI says there is no caller */
        if (r < 0)
            return c.above_copy && all_described(&c, ips, *n) ? PG_UNWIND_STACK_END : PG_UNWIND_STOPPED;
        unw_word_t pc = 0;
        if (unw_get_reg(&cur, UNW_REG_IP, &pc) < 0)
            return PG_UNWIND_STOPPED;
        if (pc == 0)
            return PG_UNWIND_DONE;
        if (*n == max)
            return PG_UNWIND_STOPPED;
        ips[(*n)++] = pc;
    }
}
