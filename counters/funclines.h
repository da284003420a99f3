/* counters/funclines.h — which source lines each function of a program spans
 * (its DWARF), for the coverage of a change (report/coverage.h).
 *
 * A change is lines of files; a benchmark's stacks are function names. This
 * joins them: for every function of the program whose source is under `root`
 * (the tree it was built from), the file (relative to root), the lines from
 * its declaration to the last line its code has in that file (line table rows
 * attributed to it by libdw's scopes, so nested inlined calls count for the
 * callee, not the caller), and the frames under which that code runs: its own
 * name when it has an out-of-line copy, and the concrete function of each
 * place it was inlined into (DW_TAG_inlined_subroutine). Names are frame
 * names as the symbolizer writes them (linkage name demangled, else the
 * source name: counters/symbolize.h).
 *
 * The table is written as JSON beside a benchmark's stacks:
 *   {"funclines": 1, "functions": [{"name", "file", "first", "last", "in": [...]}],
 *    "note": "..."}   (note: why there are no functions, when there are none)
 * and read back by report/coverage.c, which trusts none of it.
 */
#ifndef PG_COUNTERS_FUNCLINES_H
#define PG_COUNTERS_FUNCLINES_H

/* Writes the table of program `exe` (built under `root`) to `path`
 * (replaced atomically). A program without line tables, or not an ELF file,
 * still gets a table: no functions and a note saying why. Negative only when
 * `path` could not be written (PG_EIO) or memory ran out. */
int pg_funclines_write(const char *exe, const char *root, const char *path);

#endif
