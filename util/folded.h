/* util/folded.h — a profile as folded stacks (Brendan Gregg's format).
 *
 * One line per distinct stack: frames root-first, separated by ';', then a
 * space and a count:   main;parse;hash 42
 * The same text flamegraph.pl, inferno and speedscope read. perfgate writes it
 * from `record`, stores it with `run --sample`, and reads files others made.
 * Counts are 64-bit weights: samples, or instructions for valgrind stacks.
 */
#ifndef PG_UTIL_FOLDED_H
#define PG_UTIL_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct pg_folded pg_folded;

typedef struct pg_folded_entry {
    const char *stack;   /* "a;b;c", owned by the pg_folded */
    uint64_t count;
} pg_folded_entry;

int pg_folded_new(pg_folded **out);
void pg_folded_free(pg_folded *f);

/* Adds `count` to `stack` (frames joined by ';'); equal stacks merge. */
int pg_folded_add(pg_folded *f, const char *stack, uint64_t count);

/* Adds a stack given as an array of frames, root first. Frame names containing
 * ';' or newlines are sanitized (replaced by ':' and ' ') so the line stays parseable. */
int pg_folded_add_frames(pg_folded *f, const char *const *frames, size_t nframes, uint64_t count);

/* Where a frame's function comes from, when the recorder knows it (`record`
 * with the program's debug info; a folded file read from text has none):
 * what a pprof file's functions and mappings carry (report/pprof.h). */
typedef struct pg_frame_source {
    const char *file;       /* its source file, or NULL */
    int line;               /* the line it starts at (DW_AT_decl_line); 0: unknown */
    const char *module;     /* the executable or shared object it is in, or NULL */
    const char *build_id;   /* that file's GNU build id in hex, or NULL */
} pg_frame_source;

/* Notes where `frame` comes from (copied; the first note of a name stays).
 * PG_ENOMEM. */
int pg_folded_set_source(pg_folded *f, const char *frame, const pg_frame_source *src);
/* What was noted of `frame`, or NULL. */
const pg_frame_source *pg_folded_source(const pg_folded *f, const char *frame);

/* Parses folded text. Blank lines are skipped; a malformed line is an error
 * naming `name` and the line number ("name:12: ..."). The count is the last
 * blank-separated field, a whole number; frames may contain spaces. CRLF
 * endings are accepted. Adds to what is in `f` (what was added before a bad
 * line stays added). */
int pg_folded_parse(pg_folded *f, const char *text, size_t len, const char *name);
int pg_folded_read_file(pg_folded *f, const char *path);
/* The same, "-" reading standard input to its end (messages call it
 * "<stdin>"): what every command taking a FOLDED operand accepts. */
int pg_folded_read_path(pg_folded *f, const char *path);

/* Writes lines sorted by stack (stable output; the order of
 * pg_folded_stack_cmp, so equal prefixes stay adjacent), as valid UTF-8:
 * bytes of frame names that are not become U+FFFD. */
int pg_folded_write(const pg_folded *f, FILE *out);
/* Atomic: temp file in the same directory, fsync, rename. */
int pg_folded_write_file(const pg_folded *f, const char *path);

size_t pg_folded_count(const pg_folded *f);        /* distinct stacks */
uint64_t pg_folded_total(const pg_folded *f);      /* sum of counts */
/* Entries sorted by stack; the array is owned by `f` and valid until the next add.
 * NULL when `f` is empty (or, with pg_folded_count() > 0, out of memory). */
const pg_folded_entry *pg_folded_entries(pg_folded *f);

/* The order of entries: frame by frame, root first, bytes compared unsigned
 * within a frame; a stack sorts before its extensions ("a;b" < "a;b;c" <
 * "a;b!"), so all stacks under one frame are contiguous, which is what lets
 * the flamegraph renderer merge them in one pass. strcmp-like result. */
int pg_folded_stack_cmp(const char *a, const char *b);

/* The length of the common prefix of a[0..n) and b[0..n): a fast mismatch
 * search for code that walks sorted stacks. */
size_t pg_folded_prefix_len(const char *a, const char *b, size_t n);

#endif
