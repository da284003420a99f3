/* counters/elffile.h — one mapped ELF file, as the unwinder and symbolizer need it.
 *
 * Opened once per path (maps.h caches them): the file is mmapped read-only and
 * its PT_LOAD segments and PT_GNU_EH_FRAME (.eh_frame_hdr) are noted, so that
 * the unwinder can read unwind tables and code "from memory" without the
 * process being alive. A file that cannot be opened or is not ELF still gets
 * an object (ok == 0), so frames in it can be named module+0xoffset.
 * "[vdso]" is read from perfgate's own vDSO (the kernel maps the same image
 * into every process).
 */
#ifndef PG_COUNTERS_ELFFILE_H
#define PG_COUNTERS_ELFFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct pg_elfseg {
    uint64_t vaddr, memsz, offset, filesz;
    uint32_t flags;             /* p_flags: PF_R, PF_W, PF_X */
} pg_elfseg;

typedef struct pg_elffile {
    char *path;                 /* as mapped */
    const char *base;           /* basename, points into path */
    int ok;                     /* mapped and parsed */
    const unsigned char *data;  /* whole file, read-only mapping */
    size_t size;
    int in_memory;              /* data is a malloc'd copy ([vdso]), not a file mapping */
    pg_elfseg *segs;            /* PT_LOAD, in file order */
    size_t nsegs;
    uint64_t entry;             /* e_entry: where the program starts (_start) */
    int has_eh;                 /* .eh_frame_hdr with a binary-search table */
    uint64_t eh_hdr_vaddr, eh_table_vaddr, eh_fde_count;
    void *sym;                  /* symbolizer state for this file (symbolize.c owns it) */
    void (*sym_free)(void *);
} pg_elffile;

/* Always returns an object unless out of memory (PG_ENOMEM); see `ok`. */
int pg_elffile_open(pg_elffile **out, const char *path);
void pg_elffile_free(pg_elffile *f);

/* The load bias (run-time address - link-time address) of one mapping of
 * the file: `start`, `pgoff` and `prot` (PROT_*) as mmap made it. Link-time
 * addresses and file offsets are different spaces: GNU ld keeps a segment's
 * p_vaddr - p_offset a multiple of the page size, but lld and mold pack
 * segments into the file without page padding (p_vaddr - p_offset of the
 * code is 0x1000 where its headers' is 0), so a file offset is never taken
 * for an address. The loader maps each PT_LOAD from the page holding its
 * first byte; when several segments start in that page (lld, mold, GNU ld
 * without -z separate-code), the one whose permissions are the mapping's
 * is the one mapped. A mapping that starts inside a segment (a program
 * mapping part of a file itself) belongs to the segment holding its first
 * byte. -1 when no segment fits. */
int pg_elffile_map_bias(const pg_elffile *f, uint64_t start, uint64_t pgoff, unsigned prot, uint64_t *bias);

/* Copies n bytes at link-time address `vaddr` from the file contents. -1 when
 * the range is not file-backed (bss, outside every segment). */
int pg_elffile_read(const pg_elffile *f, uint64_t vaddr, void *buf, size_t n);

/* The start of the function holding `vaddr`, from the unwind table (every
 * function with unwind info has an FDE, stripped or not). -1 when no FDE
 * covers it. */
int pg_elffile_func_start(const pg_elffile *f, uint64_t vaddr, uint64_t *start);

#endif
