/* counters/symbolize.c — libdwfl per file, cached per address. See symbolize.h. */
#include "counters/symbolize.h"
#include "counters/demangle.h"
#include "util/array.h"
#include "util/error.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* One address range of a function's code in a compile unit. */
typedef struct fn_range {
    Dwarf_Addr lo, hi;
    Dwarf_Die die;
} fn_range;

/* A compile unit's functions, sorted by address: made the first time an
 * address falls in it, so that a profile's thousands of addresses in one
 * CU walk its DIEs once, not once each. */
typedef struct cu_funcs {
    Dwarf_Off cu;               /* the CU DIE's offset */
    fn_range *r;
    size_t n, cap;
} cu_funcs;

typedef struct file_state {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    char build_id[41];          /* hex, "" when the file has none (first 20 bytes) */
    cu_funcs *cus;
    size_t ncus, capcus;
} file_state;

typedef struct slot {
    const pg_elffile *file;
    uint64_t vaddr;
    char *frames;
} slot;

struct pg_symbolizer {
    slot *tab;
    size_t cap, n;
    pg_symbolize_source_fn *on_source;
    void *on_source_ctx;
};

static char *debuginfo_path;

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

static void free_state(void *p)
{
    file_state *st = p;
    if (st->dwfl)
        dwfl_end(st->dwfl);
    for (size_t i = 0; i < st->ncus; i++)
        free(st->cus[i].r);
    free(st->cus);
    free(st);
}

static file_state *state_of(pg_elffile *f)
{
    if (f->sym)
        return f->sym;
    file_state *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    f->sym = st;
    f->sym_free = free_state;
    if (!f->ok)
        return st;
    st->dwfl = dwfl_begin(&callbacks);
    if (!st->dwfl)
        return st;
    dwfl_report_begin(st->dwfl);
    /* In-memory images ([vdso]) reach libdwfl through a memfd it takes over. */
    int fd = -1;
    if (f->in_memory) {
        fd = memfd_create("pg-elf", MFD_CLOEXEC);
        if (fd >= 0 && write(fd, f->data, f->size) != (ssize_t)f->size) {
            close(fd);
            fd = -1;
        }
        if (fd < 0) {
            dwfl_report_end(st->dwfl, NULL, NULL);
            return st;
        }
    }
    /* Base 0: module addresses are the file's own link-time addresses. */
    st->mod = dwfl_report_elf(st->dwfl, f->base, f->path, fd, 0, false);
    dwfl_report_end(st->dwfl, NULL, NULL);
    const unsigned char *id;
    GElf_Addr at;
    int n = st->mod ? dwfl_module_build_id(st->mod, &id, &at) : 0;
    for (int i = 0; i < n && i < 20; i++)
        snprintf(st->build_id + 2 * i, 3, "%02x", id[i]);
    return st;
}

int pg_symbolizer_new(pg_symbolizer **out)
{
    pg_symbolizer *s = calloc(1, sizeof *s);
    if (!s || !(s->tab = calloc(s->cap = 1024, sizeof *s->tab))) {
        free(s);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    *out = s;
    return 0;
}

void pg_symbolizer_on_source(pg_symbolizer *s, pg_symbolize_source_fn *fn, void *ctx)
{
    s->on_source = fn;
    s->on_source_ctx = ctx;
}

void pg_symbolizer_free(pg_symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->cap; i++)
        free(s->tab[i].frames);
    free(s->tab);
    free(s);
}

static size_t hash(const pg_elffile *f, uint64_t v)
{
    uint64_t h = (uint64_t)(uintptr_t)f * 0x9e3779b97f4a7c15ull ^ v * 0xff51afd7ed558ccdull;
    return (size_t)(h ^ (h >> 29));
}

static int rehash(pg_symbolizer *s)
{
    size_t nc = s->cap * 2;
    slot *t = calloc(nc, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->tab[i].frames)
            continue;
        size_t j = hash(s->tab[i].file, s->tab[i].vaddr) & (nc - 1);
        while (t[j].frames)
            j = (j + 1) & (nc - 1);
        t[j] = s->tab[i];
    }
    free(s->tab);
    s->tab = t;
    s->cap = nc;
    return 0;
}

/* A growing ';'-joined list of names, innermost first; reversed at the end;
 * each with the source file and line of its function when DWARF gives them. */
typedef struct names {
    char *v[64];
    const char *file[64];
    int line[64];
    size_t n;
} names;

static void push_name(names *ns, const char *raw)
{
    if (ns->n == 64 || !raw)
        return;
    ns->file[ns->n] = NULL;
    ns->line[ns->n] = 0;
    char buf[1024];
    ns->v[ns->n++] = strdup(pg_demangle_frame(buf, sizeof buf, raw));
}

/* The name of a subprogram or inlined-subroutine DIE: the linkage name when
 * there is one (C++: qualified after demangling), else the source name. */
static const char *die_name(Dwarf_Die *d)
{
    Dwarf_Attribute a;
    const char *n = NULL;
    if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) || dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
        n = dwarf_formstring(&a);
    return n ? n : dwarf_diename(d);
}

/* DIEs that own functions without having an address range of their own:
 * rustc (and LLVM for other languages) nests each function's definition in
 * DW_TAG_namespace (crate, module, impl block) and sometimes in the type it
 * belongs to. */
static int is_container(int tag)
{
    return tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_structure_type ||
           tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

/* The DIEs under `parent` whose address ranges hold pc, outermost first,
 * appended to chain[*n..max): the lexical blocks and inlined calls of a
 * function (one path down, as the nesting of scopes is). */
static void scopes_at(Dwarf_Die *chain, int *n, int max, Dwarf_Die *parent, Dwarf_Addr pc, int depth)
{
    Dwarf_Die child;
    if (depth > 64 || dwarf_child(parent, &child) != 0)
        return;
    do {
        if (dwarf_haspc(&child, pc) == 1) {
            if (*n < max)
                chain[(*n)++] = child;
            scopes_at(chain, n, max, &child, pc, depth + 1);
            return;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
}

/* Every function with code under `parent` into c, going into containers
 * and into functions and their blocks (a nested function: GCC's, or a
 * language's that nests them so). Not dwarf_getscopes: it prunes every DIE
 * whose ranges do not hold the address, and a namespace has none, so with
 * rustc's DWARF it found nothing and every Rust frame came from the symbol
 * table, without its inlined calls. */
static int index_funcs(cu_funcs *c, Dwarf_Die *parent, int depth)
{
    Dwarf_Die child;
    if (depth > 64 || dwarf_child(parent, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram) {
            Dwarf_Addr base, lo, hi;
            ptrdiff_t off = 0;
            while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
                if (pg_array_grow(&c->r, &c->cap, c->n, sizeof *c->r, 64) < 0)
                    return PG_ENOMEM;
                c->r[c->n++] = (fn_range){.lo = lo, .hi = hi, .die = child};
            }
        }
        if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || is_container(tag)) &&
            index_funcs(c, &child, depth + 1) < 0)
            return PG_ENOMEM;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    const fn_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The function of compile unit `cu` whose code holds pc: 1 and *out, else 0. */
static int function_at(Dwarf_Die *out, file_state *st, Dwarf_Die *cu, Dwarf_Addr pc)
{
    Dwarf_Off at = dwarf_dieoffset(cu);
    cu_funcs *c = NULL;
    for (size_t i = 0; i < st->ncus && !c; i++)
        if (st->cus[i].cu == at)
            c = &st->cus[i];
    if (!c) {
        if (pg_array_grow(&st->cus, &st->capcus, st->ncus, sizeof *st->cus, 16) < 0)
            return 0;
        c = &st->cus[st->ncus++];
        *c = (cu_funcs){.cu = at};
        if (index_funcs(c, cu, 0) < 0)
            c->n = 0;
        if (c->n)
            qsort(c->r, c->n, sizeof *c->r, by_lo);
    }
    /* The last range starting at or before pc that holds it: the innermost,
     * when a nested function's code lies within its host's (a few back). */
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->r[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++)
        if (pc < c->r[i - 1].hi) {
            *out = c->r[i - 1].die;
            return 1;
        }
    return 0;
}

static char *resolve(pg_symbolizer *s, pg_elffile *f, uint64_t vaddr)
{
    file_state *st = state_of(f);
    names ns = {.n = 0};
    if (st && st->mod) {
        Dwarf_Addr bias = 0;
        Dwarf_Die *cu = dwfl_module_addrdie(st->mod, vaddr, &bias);
        Dwarf_Die chain[64];
        int n = 0;
        if (cu && function_at(&chain[0], st, cu, vaddr - bias)) {
            n = 1;
            scopes_at(chain, &n, 64, &chain[0], vaddr - bias, 1);
        }
        /* The innermost function (a nested function is called, not inlined,
         * so frames start at the last subprogram), then its inlined calls. */
        int from = n - 1;
        while (from >= 0 && dwarf_tag(&chain[from]) != DW_TAG_subprogram)
            from--;
        if (from < 0)
            from = n;
        for (int i = n; i-- > from;) {
            int tag = dwarf_tag(&chain[i]);
            if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
                continue;
            size_t at = ns.n;
            push_name(&ns, die_name(&chain[i]));
            if (ns.n > at) {
                ns.file[at] = dwarf_decl_file(&chain[i]);
                dwarf_decl_line(&chain[i], &ns.line[at]);
            }
        }
        if (!ns.n) {
            GElf_Sym sym;
            GElf_Off off;
            const char *name = dwfl_module_addrinfo(st->mod, vaddr, &off, &sym, NULL, NULL, NULL);
            push_name(&ns, name);
        }
    }
    if (!ns.n) {
        /* No symbol: name the function by where it starts (its FDE), so all of
         * its samples are one frame, and addr2line -f -e module ADDR names it. */
        char buf[512];
        uint64_t start = vaddr;
        pg_elffile_func_start(f, vaddr, &start);
        snprintf(buf, sizeof buf, "%s+0x%llx", f->base, (unsigned long long)start);
        push_name(&ns, buf);
    }
    for (size_t i = 0; s->on_source && i < ns.n; i++) {
        pg_frame_source src = {.file = ns.file[i], .line = ns.line[i], .module = f->ok ? f->path : NULL,
                               .build_id = st && st->build_id[0] ? st->build_id : NULL};
        if (ns.v[i])
            s->on_source(s->on_source_ctx, ns.v[i], &src);
    }
    size_t len = 0;
    for (size_t i = 0; i < ns.n; i++)
        len += (ns.v[i] ? strlen(ns.v[i]) : 0) + 1;
    char *out = malloc(len + 1), *p = out;
    for (size_t i = ns.n; i-- > 0;) {
        if (out && ns.v[i]) {
            if (p != out)
                *p++ = ';';
            size_t l = strlen(ns.v[i]);
            memcpy(p, ns.v[i], l);
            p += l;
        }
        free(ns.v[i]);
    }
    if (out)
        *p = '\0';
    return out;
}

const char *pg_symbolize(pg_symbolizer *s, pg_elffile *f, uint64_t vaddr)
{
    size_t j = hash(f, vaddr) & (s->cap - 1);
    while (s->tab[j].frames) {
        if (s->tab[j].file == f && s->tab[j].vaddr == vaddr)
            return s->tab[j].frames;
        j = (j + 1) & (s->cap - 1);
    }
    char *fr = resolve(s, f, vaddr);
    if (!fr)
        return NULL;
    if ((s->n + 1) * 2 > s->cap) {
        if (rehash(s) < 0) {
            free(fr);
            return NULL;
        }
        j = hash(f, vaddr) & (s->cap - 1);
        while (s->tab[j].frames)
            j = (j + 1) & (s->cap - 1);
    }
    s->tab[j] = (slot){.file = f, .vaddr = vaddr, .frames = fr};
    s->n++;
    return fr;
}
