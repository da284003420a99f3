/* report/svg.h — a growable text buffer for writing SVG/XML, with escaping.
 *
 * Appends never fail one by one: an allocation failure marks the buffer, and
 * pg_svgbuf_finish() reports it once, so renderers need no check per call.
 * Everything that came from a profile (function names, titles) goes through
 * pg_svg_escape(): that is the one place that keeps a name from injecting
 * markup or script, and from making the document malformed.
 */
#ifndef PG_REPORT_SVG_H
#define PG_REPORT_SVG_H

#include <stddef.h>
#include <stdint.h>

typedef struct pg_svgbuf {
    char *p;        /* NUL-terminated while not failed */
    size_t len, cap;
    int failed;     /* an allocation failed; contents are incomplete */
} pg_svgbuf;

void pg_svgbuf_init(pg_svgbuf *b);
void pg_svgbuf_free(pg_svgbuf *b);

/* Hands the text to the caller (*out, malloc'd, NUL-terminated; *len without
 * the NUL) and empties `b`; PG_ENOMEM (and frees) if any append failed. */
int pg_svgbuf_finish(pg_svgbuf *b, char **out, size_t *len);

void pg_svg_put(pg_svgbuf *b, const char *s, size_t n);
void pg_svg_puts(pg_svgbuf *b, const char *s);
void pg_svg_printf(pg_svgbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends s[0..n) for use as XML character data or a quoted attribute value
 * (PG_TEXT_XML of util/text.h): & < > " ' become entities; characters XML
 * forbids and bytes that are not valid UTF-8 become U+FFFD. */
void pg_svg_escape(pg_svgbuf *b, const char *s, size_t n);

/* Fast number formatting, for the hundreds of thousands of attributes in a
 * big flamegraph. pg_svg_fixed appends v rounded to `decimals` (0..6) places. */
void pg_svg_u64(pg_svgbuf *b, uint64_t v);
void pg_svg_fixed(pg_svgbuf *b, double v, int decimals);

/* Writes v with thousands separators ("1,234,567") into buf (>= 32 bytes);
 * pg_fmt_signed_count rounds a double and always shows the sign ("+1,234",
 * "-5", "0"). Returns buf. */
char *pg_fmt_count(char *buf, uint64_t v);
char *pg_fmt_signed_count(char *buf, double v);

#endif
