/* report/flamegraph.c — folded stacks to a flamegraph SVG, plain and differential.
 *
 * One pass over the stacks, sorted frame by frame (pg_folded_stack_cmp), as
 * flamegraph.pl's flow(): frames shared with the previous stack stay open,
 * the rest close (and are kept if wide enough) and new ones open. Inclusive
 * counts come from running totals taken when a frame opens and closes, so
 * the pass is linear in the total length of the stacks.
 */
#include "report/flamegraph.h"
#include "util/array.h"
#include "report/svg.h"
#include "util/error.h"
#include "util/fileio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* flamegraph.pl's geometry. */
enum { FONT_SIZE = 12, FRAME_H = 16, XPAD = 10, YPAD_TOP = FONT_SIZE * 3, YPAD_BOTTOM = FONT_SIZE * 2 + 10,
       LINE_H = FONT_SIZE + 6 };
#define FONT_WIDTH 0.59   /* average Verdana glyph width per font size unit */
/* The title's font (#title in the CSS), and what "Reset Zoom" and "Search"
 * beside it take of its line on each side. */
enum { TITLE_FONT = 17, TITLE_SIDE = 80 };

typedef struct item {      /* one stack to draw, with its weights */
    const char *stack;
    uint64_t w;            /* what the width is made of */
    uint64_t before, after;/* diff: raw counts of each side (plain: both = w) */
} item;

typedef struct frame {
    const char *name;
    uint32_t namelen, depth;
    uint64_t x, w;                       /* in weight units */
    uint64_t incl_before, incl_after;    /* raw inclusive counts */
    uint64_t self_before, self_after;    /* raw self counts (stacks ending here) */
} frame;

typedef struct open_frame {
    const char *name;
    uint32_t namelen;
    uint32_t end;                        /* offset just past the name in its stack */
    uint64_t x0, b0, a0;                 /* running totals when opened */
    uint64_t self_b, self_a;
} open_frame;

typedef struct layout {
    frame *f;
    size_t n, cap;
    uint32_t maxdepth;
    uint64_t total;                      /* sum of w */
} layout;

void pg_flamegraph_opts_init(pg_flamegraph_opts *o)
{
    memset(o, 0, sizeof *o);
    o->unit = "samples";
    o->width = 1200;
    o->min_width_pct = 0.1;
    o->min_tint_pct = PG_FLAMEGRAPH_MIN_TINT_PCT;
    o->normalize = 1;
}

static int keep_frame(layout *L, const open_frame *of, uint32_t depth, uint64_t x, uint64_t b, uint64_t a,
                      double min_pct)
{
    uint64_t w = x - of->x0;
    if (w == 0 || (double)w * 100.0 < min_pct * (double)L->total)
        return 0;
    if (pg_array_grow(&L->f, &L->cap, L->n, sizeof *L->f, 1024) < 0)
        return pg_error_set(PG_ENOMEM, "out of memory drawing a flamegraph");
    L->f[L->n++] = (frame){of->name, of->namelen, depth, of->x0, w, b - of->b0, a - of->a0, of->self_b, of->self_a};
    if (depth > L->maxdepth)
        L->maxdepth = depth;
    return 0;
}

/* Builds the frames of `items` (sorted by pg_folded_stack_cmp). Only the
 * frames after the prefix shared with the previous stack are looked at. */
static int flow(layout *L, const item *items, size_t n, double min_pct)
{
    size_t ocap = 64;
    open_frame *open = malloc(ocap * sizeof *open);
    if (!open)
        return pg_error_set(PG_ENOMEM, "out of memory drawing a flamegraph");
    int rc = 0;
    uint64_t cx = 0, cb = 0, ca = 0;
    size_t nopen = 1, plen = 0;
    const char *prev = "";
    open[0] = (open_frame){"all", 3, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *cur = items[i].stack;
        size_t clen = strlen(cur);
        size_t m = pg_folded_prefix_len(prev, cur, plen < clen ? plen : clen);
        /* Open frame k (ending at open[k].end in prev) is shared when its bytes
         * match and cur has a frame boundary at the same place. */
        size_t same = 0;
        while (same + 1 < nopen) {
            size_t e = open[same + 1].end;
            if (e > m || (e == m && m != clen && cur[m] != ';'))
                break;
            same++;
        }
        while (nopen > same + 1 && rc == 0) {
            nopen--;
            rc = keep_frame(L, &open[nopen], (uint32_t)nopen, cx, cb, ca, min_pct);
        }
        size_t pos = same ? open[same].end + 1 : 0;
        while (pos <= clen && rc == 0) {
            const char *s = cur + pos, *e = memchr(s, ';', clen - pos);
            size_t l = e ? (size_t)(e - s) : clen - pos;
            if (pg_array_grow(&open, &ocap, nopen, sizeof *open, 64) < 0) {
                rc = pg_error_set(PG_ENOMEM, "out of memory drawing a flamegraph");
                break;
            }
            open[nopen++] = (open_frame){s, (uint32_t)l, (uint32_t)(pos + l), cx, cb, ca, 0, 0};
            pos += l + 1;
        }
        open[nopen - 1].self_b += items[i].before;
        open[nopen - 1].self_a += items[i].after;
        cx += items[i].w;
        cb += items[i].before;
        ca += items[i].after;
        prev = cur;
        plen = clen;
    }
    while (nopen > 0 && rc == 0) {
        nopen--;
        rc = keep_frame(L, &open[nopen], (uint32_t)nopen, cx, cb, ca, min_pct);
    }
    free(open);
    return rc;
}

/* 64-bit FNV-1a of the name: the colour of a function never depends on the
 * profile it is in, so the same function looks the same in every graph. */
static uint64_t name_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h;
}

static void hot_colour(pg_svgbuf *b, const frame *fr)
{
    uint64_t h = name_hash(fr->name, fr->namelen);
    /* flamegraph.pl's "hot" palette: r 205..255, g 0..230, b 0..55. */
    unsigned v1 = (unsigned)(h & 0xffff), v2 = (unsigned)((h >> 16) & 0xffff), v3 = (unsigned)((h >> 32) & 0xffff);
    unsigned r = 205 + 50 * v3 / 0xffff, g = 230 * v1 / 0xffff, bl = 55 * v2 / 0xffff;
    pg_svg_printf(b, "rgb(%u,%u,%u)", r, g, bl);
}

/* Red for growth, blue for shrinkage, white for none; flamegraph.pl's scale.
 * A change smaller than `floor` stays white: a change of a few instructions in
 * a graph whose largest change is a few more must not look like a hot spot.
 * Returns whether the colour is dark enough to need white text. */
static int diff_colour(pg_svgbuf *b, double delta, double maxabs, double floor)
{
    unsigned r = 255, g = 255, bl = 255;
    double m = 0;
    if (maxabs > 0 && delta != 0 && fabs(delta) >= floor) {
        m = fabs(delta) / maxabs;
        if (m > 1)
            m = 1;
        unsigned v = (unsigned)lround(210.0 * (1.0 - m));
        if (delta > 0)
            g = bl = v;
        else
            r = g = v;
    }
    pg_svg_printf(b, "rgb(%u,%u,%u)", r, g, bl);
    return delta < 0 ? m > 0.5 : m > 0.8;   /* black on pure blue is unreadable sooner */
}

/* The label drawn `px` pixels wide in a font of `font` px: the name, or as
 * much of it as fits followed by "..", or nothing under three characters. */
static size_t fit_label(const char *name, size_t len, double px, int font, int *dots)
{
    size_t chars = (size_t)(px / (font * FONT_WIDTH));
    *dots = 0;
    if (chars < 3)
        return 0;
    if (len <= chars)
        return len;
    size_t n = chars - 2;
    /* Do not cut a UTF-8 sequence in half. */
    while (n > 0 && ((unsigned char)name[n] & 0xc0) == 0x80)
        n--;
    *dots = 1;
    return n;
}

static void pct(pg_svgbuf *b, double part, double whole)
{
    pg_svg_fixed(b, whole > 0 ? part * 100.0 / whole : 0.0, 2);
    pg_svg_put(b, "%", 1);
}

static const char css[] =
    "text { font-family:Verdana, sans-serif; font-size:12px; fill:rgb(0,0,0); }\n"
    "#title { text-anchor:middle; font-size:17px; }\n"
    "#subtitle, #legend, #scale { text-anchor:middle; fill:rgb(100,100,100); }\n"
    "#search, #matched { text-anchor:end; }\n"
    "#search { opacity:0.3; cursor:pointer; }\n"
    "#search:hover, #search.show { opacity:1; }\n"
    "#unzoom { cursor:pointer; }\n"
    "#frames > g:hover > rect { stroke:black; stroke-width:0.5; }\n"
    "#frames > g { cursor:pointer; }\n"
    "#frames text { pointer-events:none; }\n"
    "text.w { fill:rgb(255,255,255); }\n"
    ".hide { display:none; }\n"
    ".parent { opacity:0.5; }\n";

/* Reads everything from the DOM; no profile data is ever evaluated. */
static const char script[] =
    "\"use strict\";\n"
    "var frames, all, total, fwidth, details, matched, searchbtn, unzoombtn, term = null;\n"
    "var GLYPH = 12 * 0.59, HIGHLIGHT = \"rgb(230,0,230)\";\n"
    "function init() {\n"
    "  frames = document.getElementById(\"frames\");\n"
    "  details = document.getElementById(\"details\");\n"
    "  matched = document.getElementById(\"matched\");\n"
    "  searchbtn = document.getElementById(\"search\");\n"
    "  unzoombtn = document.getElementById(\"unzoom\");\n"
    "  total = +frames.getAttribute(\"fg:total\");\n"
    "  fwidth = +frames.getAttribute(\"width\");\n"
    "  all = [];\n"
    "  for (var g = frames.firstElementChild; g; g = g.nextElementSibling) {\n"
    "    var r = g.querySelector(\"rect\");\n"
    "    g.pgName = g.querySelector(\"title\").textContent.split(\"\\n\")[0];\n"
    "    g.pgX = +g.getAttribute(\"fg:x\"); g.pgW = +g.getAttribute(\"fg:w\");\n"
    "    g.pgY = +r.getAttribute(\"y\"); g.pgFill = r.getAttribute(\"fill\");\n"
    "    all.push(g);\n"
    "  }\n"
    "  frames.addEventListener(\"click\", function (e) { var g = frameOf(e.target); if (g) zoom(g); });\n"
    "  frames.addEventListener(\"mouseover\", function (e) {\n"
    "    var g = frameOf(e.target);\n"
    "    if (g) details.textContent = g.querySelector(\"title\").textContent.replace(/\\n/g, \" \\u2014 \");\n"
    "  });\n"
    "  frames.addEventListener(\"mouseout\", function () { details.textContent = \" \"; });\n"
    "  unzoombtn.addEventListener(\"click\", unzoom);\n"
    "  searchbtn.addEventListener(\"click\", function () { if (term !== null) resetSearch(); else askSearch(); });\n"
    "  window.addEventListener(\"keydown\", function (e) {\n"
    "    if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) { e.preventDefault(); askSearch(); }\n"
    "    else if (e.keyCode === 27) { resetSearch(); unzoom(); }\n"
    "  });\n"
    "  var s = new URLSearchParams(location.search).get(\"s\");\n"
    "  if (s) search(s);\n"
    "}\n"
    "function frameOf(el) {\n"
    "  for (; el && el !== frames; el = el.parentNode) if (el.parentNode === frames) return el;\n"
    "  return null;\n"
    "}\n"
    "function fit(name, px) {\n"
    "  var n = Math.floor(px / GLYPH);\n"
    "  if (n < 3) return \"\";\n"
    "  return name.length <= n ? name : name.substring(0, n - 2) + \"..\";\n"
    "}\n"
    "function place(g, x, w) {\n"
    "  var r = g.querySelector(\"rect\"), t = g.querySelector(\"text\");\n"
    "  r.setAttribute(\"x\", x.toFixed(4) + \"%\"); r.setAttribute(\"width\", w.toFixed(4) + \"%\");\n"
    "  t.setAttribute(\"x\", (x + 300 / fwidth).toFixed(4) + \"%\");\n"
    "  t.textContent = fit(g.pgName, w / 100 * fwidth);\n"
    "  g.classList.remove(\"hide\");\n"
    "}\n"
    "function zoom(g) {\n"
    "  if (g.pgW >= total) { unzoom(); return; }\n"
    "  var x0 = g.pgX, x1 = g.pgX + g.pgW;\n"
    "  for (var i = 0; i < all.length; i++) {\n"
    "    var f = all[i], fx1 = f.pgX + f.pgW;\n"
    "    if (f.pgY > g.pgY && f.pgX <= x0 && fx1 >= x1) { place(f, 0, 100); f.classList.add(\"parent\"); }\n"
    "    else if (f.pgY <= g.pgY && f.pgX >= x0 && fx1 <= x1) {\n"
    "      place(f, (f.pgX - x0) * 100 / g.pgW, f.pgW * 100 / g.pgW); f.classList.remove(\"parent\");\n"
    "    } else f.classList.add(\"hide\");\n"
    "  }\n"
    "  unzoombtn.classList.remove(\"hide\");\n"
    "}\n"
    "function unzoom() {\n"
    "  for (var i = 0; i < all.length; i++) {\n"
    "    var f = all[i];\n"
    "    place(f, f.pgX * 100 / total, f.pgW * 100 / total); f.classList.remove(\"parent\");\n"
    "  }\n"
    "  unzoombtn.classList.add(\"hide\");\n"
    "}\n"
    "function askSearch() {\n"
    "  var s = prompt(\"Search for a function (regular expression, or plain text)\", term === null ? \"\" : term);\n"
    "  if (s) search(s); else if (s === \"\") resetSearch();\n"
    "}\n"
    "function search(s) {\n"
    "  var re = null, hits = [];\n"
    "  try { re = new RegExp(s); } catch (e) { re = null; }\n"
    "  for (var i = 0; i < all.length; i++) {\n"
    "    var f = all[i], hit = re ? re.test(f.pgName) : f.pgName.indexOf(s) >= 0;\n"
    "    f.querySelector(\"rect\").setAttribute(\"fill\", hit ? HIGHLIGHT : f.pgFill);\n"
    "    if (hit) hits.push(f);\n"
    "  }\n"
    "  // Matches nest (a match above a match lies inside it): count each sample once.\n"
    "  hits.sort(function (a, b) { return a.pgX - b.pgX || b.pgW - a.pgW; });\n"
    "  var sum = 0, end = -1;\n"
    "  for (var k = 0; k < hits.length; k++) if (hits[k].pgX >= end) { sum += hits[k].pgW; end = hits[k].pgX + hits[k].pgW; }\n"
    "  term = s;\n"
    "  searchbtn.classList.add(\"show\"); searchbtn.textContent = \"Reset Search\";\n"
    "  matched.textContent = \"Matched: \" + (total ? sum * 100 / total : 0).toFixed(2) + \"% (\" + hits.length + \" frames)\";\n"
    "  matched.classList.remove(\"hide\");\n"
    "}\n"
    "function resetSearch() {\n"
    "  for (var i = 0; i < all.length; i++) all[i].querySelector(\"rect\").setAttribute(\"fill\", all[i].pgFill);\n"
    "  term = null;\n"
    "  searchbtn.classList.remove(\"show\"); searchbtn.textContent = \"Search\";\n"
    "  matched.classList.add(\"hide\");\n"
    "}\n"
    "window.addEventListener(\"load\", init);\n";

typedef struct diffinfo {
    double scale;          /* BEFORE → AFTER's scale (1 when not normalizing) */
    uint64_t total_before, total_after;
    double maxabs;         /* largest |self change| among drawn frames */
    double floor;          /* smaller |self change| is not tinted (min_tint_pct of the total) */
    int reverse;
} diffinfo;

static void centred_line(pg_svgbuf *b, const char *id, int width, int y, const char *text)
{
    pg_svg_printf(b, "<text id=\"%s\" x=\"%d\" y=\"%d\">", id, width / 2, y);
    pg_svg_escape(b, text, strlen(text));
    pg_svg_puts(b, "</text>\n");
}

/* The title, between "Reset Zoom" and "Search" on its line: one longer than
 * fits there (a long command line) is cut with an ellipsis, and the whole of
 * it is the line's tooltip. */
static void title_line(pg_svgbuf *b, int width, int y, const char *text)
{
    int dots;
    size_t len = strlen(text), fits = fit_label(text, len, width - 2 * (XPAD + TITLE_SIDE), TITLE_FONT, &dots);
    if (!dots) {
        centred_line(b, "title", width, y, text);
        return;
    }
    pg_svg_printf(b, "<text id=\"title\" x=\"%d\" y=\"%d\"><title>", width / 2, y);
    pg_svg_escape(b, text, len);
    pg_svg_puts(b, "</title>");
    pg_svg_escape(b, text, fits);
    pg_svg_puts(b, "\xe2\x80\xa6</text>\n");
}

static void tooltip_plain(pg_svgbuf *b, const frame *fr, uint64_t total, const char *unit)
{
    char n[32];
    pg_svg_puts(b, pg_fmt_count(n, fr->w));
    pg_svg_put(b, " ", 1);
    pg_svg_escape(b, unit, strlen(unit));
    pg_svg_put(b, ", ", 2);
    pct(b, (double)fr->w, (double)total);
}

static void tooltip_diff(pg_svgbuf *b, const frame *fr, const diffinfo *d, const char *unit)
{
    char n[32];
    double before = (double)fr->incl_before * d->scale, after = (double)fr->incl_after;
    double change = after - before;
    pg_svg_puts(b, "after: ");
    pg_svg_puts(b, pg_fmt_count(n, fr->incl_after));
    pg_svg_put(b, " ", 1);
    pg_svg_escape(b, unit, strlen(unit));
    pg_svg_put(b, " (", 2);
    pct(b, (double)fr->incl_after, (double)d->total_after);
    pg_svg_puts(b, ")\nbefore: ");
    pg_svg_puts(b, pg_fmt_count(n, fr->incl_before));
    pg_svg_put(b, " (", 2);
    pct(b, (double)fr->incl_before, (double)d->total_before);
    pg_svg_puts(b, d->scale != 1.0 ? "; scaled: " : ")");
    if (d->scale != 1.0) {
        pg_svg_puts(b, pg_fmt_count(n, (uint64_t)llround(before)));
        pg_svg_put(b, ")", 1);
    }
    pg_svg_puts(b, "\nchange: ");
    pg_svg_puts(b, pg_fmt_signed_count(n, change));
    if (before > 0) {
        pg_svg_put(b, " (", 2);
        if (change > 0)
            pg_svg_put(b, "+", 1);
        pct(b, change, before);
        pg_svg_put(b, ")", 1);
    } else if (after > 0)
        pg_svg_puts(b, " (new)");
    pg_svg_puts(b, "; self: ");
    pg_svg_puts(b, pg_fmt_signed_count(n, (double)fr->self_after - (double)fr->self_before * d->scale));
}

static int render(char **out, size_t *outlen, layout *L, const pg_flamegraph_opts *o, const diffinfo *d)
{
    int width = o->width > 0 ? o->width : 1200;
    if (width < 100)
        width = 100;
    const char *unit = o->unit && *o->unit ? o->unit : "samples";
    const char *title = o->title ? o->title : d ? "Differential Flame Graph" : "Flame Graph";
    char legend[512] = "", scale[512] = "";
    if (d) {
        char n[32];
        char mx[32], fl[32];
        int l = snprintf(legend, sizeof legend, "widths: %s (%s %s)", d->reverse ? "before" : "after",
                         pg_fmt_count(n, d->reverse ? d->total_before : d->total_after), unit);
        if (d->scale != 1.0 && l > 0 && (size_t)l < sizeof legend)
            snprintf(legend + l, sizeof legend - (size_t)l, "; before scaled x%.4f to after's total", d->scale);
        snprintf(scale, sizeof scale,
                 "colour: change of self cost; red grew, blue shrank; full colour at \xc2\xb1%s %s (the largest change), "
                 "paler in proportion; white: less than %s (%g%% of the total)",
                 pg_fmt_count(mx, (uint64_t)llround(d->maxabs)), unit, pg_fmt_count(fl, (uint64_t)ceil(d->floor)), o->min_tint_pct);
    }
    int nlines = (o->subtitle && *o->subtitle) + 2 * (d != NULL);
    int top = YPAD_TOP + nlines * LINE_H;
    int height = (int)(L->maxdepth + 1) * FRAME_H + top + YPAD_BOTTOM;
    int fw = width - 2 * XPAD;

    pg_svgbuf sb, *b = &sb;
    pg_svgbuf_init(b);
    pg_svg_printf(b,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
                  "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                  "xmlns=\"http://www.w3.org/2000/svg\" xmlns:fg=\"urn:perfgate:flamegraph\">\n"
                  "<!-- Flame graph drawn by perfgate %s. Folded stack format and look after Brendan Gregg's "
                  "FlameGraph. Click a frame to zoom, Ctrl-F to search. -->\n",
                  width, height, width, height, PERFGATE_VERSION);
    pg_svg_printf(b, "<style type=\"text/css\">\n%s</style>\n<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
                  css, script);
    pg_svg_printf(b,
                  "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
                  "<stop stop-color=\"#eeeeee\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
                  "</linearGradient></defs>\n"
                  "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"url(#background)\"/>\n",
                  d ? "#e0e0ff" : "#eeeeb0");
    title_line(b, width, FONT_SIZE * 2, title);
    int y = FONT_SIZE * 2;
    if (o->subtitle && *o->subtitle)
        centred_line(b, "subtitle", width, y += LINE_H, o->subtitle);
    if (d) {
        centred_line(b, "legend", width, y += LINE_H, legend);
        centred_line(b, "scale", width, y += LINE_H, scale);
    }
    pg_svg_printf(b, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n", XPAD, FONT_SIZE * 2);
    pg_svg_printf(b, "<text id=\"search\" x=\"%d\" y=\"%d\">Search</text>\n", width - XPAD, FONT_SIZE * 2);
    pg_svg_printf(b, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", XPAD, height - FONT_SIZE);
    pg_svg_printf(b, "<text id=\"matched\" class=\"hide\" x=\"%d\" y=\"%d\"> </text>\n", width - XPAD, height - FONT_SIZE);
    pg_svg_printf(b, "<svg id=\"frames\" x=\"%d\" width=\"%d\" fg:total=\"", XPAD, fw);
    pg_svg_u64(b, L->total);
    pg_svg_puts(b, "\">\n");

    double total = (double)L->total;
    int bottom = height - YPAD_BOTTOM;
    for (size_t i = 0; i < L->n; i++) {
        const frame *fr = &L->f[i];
        double xp = (double)fr->x * 100.0 / total, wp = (double)fr->w * 100.0 / total;
        int fy = bottom - (int)(fr->depth + 1) * FRAME_H + 1;
        pg_svg_puts(b, "<g fg:x=\"");
        pg_svg_u64(b, fr->x);
        pg_svg_puts(b, "\" fg:w=\"");
        pg_svg_u64(b, fr->w);
        pg_svg_puts(b, "\"><title>");
        pg_svg_escape(b, fr->name, fr->namelen);
        pg_svg_put(b, "\n", 1);
        if (d)
            tooltip_diff(b, fr, d, unit);
        else
            tooltip_plain(b, fr, L->total, unit);
        pg_svg_puts(b, "</title><rect x=\"");
        pg_svg_fixed(b, xp, 4);
        pg_svg_puts(b, "%\" y=\"");
        pg_svg_u64(b, (uint64_t)fy);
        pg_svg_puts(b, "\" width=\"");
        pg_svg_fixed(b, wp, 4);
        pg_svg_printf(b, "%%\" height=\"%d\" fill=\"", FRAME_H - 1);
        int dark = 0;
        if (d)
            dark = diff_colour(b, (double)fr->self_after - (double)fr->self_before * d->scale, d->maxabs, d->floor);
        else
            hot_colour(b, fr);
        pg_svg_puts(b, dark ? "\"/><text class=\"w\" x=\"" : "\"/><text x=\"");
        pg_svg_fixed(b, xp + 300.0 / fw, 4);
        pg_svg_puts(b, "%\" y=\"");
        pg_svg_fixed(b, fy + 10.5, 1);
        pg_svg_puts(b, "\">");
        int dots;
        size_t l = fit_label(fr->name, fr->namelen, wp / 100.0 * fw, FONT_SIZE, &dots);
        pg_svg_escape(b, fr->name, l);
        if (dots)
            pg_svg_put(b, "..", 2);
        pg_svg_puts(b, "</text></g>\n");
    }
    pg_svg_puts(b, "</svg>\n</svg>\n");
    return pg_svgbuf_finish(b, out, outlen);
}

int pg_flamegraph_render(char **out, size_t *len, pg_folded *f, const pg_flamegraph_opts *o)
{
    pg_flamegraph_opts def;
    if (!o) {
        pg_flamegraph_opts_init(&def);
        o = &def;
    }
    size_t n = pg_folded_count(f);
    layout L = {.total = pg_folded_total(f)};
    if (L.total == 0)
        return pg_error_set(PG_EINVAL, "no samples to draw (the profile is empty)");
    const pg_folded_entry *e = pg_folded_entries(f);
    item *items = malloc(n * sizeof *items);
    if (!e || !items) {
        free(items);
        return pg_error_set(PG_ENOMEM, "out of memory drawing a flamegraph");
    }
    for (size_t i = 0; i < n; i++)
        items[i] = (item){e[i].stack, e[i].count, e[i].count, e[i].count};
    int rc = flow(&L, items, n, o->min_width_pct);
    free(items);
    if (rc == 0)
        rc = render(out, len, &L, o, NULL);
    free(L.f);
    return rc;
}

int pg_flamegraph_render_diff(char **out, size_t *len, pg_folded *before, pg_folded *after,
                              const pg_flamegraph_opts *o)
{
    pg_flamegraph_opts def;
    if (!o) {
        pg_flamegraph_opts_init(&def);
        o = &def;
    }
    diffinfo d = {.scale = 1.0, .total_before = pg_folded_total(before), .total_after = pg_folded_total(after),
                  .reverse = o->reverse};
    layout L = {.total = o->reverse ? d.total_before : d.total_after};
    if (L.total == 0)
        return pg_error_set(PG_EINVAL, "no samples to draw: the %s profile is empty",
                            o->reverse ? "before" : "after");
    if (o->normalize && d.total_before > 0 && d.total_after > 0)
        d.scale = (double)d.total_after / (double)d.total_before;
    size_t nb = pg_folded_count(before), na = pg_folded_count(after);
    const pg_folded_entry *eb = pg_folded_entries(before), *ea = pg_folded_entries(after);
    item *items = malloc((nb + na + 1) * sizeof *items);
    if ((nb && !eb) || (na && !ea) || !items) {
        free(items);
        return pg_error_set(PG_ENOMEM, "out of memory drawing a flamegraph");
    }
    /* Merge the two sorted lists; a stack on one side only has 0 on the other. */
    size_t i = 0, j = 0, n = 0;
    while (i < nb || j < na) {
        int c = i == nb ? 1 : j == na ? -1 : pg_folded_stack_cmp(eb[i].stack, ea[j].stack);
        item it = {c <= 0 ? eb[i].stack : ea[j].stack, 0, c <= 0 ? eb[i].count : 0, c >= 0 ? ea[j].count : 0};
        if (c <= 0)
            i++;
        if (c >= 0)
            j++;
        it.w = o->reverse ? it.before : it.after;
        items[n++] = it;
    }
    int rc = flow(&L, items, n, o->min_width_pct);
    free(items);
    for (size_t k = 0; k < L.n; k++) {
        double delta = fabs((double)L.f[k].self_after - (double)L.f[k].self_before * d.scale);
        if (delta > d.maxabs)
            d.maxabs = delta;
    }
    d.floor = o->min_tint_pct > 0 ? o->min_tint_pct / 100.0 * (double)L.total : 0;
    if (rc == 0)
        rc = render(out, len, &L, o, &d);
    free(L.f);
    return rc;
}

static int write_svg(const char *path, char *svg, size_t len, int rc)
{
    if (rc < 0)
        return rc;
    rc = pg_file_write_atomic(path, svg, len);
    free(svg);
    return rc;
}

int pg_flamegraph_write_file(const char *path, pg_folded *f, const pg_flamegraph_opts *o)
{
    char *svg = NULL;
    size_t len = 0;
    int rc = pg_flamegraph_render(&svg, &len, f, o);
    return write_svg(path, svg, len, rc);
}

int pg_flamegraph_write_diff_file(const char *path, pg_folded *before, pg_folded *after,
                                  const pg_flamegraph_opts *o)
{
    char *svg = NULL;
    size_t len = 0;
    int rc = pg_flamegraph_render_diff(&svg, &len, before, after, o);
    return write_svg(path, svg, len, rc);
}
