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

/* The link-time address of file offset `off` within a PT_LOAD segment. -1 when none holds it. */
int pg_elffile_off_to_vaddr(const pg_elffile *f, uint64_t off, uint64_t *vaddr);

/* Copies n bytes at link-time address `vaddr` from the file contents. -1 when
 * the range is not file-backed (bss, outside every segment). */
int pg_elffile_read(const pg_elffile *f, uint64_t vaddr, void *buf, size_t n);

/* The start of the function holding `vaddr`, from the unwind table (every
 * function with unwind info has an FDE, stripped or not). -1 when no FDE
 * covers it. */
int pg_elffile_func_start(const pg_elffile *f, uint64_t vaddr, uint64_t *start);

#endif
