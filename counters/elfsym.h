/* counters/elfsym.h — what perfgate reads in a benchmark's executable before
 * running it (libelf): whether it carries perfgate's region-marker note, and
 * where a function the dynamic loader would bind lives (for uprobes).
 */
#ifndef PG_COUNTERS_ELFSYM_H
#define PG_COUNTERS_ELFSYM_H

#include <limits.h>
#include <stdint.h>

/* The note include/perfgate.h puts in a program that uses a marker. */
#define PG_MARKER_NOTE_NAME "perfgate"
#define PG_MARKER_NOTE_TYPE 0x50470001u
#define PG_MARKER_NOTE_VALGRIND 1u

/* Does the ELF file at `path` carry the marker note? 1 yes (*flags gets its
 * descriptor: PG_MARKER_NOTE_VALGRIND when the client requests were compiled
 * in), 0 no or not an ELF file (a script), negative when it cannot be read. */
int pg_elfsym_markers(const char *path, unsigned *flags);

/* Where the loader would bind function `name` for the program `exe`: the
 * program itself when it defines it, else the first library that does, in
 * the loader's breadth-first order of DT_NEEDED (found through the program's
 * RUNPATH/RPATH with $ORIGIN, `ld_library_path`, the libraries perfgate has
 * loaded itself, and the system directories). `file` gets the file's path and
 * *offset the function's file offset, as a uprobe wants them.
 * PG_ENOTFOUND with a message naming the files searched; PG_ENOTSUP for an
 * IFUNC (its entry is a resolver, not the function). */
int pg_elfsym_resolve(char file[PATH_MAX], uint64_t *offset, const char *exe, const char *name,
                      const char *ld_library_path);

/* `cmd` as exec would find it: itself when it has a '/', else the first
 * executable of that name on `path` (NULL: $PATH). 0, or PG_ENOTFOUND. */
int pg_elfsym_which(char out[PATH_MAX], const char *cmd, const char *path);

#endif
