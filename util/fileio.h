/* util/fileio.h — whole-file reads and crash-safe writes. */
#ifndef PG_UTIL_FILEIO_H
#define PG_UTIL_FILEIO_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Reads all of `path` into a NUL-terminated malloc'd buffer. PG_ENOTFOUND when
 * it does not exist, PG_EIO otherwise; the message names the path. */
int pg_file_read(char **out, size_t *len, const char *path);

/* The same from an open descriptor (standard input: 0), read to its end;
 * `name` is what messages call it ("<stdin>"). */
int pg_fd_read(char **out, size_t *len, int fd, const char *name);

/* Which file a path names and which version of its bytes, as far as the
 * file system tells without reading them: a cache of what was read from a
 * file stays valid while its id does. A write or a utimensat() changes the
 * ctime, which a process cannot set back (short of the clock); a change
 * within the timestamp granularity of the one before may leave it as it
 * was, so a cache keeps no file whose ctime is that recent ("racy" git). */
typedef struct pg_file_id {
    dev_t dev;
    ino_t ino;
    off_t size;
    long long mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
} pg_file_id;

/* `path`'s id (stat(), links followed); -1 with errno when it cannot be had. */
int pg_file_id_of(pg_file_id *out, const char *path);
int pg_file_id_eq(const pg_file_id *a, const pg_file_id *b);

/* Writes `data` to `path` atomically: a temporary file in the same directory,
 * fsync, rename over `path`, fsync of the directory. A reader sees the old
 * file or the new one, never a part. On failure nothing is left behind. */
int pg_file_write_atomic(const char *path, const void *data, size_t len);

/* The same, without the two fsyncs: a reader still never sees a part, but
 * after a crash of the machine the file may be missing or empty. For what
 * is diagnostics, not results (a run's logs): the fsyncs were 4 to 8 ms of
 * every benchmark's measurement. */
int pg_file_write_atomic_nosync(const char *path, const void *data, size_t len);

/* A file written as a stream and published atomically: what a reader of
 * `path` sees is its old content or all of the new, never a part, however
 * long the writing takes (a report of 10^4 benchmarks, written as it is
 * made rather than buffered whole). */
typedef struct pg_atomic_file {
    FILE *f;                /* write here, between open and commit/abort */
    char tmp[4096];         /* the temporary file in path's directory */
    char path[4096];
} pg_atomic_file;

/* Creates the temporary file beside `path` and opens af->f on it. */
int pg_atomic_file_open(pg_atomic_file *af, const char *path);

/* Closes af->f and renames the temporary file over the path: with
 * `durable`, fsync of the file before and of the directory after. Any
 * write error, earlier or now, is PG_EIO and leaves the old file. */
int pg_atomic_file_commit(pg_atomic_file *af, int durable);

/* Closes af->f and removes the temporary file (after an error). */
void pg_atomic_file_abort(pg_atomic_file *af);

/* The directory part of `path` into `out` ("a/b/c.json" -> "a/b", "c.json" ->
 * ".", "/c" -> "/"), as dirname(1) says it. */
void pg_path_dirname(char *out, size_t len, const char *path);

/* `name` (any bytes: a benchmark's name) as one file name, for the files
 * derived from it (stacks, logs, flamegraphs), into out[PG_SAFE_NAME_SIZE]:
 *  - injective: distinct names give distinct file names, so no benchmark's
 *    file overwrites another's;
 *  - bounded: at most PG_SAFE_NAME_MAX bytes, so "<name>.diff-reverse.svg"
 *    and its ".tmp.XXXXXX" while being written stay within NAME_MAX (255);
 *  - harmless: only [A-Za-z0-9._~-], never hidden (no leading '.'), never empty.
 * A name that is already such a name of at most PG_SAFE_NAME_MAX bytes and has
 * no '~' is kept as it is ("sort-200k"). Any other is cleaned (other bytes
 * become '_'), cut to leave room, and marked with '~' and 12 hex digits of a
 * hash of its exact bytes ("a b" -> "a_b~3f2a9c1d8e07"); clean names have no
 * '~', so the two kinds never meet. */
#define PG_SAFE_NAME_MAX 120
#define PG_SAFE_NAME_SIZE (PG_SAFE_NAME_MAX + 1)
void pg_path_safe_name(char out[PG_SAFE_NAME_SIZE], const char *name);

/* A new private directory "$TMPDIR/<prefix>XXXXXX" (TMPDIR unset or empty:
 * /tmp) into `out`. PG_EIO naming where it could not be made. */
int pg_mkdtemp(char *out, size_t len, const char *prefix);

/* `rc`, or when the file system of `dir` is full (under 1 MiB or no inode
 * free), PG_ENOSPC saying so with `what` (the failure as it was said): the
 * write that failed may have been any of several, each with its own
 * message, and "no space" is the one the user can act on. */
int pg_file_no_room(int rc, const char *dir, const char *what);

/* rm -rf `path`, following no symbolic link; a missing `path` is no error. */
int pg_remove_tree(const char *path);

/* mkdir -p; PG_EIO naming the first directory that could not be made. */
int pg_mkdirs(const char *path);

/* write(2) to a pipe whose reader may be gone (a child that died): without
 * SIGPIPE, which would kill perfgate, and with a pending one taken. Returns
 * what write returned (-1 with errno EPIPE when the reader is gone). */
ssize_t pg_write_nosigpipe(int fd, const void *buf, size_t n);

#endif
