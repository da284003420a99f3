/* counters/elffile.c — program headers and .eh_frame_hdr of a mapped file. See elffile.h. */
#include "counters/elffile.h"
#include "util/error.h"

#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads a DW_EH_PE-encoded value of the .eh_frame_hdr; returns its size or 0 when unsupported. */
static size_t read_encoded(uint64_t *out, const unsigned char *p, const unsigned char *end,
                           uint8_t enc, uint64_t pc)
{
    uint64_t v;
    size_t n;
    switch (enc & 0x0f) {
    case DW_EH_PE_udata4: { uint32_t x; n = 4; if (p + n > end) return 0; memcpy(&x, p, 4); v = x; break; }
    case DW_EH_PE_sdata4: { int32_t x; n = 4; if (p + n > end) return 0; memcpy(&x, p, 4); v = (uint64_t)(int64_t)x; break; }
    case DW_EH_PE_absptr:
    case DW_EH_PE_udata8:
    case DW_EH_PE_sdata8: n = 8; if (p + n > end) return 0; memcpy(&v, p, 8); break;
    default: return 0;
    }
    if ((enc & 0x70) == DW_EH_PE_pcrel)
        v += pc;
    else if ((enc & 0x70) != 0)
        return 0;
    *out = v;
    return n;
}

static void parse_eh_hdr(pg_elffile *f, const GElf_Phdr *ph)
{
    if (ph->p_offset + ph->p_filesz > f->size || ph->p_filesz < 4)
        return;
    const unsigned char *p = f->data + ph->p_offset, *end = p + ph->p_filesz;
    uint8_t version = p[0], ptr_enc = p[1], cnt_enc = p[2], tab_enc = p[3];
    /* libunwind's table search wants the usual datarel|sdata4 table. */
    if (version != 1 || tab_enc != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
        return;
    uint64_t eh_frame, count;
    size_t o = 4, n;
    if (!(n = read_encoded(&eh_frame, p + o, end, ptr_enc, ph->p_vaddr + o)))
        return;
    o += n;
    if (!(n = read_encoded(&count, p + o, end, cnt_enc, ph->p_vaddr + o)))
        return;
    o += n;
    f->eh_hdr_vaddr = ph->p_vaddr;
    f->eh_table_vaddr = ph->p_vaddr + o;
    f->eh_fde_count = count;
    f->has_eh = count > 0;
}

static void parse(pg_elffile *f)
{
    elf_version(EV_CURRENT);
    Elf *e = elf_memory((char *)f->data, f->size);
    if (!e)
        return;
    size_t nph;
    GElf_Ehdr eh;
    if (elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph) != 0 || !gelf_getehdr(e, &eh)) {
        elf_end(e);
        return;
    }
    f->entry = eh.e_entry;
    f->segs = calloc(nph ? nph : 1, sizeof *f->segs);
    if (!f->segs) {
        elf_end(e);
        return;
    }
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph))
            continue;
        if (ph.p_type == PT_LOAD)
            f->segs[f->nsegs++] = (pg_elfseg){ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, ph.p_flags};
        else if (ph.p_type == PT_GNU_EH_FRAME)
            parse_eh_hdr(f, &ph);
    }
    elf_end(e);
    f->ok = f->nsegs > 0;
}

/* The kernel's vDSO is the same image in every process: perfgate reads its own
 * copy, so samples in clock_gettime & co. unwind and symbolize like any library. */
static void load_vdso(pg_elffile *f)
{
    const unsigned char *v = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
    if (!v || memcmp(v, ELFMAG, SELFMAG) || v[EI_CLASS] != ELFCLASS64)
        return;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)v;
    size_t size = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(v + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_offset + ph[i].p_filesz > size)
            size = (size_t)(ph[i].p_offset + ph[i].p_filesz);
    if (size > (64u << 10))
        return;
    unsigned char *copy = malloc(size);
    if (!copy)
        return;
    memcpy(copy, v, size);
    f->data = copy;
    f->size = size;
    f->in_memory = 1;
    parse(f);
}

int pg_elffile_open(pg_elffile **out, const char *path)
{
    pg_elffile *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    const char *slash = strrchr(f->path, '/');
    f->base = slash ? slash + 1 : f->path;
    if (!strcmp(path, "[vdso]")) {
        load_vdso(f);
        *out = f;
        return 0;
    }
    int fd = path[0] == '/' ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            f->data = m;
            f->size = (size_t)st.st_size;
            parse(f);
        }
    }
    if (fd >= 0)
        close(fd);
    *out = f;
    return 0;
}

void pg_elffile_free(pg_elffile *f)
{
    if (!f)
        return;
    if (f->sym && f->sym_free)
        f->sym_free(f->sym);
    if (f->data && f->in_memory)
        free((void *)f->data);
    else if (f->data)
        munmap((void *)f->data, f->size);
    free(f->segs);
    free(f->path);
    free(f);
}

/* The permissions a segment is mapped with, as PROT_* bits. */
static unsigned seg_prot(const pg_elfseg *s)
{
    return (s->flags & PF_R ? PROT_READ : 0u) | (s->flags & PF_W ? PROT_WRITE : 0u) | (s->flags & PF_X ? PROT_EXEC : 0u);
}

int pg_elffile_map_bias(const pg_elffile *f, uint64_t start, uint64_t pgoff, unsigned prot, uint64_t *bias)
{
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    const pg_elfseg *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < f->nsegs; i++) {
        const pg_elfseg *s = &f->segs[i];
        int where;
        if (!s->filesz)
            continue;
        if (pgoff <= s->offset && s->offset - pgoff < page)
            where = 2;      /* the loader's mapping of s: from the page of its first byte */
        else if (pgoff > s->offset && pgoff < s->offset + s->filesz)
            where = 1;      /* part of a segment, mapped from inside it (not by the loader) */
        else
            continue;
        /* Where decides first; then the execute bit (only executable mappings are
         * recorded), then the write bit. */
        unsigned sp = seg_prot(s);
        int score = where * 4 + ((sp & PROT_EXEC) == (prot & PROT_EXEC)) * 2 + ((sp & PROT_WRITE) == (prot & PROT_WRITE));
        if (score > best_score) {
            best = s;
            best_score = score;
        }
    }
    if (!best)
        return -1;
    /* File offset o is mapped at start + (o - pgoff) and linked at vaddr + (o - offset). */
    *bias = start - pgoff + best->offset - best->vaddr;
    return 0;
}

int pg_elffile_read(const pg_elffile *f, uint64_t vaddr, void *buf, size_t n)
{
    for (size_t i = 0; i < f->nsegs; i++) {
        const pg_elfseg *s = &f->segs[i];
        if (vaddr >= s->vaddr && vaddr + n <= s->vaddr + s->filesz && vaddr + n >= vaddr) {
            uint64_t off = s->offset + (vaddr - s->vaddr);
            if (off + n > f->size)
                return -1;
            memcpy(buf, f->data + off, n);
            return 0;
        }
    }
    return -1;
}

/* Entries of the .eh_frame_hdr table: int32 pairs (function start, FDE),
 * both relative to the start of .eh_frame_hdr, sorted by function start. */
static int table_entry(const pg_elffile *f, uint64_t i, int32_t e[2])
{
    return pg_elffile_read(f, f->eh_table_vaddr + i * 8, e, 8);
}

int pg_elffile_func_start(const pg_elffile *f, uint64_t vaddr, uint64_t *start)
{
    if (!f->has_eh)
        return -1;
    uint64_t lo = 0, hi = f->eh_fde_count;
    int32_t e[2];
    while (lo < hi) {       /* the last entry starting at or before vaddr */
        uint64_t mid = lo + (hi - lo) / 2;
        if (table_entry(f, mid, e) < 0)
            return -1;
        if (f->eh_hdr_vaddr + (uint64_t)(int64_t)e[0] <= vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || table_entry(f, lo - 1, e) < 0)
        return -1;
    uint64_t fn = f->eh_hdr_vaddr + (uint64_t)(int64_t)e[0];
    /* The FDE's own range: length, CIE pointer, then pc_begin and pc_range, which
     * x86-64 toolchains encode pcrel|sdata4 and sdata4. A 64-bit-length FDE or one
     * whose pc_begin disagrees is not trusted for a range, only for its start. */
    uint64_t fde = f->eh_hdr_vaddr + (uint64_t)(int64_t)e[1];
    uint32_t w[4];
    if (pg_elffile_read(f, fde, w, sizeof w) == 0 && w[0] != 0xffffffffu &&
        fde + 8 + (uint64_t)(int64_t)(int32_t)w[2] == fn && vaddr >= fn + w[3])
        return -1;
    *start = fn;
    return 0;
}
