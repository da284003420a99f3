/* util/error.h — perfgate's error convention (after libgit2).
 *
 * Every fallible function returns 0 on success or a negative PG_E* code, and on
 * failure leaves a one-line, human-readable message retrievable with
 * pg_error_last(). The message names what was wrong (the file, the key, the
 * event) so the CLI can print it as is: "perfgate: <message>". It stays one
 * line whatever it quotes: control characters in it are written as C escapes
 * ("\n", "\x1b").
 */
#ifndef PG_UTIL_ERROR_H
#define PG_UTIL_ERROR_H

enum {
    PG_OK = 0,
    PG_ERROR = -1,      /* generic failure */
    PG_EINVAL = -2,     /* bad input from the user: arguments, manifest, file contents */
    PG_ENOTFOUND = -3,  /* a named thing does not exist: event, revision, file, results */
    PG_EIO = -4,        /* reading or writing a file failed */
    PG_ENOTSUP = -5,    /* the machine cannot do it: no PMU, no valgrind, no permission */
    PG_EINTR = -6,      /* interrupted by the user (SIGINT) */
    PG_ENOMEM = -7,
    PG_ENOSPC = -8,     /* a file system is full: the machine's failure, never a benchmark's */
};

/* Sets the last error (printf-style) and returns `code`, so callers can write
 * `return pg_error_set(PG_EINVAL, "...")`. */
int pg_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like pg_error_set, appending ": strerror(errno)". */
int pg_error_errno(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefixes the current message with more context: "ctx: old message". */
int pg_error_wrap(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last message set on this thread, "" when none. Valid until the next set. */
const char *pg_error_last(void);
void pg_error_clear(void);

#endif
