/* counters/symbolize.c — libdwfl per file, cached per address. See symbolize.h. */
#include "counters/symbolize.h"
#include "counters/demangle.h"
#include "util/error.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct file_state {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    char build_id[41];          /* hex, "" when the file has none (first 20 bytes) */
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

/* The first subprogram or inlined call among scopes[from..n): *fn, and 1; else 0. */
static int first_function(Dwarf_Die *fn, Dwarf_Die *scopes, int from, int n)
{
    for (int i = from; i < n; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
            *fn = scopes[i];
            return 1;
        }
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
        Dwarf_Die *scopes = NULL;
        int nsc = cu ? dwarf_getscopes(cu, vaddr - bias, &scopes) : 0;
        Dwarf_Die fn;
        int have = first_function(&fn, scopes, 0, nsc);
        free(scopes);
        /* dwarf_getscopes continues from an inlined call into the abstract
         * definition's scopes, not the caller's: walk the concrete tree up
         * from each inlined instance to find who it was inlined into. */
        while (have) {
            size_t at = ns.n;
            push_name(&ns, die_name(&fn));
            if (ns.n > at) {
                ns.file[at] = dwarf_decl_file(&fn);
                dwarf_decl_line(&fn, &ns.line[at]);
            }
            if (dwarf_tag(&fn) != DW_TAG_inlined_subroutine)
                break;
            scopes = NULL;
            nsc = dwarf_getscopes_die(&fn, &scopes);
            have = first_function(&fn, scopes, 1, nsc);
            free(scopes);
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
