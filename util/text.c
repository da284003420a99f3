/* util/text.c — see text.h. */
#include "util/text.h"

#include <stdlib.h>
#include <string.h>

static const char replacement[] = "\xef\xbf\xbd";   /* U+FFFD */

size_t pg_text_utf8_decode(const char *s, size_t n, int32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned c = u[0];
    size_t need;
    uint32_t min, v;
    if (c < 0x80) {
        *cp = (int32_t)c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf)
        need = 2, min = 0x80, v = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        need = 3, min = 0x800, v = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        need = 4, min = 0x10000, v = c & 0x07;
    else
        goto invalid;
    if (n < need)
        goto invalid;
    for (size_t i = 1; i < need; i++) {
        if ((u[i] & 0xc0) != 0x80)
            goto invalid;
        v = (v << 6) | (u[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        goto invalid;
    *cp = (int32_t)v;
    return need;
invalid:
    *cp = PG_TEXT_INVALID;
    return 1;
}

int pg_text_utf8_valid(const char *s, size_t n)
{
    const uint64_t high = 0x8080808080808080ull;
    for (size_t i = 0; i < n;) {
        /* ASCII, nearly all of what is checked (function names), 32 bytes at a time. */
        uint64_t w[4];
        if (i + sizeof w <= n && (memcpy(w, s + i, sizeof w), !((w[0] | w[1] | w[2] | w[3]) & high))) {
            i += sizeof w;
            continue;
        }
        int32_t cp;
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        i += pg_text_utf8_decode(s + i, n - i, &cp);
        if (cp == PG_TEXT_INVALID)
            return 0;
    }
    return 1;
}

char *pg_text_utf8_repair(const char *s, size_t n, size_t *outlen)
{
    char *out = malloc(3 * n + 1), *w = out;    /* each invalid byte becomes 3 */
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        int32_t cp = 0;
        size_t l = (unsigned char)s[i] < 0x80 ? 1 : pg_text_utf8_decode(s + i, n - i, &cp);
        if (cp == PG_TEXT_INVALID) {
            memcpy(w, replacement, 3);
            w += 3;
        } else {
            memcpy(w, s + i, l);
            w += l;
        }
        i += l;
    }
    *w = '\0';
    if (outlen)
        *outlen = (size_t)(w - out);
    return out;
}

size_t pg_text_prefix(const char *s, size_t max)
{
    size_t n = strnlen(s, max + 1);
    if (n <= max)
        return n;
    n = max;
    /* Back off continuation bytes to the start of the sequence being cut. */
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;
    return n;
}

static int is_bidi_control(int32_t cp)
{
    return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f;
}

/* What code point `cp` becomes in `mode`: NULL to copy it as it is, else
 * its escape (written into esc[16] when it is made here). */
static const char *escape_one(char esc[16], int32_t cp, pg_text_mode mode)
{
    switch (mode) {
    case PG_TEXT_TERM:
        if (cp == PG_TEXT_INVALID)
            return replacement;     /* as in every other output and the store */
        if (cp == '\n') return "\\n";
        if (cp == '\t') return "\\t";
        if (cp == '\r') return "\\r";
        if (cp < 0x20 || cp == 0x7f) {
            snprintf(esc, 16, "\\x%02x", (unsigned)cp);
            return esc;
        }
        if ((cp >= 0x80 && cp < 0xa0) || is_bidi_control(cp)) {
            snprintf(esc, 16, "\\u%04x", (unsigned)cp);
            return esc;
        }
        return NULL;
    case PG_TEXT_JSON:
        switch (cp) {
        case PG_TEXT_INVALID: return replacement;
        case '"': return "\\\"";
        case '\\': return "\\\\";
        case '\n': return "\\n";
        case '\t': return "\\t";
        case '\r': return "\\r";
        default:
            if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp == 0x2028 || cp == 0x2029) {
                snprintf(esc, 16, "\\u%04x", (unsigned)cp);
                return esc;
            }
            return NULL;
        }
    case PG_TEXT_XML:
        switch (cp) {
        case '&': return "&amp;";
        case '<': return "&lt;";
        case '>': return "&gt;";
        case '"': return "&quot;";
        case '\'': return "&#39;";
        case '\t': return "&#9;";
        case '\n': return "&#10;";
        case '\r': return "&#13;";
        default:
            if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0xfffe || cp == 0xffff)
                return replacement;    /* also PG_TEXT_INVALID */
            return NULL;
        }
    case PG_TEXT_MARKDOWN:
        switch (cp) {
        case PG_TEXT_INVALID: return replacement;
        case '&': return "&amp;";
        case '<': return "&lt;";
        case '>': return "&gt;";
        case '\n': case '\r': case '\t': return " ";
        case '|': case '\\': case '`': case '*': case '_': case '[': case ']': case '#': case '~':
            esc[0] = '\\', esc[1] = (char)cp, esc[2] = '\0';
            return esc;
        default:
            /* Shown as the text "\x1b": its backslash escaped for markdown. */
            if (cp < 0x20 || cp == 0x7f) {
                snprintf(esc, 16, "\\\\x%02x", (unsigned)cp);
                return esc;
            }
            if ((cp >= 0x80 && cp < 0xa0) || is_bidi_control(cp)) {
                snprintf(esc, 16, "\\\\u%04x", (unsigned)cp);
                return esc;
            }
            return NULL;
        }
    }
    return NULL;
}

/* Plain printable ASCII that no mode escapes: the fast path. */
static int plain(unsigned char c)
{
    /* Bit c set for 0x20..0x7e except " \\ & < > ' | ` * _ [ ] # ~ ! $ % @ . */
    static const uint64_t mask[2] = {0xaffffb0100000000ULL, 0x2ffffffe47fffffeULL};
    return c < 0x80 && (mask[c >> 6] >> (c & 63)) & 1;
}

/* A mention or reference (GitHub @user, #12; GitLab !12, ~label,
 * %milestone, $snippet, &epic) is found in the rendered text, after markdown's
 * escapes are undone: what keeps a name from pinging anyone or linking an
 * issue is an invisible zero-width space (U+200B) between the sigil and what
 * follows it. `buf` gets the sigil's escape and the space. */
static const char *unmention(char *buf, const char *s, size_t i, size_t n, pg_text_mode mode, const char *esc)
{
    static const char sigils[] = "@#!~%$&";
    unsigned char next = i + 1 < n ? (unsigned char)s[i + 1] : 0;
    if (mode != PG_TEXT_MARKDOWN || !strchr(sigils, s[i]) || !s[i] ||
        !(next == '_' || next == '"' || (next >= '0' && next <= '9') ||
          ((next | 0x20) >= 'a' && (next | 0x20) <= 'z')))
        return esc;
    snprintf(buf, 16, "%s\xe2\x80\x8b", esc ? esc : (char[]){s[i], 0});
    return buf;
}

void pg_text_escape(pg_text_sink put, void *ctx, const char *s, size_t n, pg_text_mode mode)
{
    size_t run = 0, i = 0;
    while (i < n) {
        if (plain((unsigned char)s[i])) {
            i++;
            continue;
        }
        int32_t cp;
        size_t l = pg_text_utf8_decode(s + i, n - i, &cp);
        char buf[16], sig[16];
        const char *esc = unmention(sig, s, i, n, mode, escape_one(buf, cp, mode));
        if (esc) {
            if (i > run)
                put(ctx, s + run, i - run);
            put(ctx, esc, strlen(esc));
            run = i + l;
        }
        i += l;
    }
    if (n > run)
        put(ctx, s + run, n - run);
}

static void put_file(void *ctx, const char *s, size_t n) { fwrite(s, 1, n, ctx); }

void pg_text_fwrite(FILE *out, const char *s, size_t n, pg_text_mode mode)
{
    pg_text_escape(put_file, out, s, n, mode);
}

void pg_text_fputs(FILE *out, const char *s, pg_text_mode mode)
{
    if (s)
        pg_text_escape(put_file, out, s, strlen(s), mode);
}

typedef struct bounded {
    char *buf;
    size_t len, n;
    int cut;
    uintptr_t src, srcend;  /* the text being escaped: pieces from it are runs */
} bounded;

/* Takes an escape whole or not at all; a run of the text itself may be cut,
 * at a character boundary. */
static void put_bounded(void *ctx, const char *s, size_t n)
{
    bounded *b = ctx;
    if (b->cut)
        return;
    if (b->n + n + 1 <= b->len) {
        memcpy(b->buf + b->n, s, n);
        b->n += n;
        return;
    }
    b->cut = 1;
    if ((uintptr_t)s < b->src || (uintptr_t)s >= b->srcend)
        return;
    size_t room = b->len - 1 - b->n, k = 0;
    while (k < n && k < room) {
        int32_t cp;
        size_t l = pg_text_utf8_decode(s + k, n - k, &cp);
        if (k + l > room)
            break;
        k += l;
    }
    memcpy(b->buf + b->n, s, k);
    b->n += k;
}

char *pg_text_escape_buf(char *buf, size_t len, const char *s, pg_text_mode mode)
{
    bounded b = {buf, len - 3, 0, 0, 0, 0};    /* room kept for "..." */
    if (s) {
        size_t n = strlen(s);
        b.src = (uintptr_t)s;
        b.srcend = b.src + n;
        pg_text_escape(put_bounded, &b, s, n, mode);
    }
    if (b.cut)
        memcpy(buf + b.n, "...", 3), b.n += 3;
    buf[b.n] = '\0';
    return buf;
}

void pg_text_vwarn(const char *fmt, va_list ap)
{
    char small[1024], *msg = small;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (msg = malloc((size_t)n + 1)) != NULL)
        vsnprintf(msg, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    if (!msg)
        msg = small;
    fputs("perfgate: ", stderr);
    pg_text_fputs(stderr, msg, PG_TEXT_TERM);
    fputc('\n', stderr);
    if (msg != small)
        free(msg);
}

void pg_text_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pg_text_vwarn(fmt, ap);
    va_end(ap);
}
