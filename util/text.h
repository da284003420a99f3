/* util/text.h — names are data: any bytes made safe for each output format.
 *
 * perfgate prints strings it did not choose: benchmark names (manifests, file
 * names), function names (binaries, stacks files), revision labels, result
 * documents from elsewhere, a child's stderr. None of them is trusted to be
 * valid UTF-8 or free of control characters. The rule is "escape on output":
 * in memory a name is the exact bytes it was given (so file names derived
 * from it and matching by name stay exact), and every writer passes it through
 * pg_text_escape() in the mode of its format. All modes decode with the same
 * strict UTF-8 decoder, and every mode turns a byte that is not UTF-8 into
 * U+FFFD, so a name reads the same in every output and in the store. Whatever
 * the bytes, every output is valid:
 *   JSON      valid UTF-8, specials escaped;
 *   XML       only characters XML 1.0 allows (U+FFFD for the rest);
 *   markdown  no markup, no control characters, valid UTF-8;
 *   terminal  no control character reaches the terminal: ESC prints as \x1b.
 * Whole documents printed by a library (cJSON) are made valid UTF-8 with
 * pg_text_utf8_repair().
 */
#ifndef PG_UTIL_TEXT_H
#define PG_UTIL_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PG_TEXT_INVALID (-1)

/* Decodes the UTF-8 sequence at s[0..n) (n >= 1): returns its length and sets
 * *cp to the code point, or returns 1 with *cp = PG_TEXT_INVALID when the
 * byte starts no valid sequence. Strict (RFC 3629): overlong forms,
 * surrogates (the CESU "\xed\xa0\x80") and values over U+10FFFF are invalid. */
size_t pg_text_utf8_decode(const char *s, size_t n, int32_t *cp);

/* Whether s[0..n) is valid UTF-8. */
int pg_text_utf8_valid(const char *s, size_t n);

/* s[0..n) with every invalid byte replaced by U+FFFD: a new NUL-terminated
 * string (its length in *outlen when not NULL), or NULL when out of memory. */
char *pg_text_utf8_repair(const char *s, size_t n, size_t *outlen);

/* The longest prefix of s of at most `max` bytes that cuts no UTF-8 sequence. */
size_t pg_text_prefix(const char *s, size_t max);

typedef enum {
    PG_TEXT_TERM,       /* a terminal or log: controls as \n \t \x1b, C1 and bidi
                           controls as \u009b, invalid bytes U+FFFD */
    PG_TEXT_JSON,       /* inside a JSON string: " \ and controls escaped
                           (also DEL, C1, U+2028/9), invalid bytes U+FFFD */
    PG_TEXT_XML,        /* XML 1.0 character data or attribute value: & < > " '
                           as entities, tab/LF/CR as &#9; &#10; &#13;, other
                           controls, U+FFFE/U+FFFF and invalid bytes U+FFFD */
    PG_TEXT_MARKDOWN,   /* a GitHub-flavoured markdown table cell or sentence:
                           | \ ` * _ [ ] # ~ backslash-escaped, & < > as
                           entities, line breaks as spaces, other controls as
                           the text \x1b, invalid bytes U+FFFD; a zero-width
                           space after @ # ! ~ % $ & before a name or number,
                           so no mention or reference (@user, #12, !12,
                           ~label) links */
} pg_text_mode;

/* Receives escaped text; runs of plain bytes come in one call. */
typedef void (*pg_text_sink)(void *ctx, const char *s, size_t n);

/* Writes s[0..n) escaped for `mode` through `put`. */
void pg_text_escape(pg_text_sink put, void *ctx, const char *s, size_t n, pg_text_mode mode);

/* The same to a stdio stream: s[0..n), or the string s (NULL prints nothing). */
void pg_text_fwrite(FILE *out, const char *s, size_t n, pg_text_mode mode);
void pg_text_fputs(FILE *out, const char *s, pg_text_mode mode);

/* The same into buf[len] (len >= 8), always NUL-terminated. What does not fit
 * is cut at a character boundary and marked with "..."; the result never ends
 * inside an escape. s NULL gives "". Returns buf, for printf arguments. */
char *pg_text_escape_buf(char *buf, size_t len, const char *s, pg_text_mode mode);

/* "perfgate: " + the message (printf-style) escaped for a terminal + "\n" on
 * stderr: for errors and notices, which quote names and file contents. */
void pg_text_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pg_text_vwarn(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
