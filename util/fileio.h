/* util/fileio.h — whole-file reads and crash-safe writes. */
#ifndef PG_UTIL_FILEIO_H
#define PG_UTIL_FILEIO_H

#include <stddef.h>

/* Reads all of `path` into a NUL-terminated malloc'd buffer. PG_ENOTFOUND when
 * it does not exist, PG_EIO otherwise; the message names the path. */
int pg_file_read(char **out, size_t *len, const char *path);

/* Writes `data` to `path` atomically: a temporary file in the same directory,
 * fsync, rename over `path`, fsync of the directory. A reader sees the old
 * file or the new one, never a part. On failure nothing is left behind. */
int pg_file_write_atomic(const char *path, const void *data, size_t len);

/* The directory part of `path` into `out` ("a/b/c.json" -> "a/b", "c.json" ->
 * ".", "/c" -> "/"), as dirname(1) says it. */
void pg_path_dirname(char *out, size_t len, const char *path);

/* mkdir -p; PG_EIO naming the first directory that could not be made. */
int pg_mkdirs(const char *path);

#endif
