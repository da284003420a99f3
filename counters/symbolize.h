/* counters/symbolize.h — addresses in ELF files to function names (elfutils libdw).
 *
 * Per file, one libdwfl session (opened on first use, kept until the file is
 * freed): the symbol table (.symtab, else .dynsym, or .gnu_debugdata), and
 * DWARF from the file or its separate debug file (found by build-id under
 * /usr/lib/debug/.build-id, or by .gnu_debuglink). With DWARF, inlined calls
 * become frames of their own (the DIEs whose ranges hold the address, found
 * through the namespaces rustc nests functions in), and functions are named by
 * their source name, so compiler clones (hash.constprop.0) read as `hash`.
 * C++ and Rust names are demangled (demangle.h). An address no symbol covers
 * is named module+0xADDR, ADDR being the link-time address where its function
 * starts according to the unwind table (so a stripped function is still one
 * frame, and `addr2line -f -e module ADDR` names it from an unstripped
 * copy), else the address itself.
 *
 * Results are cached per (file, address): a file is symbolized once, not
 * once per sample.
 */
#ifndef PG_COUNTERS_SYMBOLIZE_H
#define PG_COUNTERS_SYMBOLIZE_H

#include "counters/elffile.h"
#include "util/folded.h"

#include <stdint.h>

typedef struct pg_symbolizer pg_symbolizer;

int pg_symbolizer_new(pg_symbolizer **out);
/* Frees the cache. The per-file sessions belong to the files (elffile.h). */
void pg_symbolizer_free(pg_symbolizer *s);

/* The frames at link-time address `vaddr` of `f`, outermost first, joined by
 * ';' (one name unless inlined calls are there). The string is owned by the
 * symbolizer and lives as long as it. NULL only when out of memory. */
const char *pg_symbolize(pg_symbolizer *s, pg_elffile *f, uint64_t vaddr);

/* Called once per frame name of each address resolved from then on (not
 * for cached ones): where the function comes from, its source file and
 * first line from DWARF (DW_AT_decl_file, DW_AT_decl_line; none from a
 * symbol table), the file and its build id. `src` lives for the call. */
typedef void pg_symbolize_source_fn(void *ctx, const char *name, const pg_frame_source *src);
void pg_symbolizer_on_source(pg_symbolizer *s, pg_symbolize_source_fn *fn, void *ctx);

#endif
