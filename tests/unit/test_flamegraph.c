/* Flamegraph SVGs: widths proportional to counts, tooltips, escaping of
 * hostile names, min-width pruning, differential colours and tooltips, and
 * the per-function self-cost delta table. */
#include "report/flamegraph.h"
#include "report/funcdelta.h"
#include "tests/check.h"
#include "util/text.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/folded.h"

#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

static pg_folded *folded(const char *text)
{
    pg_folded *f;
    pg_folded_new(&f);
    if (pg_folded_parse(f, text, strlen(text), "test") < 0)
        fprintf(stderr, "parse: %s\n", pg_error_last());
    return f;
}

/* The frame group whose tooltip starts with `name` (escaped as in the SVG). */
static const char *frame(const char *svg, const char *name)
{
    char key[512];
    snprintf(key, sizeof key, "<title>%s\n", name);
    return strstr(svg, key);
}

/* Value of attribute `attr` of the first `tag` inside the frame `name`, or "". */
static const char *attr(const char *svg, const char *name, const char *tag, const char *attrname)
{
    static char val[256];
    val[0] = '\0';
    const char *g = frame(svg, name);
    if (!g)
        return val;
    const char *end = strstr(g, "</g>");
    char key[64];
    snprintf(key, sizeof key, "<%s ", tag);
    const char *t = strstr(g, key);
    if (!t || t > end)
        return val;
    snprintf(key, sizeof key, " %s=\"", attrname);
    const char *a = strstr(t, key);
    if (!a || a > end)
        return val;
    a += strlen(key);
    size_t n = strcspn(a, "\"");
    snprintf(val, sizeof val, "%.*s", (int)n, a);
    return val;
}

/* A plain loop, not strstr from each hit: sanitizers measure the whole rest
 * of the haystack on every strstr call, which is quadratic on a 10 MB SVG. */
static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0, l = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (*p == *needle && strncmp(p, needle, l) == 0)
            n++;
    return n;
}

static char *render(pg_folded *f, const pg_flamegraph_opts *o)
{
    char *svg = NULL;
    size_t len = 0;
    int rc = pg_flamegraph_render(&svg, &len, f, o);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0)
        CHECK_EQ_INT(strlen(svg), len);
    return svg;
}

static void widths(void)
{
    pg_folded *f = folded("main;parse;hash 30\nmain;parse 20\nmain;sort;compare 25\nmain;sort 25\n");
    pg_flamegraph_opts o;
    pg_flamegraph_opts_init(&o);
    o.title = "Known profile";
    o.subtitle = "made by a test";
    char *svg = render(f, &o);
    CHECK_CONTAINS(svg, "<?xml version=\"1.0\"");
    CHECK_CONTAINS(svg, ">Known profile</text>");
    CHECK_CONTAINS(svg, ">made by a test</text>");
    CHECK_STR(attr(svg, "all", "rect", "width"), "100.0000%");
    CHECK_STR(attr(svg, "main", "rect", "width"), "100.0000%");
    CHECK_STR(attr(svg, "parse", "rect", "width"), "50.0000%");     /* half the samples, half the width */
    CHECK_STR(attr(svg, "sort", "rect", "width"), "50.0000%");
    CHECK_STR(attr(svg, "sort", "rect", "x"), "50.0000%");
    CHECK_STR(attr(svg, "hash", "rect", "width"), "30.0000%");
    CHECK_STR(attr(svg, "compare", "rect", "width"), "25.0000%");
    CHECK_STR(attr(svg, "compare", "rect", "x"), "75.0000%");   /* after sort's own 25 */
    /* Root at the bottom: deeper frames are higher up (smaller y), 16 px apart. */
    int yall = atoi(attr(svg, "all", "rect", "y")), ymain = atoi(attr(svg, "main", "rect", "y"));
    int yhash = atoi(attr(svg, "hash", "rect", "y"));
    CHECK_EQ_INT(yall - ymain, 16);
    CHECK_EQ_INT(ymain - yhash, 32);
    CHECK_STR(attr(svg, "hash", "rect", "height"), "15");
    /* Tooltips: counts and percentages; the unit is configurable. */
    CHECK_CONTAINS(svg, "<title>parse\n50 samples, 50.00%</title>");
    CHECK_CONTAINS(svg, "<title>all\n100 samples, 100.00%</title>");
    /* One frame per distinct (position, name): parse and sort merged. */
    CHECK_EQ_INT(count_of(svg, "<g "), 6);
    /* Stable colour: the same name gets the same colour in another profile. */
    char colour[64];
    snprintf(colour, sizeof colour, "%s", attr(svg, "hash", "rect", "fill"));
    CHECK(strncmp(colour, "rgb(", 4) == 0);
    pg_folded *g = folded("other;deeper;hash 7\nx 100\n");
    o.unit = "instructions";
    char *svg2 = render(g, &o);
    CHECK_STR(attr(svg2, "hash", "rect", "fill"), colour);
    CHECK_CONTAINS(svg2, "<title>hash\n7 instructions, 6.54%</title>");
    /* Self-contained: no external references. */
    CHECK(strstr(svg, "href") == NULL);
    CHECK(strstr(svg, "http://") == NULL || count_of(svg, "http://") == 1);   /* only the xmlns */
    CHECK(strstr(svg, "https://") == NULL);
    free(svg);
    free(svg2);
    pg_folded_free(f);
    pg_folded_free(g);
}

static void labels(void)
{
    pg_folded *f = folded("main;a_function_with_a_rather_long_name_indeed 10\nmain;short 990\n");
    pg_flamegraph_opts o;
    pg_flamegraph_opts_init(&o);
    char *svg = render(f, &o);
    /* 1% of 1180 px = 11.8 px: under three glyphs (7.08 px each), no label. */
    const char *g = frame(svg, "a_function_with_a_rather_long_name_indeed");
    CHECK(g && strstr(g, "\"></text></g>") && strstr(g, "\"></text></g>") < strstr(g, "</g>") + 1);
    CHECK_CONTAINS(svg, ">short</text>");
    free(svg);
    pg_folded_free(f);
    f = folded("main;a_function_with_a_rather_long_name_indeed 10\nmain;short 90\n");
    svg = render(f, &o);
    /* 10% of 1180 px = 118 px: 16 glyphs, 14 of the name and "..". */
    CHECK_CONTAINS(svg, ">a_function_wit..</text>");
    free(svg);
    pg_folded_free(f);
}

static void escaping(void)
{
    pg_folded *f = folded("main;<script>alert(1)</script>&x 5\n"
                          "main;\"quoted\" 'single' 5\n"
                          "main;bad\x01\xff\xc3 3\n"
                          "main;caf\xc3\xa9 2\n");
    pg_flamegraph_opts o;
    pg_flamegraph_opts_init(&o);
    o.title = "<b>title</b> & \"more\"";
    char *svg = render(f, &o);
    CHECK(strstr(svg, "<script>alert") == NULL);
    CHECK(strstr(svg, "</script>&x") == NULL);
    CHECK_EQ_INT(count_of(svg, "<script"), 1);       /* ours, and no other */
    CHECK_CONTAINS(svg, "<title>&lt;script&gt;alert(1)&lt;/script&gt;&amp;x\n5 samples, 33.33%</title>");
    CHECK_CONTAINS(svg, ">&lt;script&gt;alert(1)&lt;/script&gt;&amp;x</text>");
    CHECK_CONTAINS(svg, "<title>&quot;quoted&quot; &#39;single&#39;\n");
    CHECK_CONTAINS(svg, ">&lt;b&gt;title&lt;/b&gt; &amp; &quot;more&quot;</text>");
    /* Control bytes and invalid UTF-8 would make the XML unreadable. */
    CHECK_CONTAINS(svg, "<title>bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n");
    CHECK_CONTAINS(svg, "<title>caf\xc3\xa9\n");
    free(svg);
    pg_folded_free(f);
}

static void pruning(void)
{
    pg_folded *f = folded("main;big;deep 9990\nmain;tiny;tinier 9\nmain;small 1\n");
    pg_flamegraph_opts o;
    pg_flamegraph_opts_init(&o);          /* 0.1% */
    char *svg = render(f, &o);
    CHECK(frame(svg, "big") != NULL);
    CHECK(frame(svg, "tiny") == NULL);    /* 0.09% */
    CHECK(frame(svg, "tinier") == NULL);
    CHECK(frame(svg, "small") == NULL);
    CHECK_EQ_INT(count_of(svg, "<g "), 4);
    free(svg);
    o.min_width_pct = 0.05;
    svg = render(f, &o);
    CHECK(frame(svg, "tiny") != NULL && frame(svg, "tinier") != NULL && frame(svg, "small") == NULL);
    free(svg);
    o.min_width_pct = 0;
    svg = render(f, &o);
    CHECK(frame(svg, "small") != NULL);
    CHECK_EQ_INT(count_of(svg, "<g "), 7);
    free(svg);
    /* The image is only as tall as the frames drawn: a deep tower that is
     * pruned does not add height. */
    pg_folded *g = folded("main 1000\nmain;a;b;c;d;e;f;g;h;i;j;k;l;m;n;o;p 1\n");
    o.min_width_pct = 0.1;
    svg = render(g, &o);
    CHECK_CONTAINS(svg, "height=\"102\"");   /* 2 rows of 16 px, 36 px above, 34 below */
    free(svg);
    pg_folded_free(f);
    pg_folded_free(g);
}

static char *render_diff(pg_folded *b, pg_folded *a, const pg_flamegraph_opts *o)
{
    char *svg = NULL;
    size_t len = 0;
    CHECK_EQ_INT(pg_flamegraph_render_diff(&svg, &len, b, a, o), 0);
    return svg;
}

static void diff(void)
{
    pg_folded *b2 = folded("main;grow 10\nmain;shrink 30\nmain;same 20\nmain;vanished 6\n");
    pg_folded *after = folded("main;grow 30\nmain;shrink 10\nmain;same 20\nmain;fresh 6\n");
    pg_flamegraph_opts o;
    pg_flamegraph_opts_init(&o);
    /* Equal totals (66): nothing to scale, exact counts in the tooltips. */
    char *svg = render_diff(b2, after, &o);
    CHECK_CONTAINS(svg, ">Differential Flame Graph</text>");
    CHECK_STR(attr(svg, "grow", "rect", "fill"), "rgb(255,0,0)");     /* the largest change: full red */
    CHECK_STR(attr(svg, "shrink", "rect", "fill"), "rgb(0,0,255)");   /* and full blue */
    CHECK_STR(attr(svg, "same", "rect", "fill"), "rgb(255,255,255)");
    CHECK_STR(attr(svg, "shrink", "text", "class"), "w");   /* white text on dark blue */
    CHECK_STR(attr(svg, "same", "text", "class"), "");
    /* fresh grew by 6 of a largest 20: 210 * (1 - 6/20) = 147. */
    CHECK_STR(attr(svg, "fresh", "rect", "fill"), "rgb(255,147,147)");
    /* Widths from AFTER. */
    CHECK_STR(attr(svg, "grow", "rect", "width"), "45.4545%");
    CHECK_CONTAINS(svg, "<title>grow\nafter: 30 samples (45.45%)\nbefore: 10 (15.15%)\nchange: +20 (+200.00%); self: +20</title>");
    CHECK_CONTAINS(svg, "<title>fresh\nafter: 6 samples (9.09%)\nbefore: 0 (0.00%)\nchange: +6 (new); self: +6</title>");
    CHECK_CONTAINS(svg, "<title>main\nafter: 66 samples (100.00%)\nbefore: 66 (100.00%)\nchange: 0 (0.00%); self: 0</title>");
    CHECK(frame(svg, "vanished") == NULL);
    free(svg);

    /* The reverse view: widths from BEFORE, so vanished code shows; still
     * red = more in AFTER, so what vanished is blue. */
    o.reverse = 1;
    o.normalize = 0;
    svg = render_diff(b2, after, &o);
    CHECK(frame(svg, "vanished") != NULL);
    CHECK(frame(svg, "fresh") == NULL);
    CHECK_STR(attr(svg, "vanished", "rect", "width"), "9.0909%");
    CHECK(strncmp(attr(svg, "vanished", "rect", "fill"), "rgb(147,147,255)", 16) == 0);
    CHECK_STR(attr(svg, "grow", "rect", "fill"), "rgb(255,0,0)");
    CHECK_CONTAINS(svg, "widths: before (66 samples)");
    free(svg);

    /* Normalization: BEFORE twice as long but the same shape is all white;
     * raw, everything shrank. */
    pg_folded *big = folded("main;a 40\nmain;b 20\n"), *small = folded("main;a 20\nmain;b 10\n");
    o.reverse = 0;
    o.normalize = 1;
    svg = render_diff(big, small, &o);
    CHECK_STR(attr(svg, "a", "rect", "fill"), "rgb(255,255,255)");
    CHECK_STR(attr(svg, "b", "rect", "fill"), "rgb(255,255,255)");
    CHECK_CONTAINS(svg, "before scaled x0.5000 to after&#39;s total");
    CHECK_CONTAINS(svg, "<title>a\nafter: 20 samples (66.67%)\nbefore: 40 (66.67%; scaled: 20)\nchange: 0 (0.00%); self: 0</title>");
    free(svg);
    o.normalize = 0;
    svg = render_diff(big, small, &o);
    CHECK_STR(attr(svg, "a", "rect", "fill"), "rgb(0,0,255)");
    CHECK_STR(attr(svg, "b", "rect", "fill"), "rgb(105,105,255)");
    free(svg);

    /* A change under 0.1% of the total stays white however small the largest
     * change is; the legend gives the scale and the cut-off. */
    pg_folded *t0 = folded("main;hot 100000\nmain;tiny 1000\nmain;cold 1000\n");
    pg_folded *t1 = folded("main;hot 100300\nmain;tiny 1050\nmain;cold 1000\n");
    svg = render_diff(t0, t1, &o);
    CHECK_STR(attr(svg, "hot", "rect", "fill"), "rgb(255,0,0)");          /* +300 >= 101.35 */
    CHECK_STR(attr(svg, "tiny", "rect", "fill"), "rgb(255,255,255)");     /* +50 < 0.1% of 102,350 */
    CHECK_CONTAINS(svg, "full colour at \xc2\xb1" "300 samples (the largest change), paler in proportion; "
                        "white: less than 103 (0.1% of the total)</text>");
    free(svg);
    o.min_tint_pct = 0;     /* every change tinted */
    svg = render_diff(t0, t1, &o);
    CHECK(strcmp(attr(svg, "tiny", "rect", "fill"), "rgb(255,255,255)") != 0);
    free(svg);
    o.min_tint_pct = PG_FLAMEGRAPH_MIN_TINT_PCT;
    pg_folded_free(t0);
    pg_folded_free(t1);

    /* An empty side that would give the widths is an error; the other is not. */
    pg_folded *empty = folded("");
    char *out = NULL;
    size_t len;
    CHECK_EQ_INT(pg_flamegraph_render_diff(&out, &len, big, empty, &o), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "the after profile is empty");
    svg = render_diff(empty, small, &o);
    CHECK_STR(attr(svg, "a", "rect", "fill"), "rgb(255,0,0)");
    free(svg);
    CHECK_EQ_INT(pg_flamegraph_render(&out, &len, empty, NULL), PG_EINVAL);
    CHECK(out == NULL);
    pg_folded_free(b2);
    pg_folded_free(after);
    pg_folded_free(big);
    pg_folded_free(small);
    pg_folded_free(empty);
}

static void files(void)
{
    char dir[PATH_MAX];
    REQUIRE(pg_mkdtemp(dir, sizeof dir, "pg-fg-") == 0);
    char path[PATH_MAX + 64], bad[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/out.svg", dir);
    snprintf(bad, sizeof bad, "%s/no/such/dir/out.svg", dir);
    pg_folded *f = folded("main 1\n");
    CHECK_EQ_INT(pg_flamegraph_write_file(path, f, NULL), 0);
    CHECK(access(path, F_OK) == 0);
    CHECK(pg_flamegraph_write_file(bad, f, NULL) < 0);
    CHECK_CONTAINS(pg_error_last(), bad);
    CHECK_EQ_INT(pg_flamegraph_write_diff_file(path, f, f, NULL), 0);
    unlink(path);
    rmdir(dir);
    pg_folded_free(f);
}

static const pg_funcdelta_row *row(const pg_funcdelta *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->rows[i].name, name))
            return &t->rows[i];
    return NULL;
}

static void funcdelta(void)
{
    /* hash is a leaf in two places: self costs add up across callers. */
    pg_folded *before = folded("main;parse;hash 100\nmain;lookup;hash 50\nmain;sort 300\nmain 10\nmain;gone 40\n");
    pg_folded *after = folded("main;parse;hash 130\nmain;lookup;hash 53\nmain;sort 290\nmain 10\nmain;fresh 7\n");
    pg_funcdelta t;
    CHECK_EQ_INT(pg_funcdelta_compute(&t, before, after, 0, 0), 0);
    CHECK_EQ_INT(t.normalized, 0);
    CHECK_EQ_INT(t.total_before, 500);
    CHECK_EQ_INT(t.total_after, 490);
    CHECK_EQ_INT(t.nfuncs, 5);
    CHECK_EQ_INT(t.n, 5);
    /* Sorted by |delta|: gone -40, hash +33, sort -10, fresh +7, main 0. */
    CHECK_STR(t.rows[0].name, "gone");
    CHECK_STR(t.rows[1].name, "hash");
    CHECK_STR(t.rows[2].name, "sort");
    CHECK_STR(t.rows[3].name, "fresh");
    CHECK_STR(t.rows[4].name, "main");
    const pg_funcdelta_row *h = row(&t, "hash");
    CHECK_EQ_INT(h->before, 150);
    CHECK_EQ_INT(h->after, 183);
    CHECK_NEAR(h->delta, 33, 0);
    CHECK_NEAR(h->delta_pct, 22, 1e-9);
    CHECK_NEAR(h->share_before, 30, 1e-9);
    CHECK_NEAR(h->share_after, 183 * 100.0 / 490, 1e-9);
    CHECK_NEAR(row(&t, "gone")->delta_pct, -100, 0);
    CHECK(isinf(row(&t, "fresh")->delta_pct) && row(&t, "fresh")->before == 0);
    CHECK_NEAR(row(&t, "main")->delta, 0, 0);
    pg_funcdelta_free(&t);

    /* Normalized and truncated. */
    CHECK_EQ_INT(pg_funcdelta_compute(&t, before, after, 2, 1), 0);
    CHECK_EQ_INT(t.normalized, 1);
    CHECK_EQ_INT(t.n, 2);
    CHECK_EQ_INT(t.nfuncs, 5);
    CHECK_NEAR(t.scale, 0.98, 1e-12);
    CHECK_STR(t.rows[0].name, "gone");
    CHECK_NEAR(t.rows[0].before_scaled, 39.2, 1e-9);
    CHECK_NEAR(t.rows[0].delta, -39.2, 1e-9);
    CHECK_STR(t.rows[1].name, "hash");
    CHECK_NEAR(t.rows[1].delta, 183 - 147.0, 1e-9);
    pg_funcdelta_free(&t);
    pg_folded_free(before);
    pg_folded_free(after);
}

/* Big profiles render in one pass; this checks it is correct at size (the
 * speed is measured by bench/tools/flamegraph-render.sh, not asserted here). */
static void large(void)
{
    pg_folded *f;
    pg_folded_new(&f);
    char stack[128];
    for (int i = 0; i < 50000; i++) {
        snprintf(stack, sizeof stack, "main;w%d;x%d;leaf%d", i % 10, i % 100, i);
        pg_folded_add(f, stack, 1);
    }
    pg_flamegraph_opts o;
    pg_flamegraph_opts_init(&o);
    char *svg = render(f, &o);
    CHECK_STR(attr(svg, "w3", "rect", "width"), "10.0000%");
    CHECK(frame(svg, "leaf7") == NULL);
    CHECK_EQ_INT(count_of(svg, "<g "), 1 + 1 + 10 + 100);
    free(svg);
    o.min_width_pct = 0;
    svg = render(f, &o);
    CHECK_EQ_INT(count_of(svg, "<g "), 1 + 1 + 10 + 100 + 50000);
    free(svg);
    pg_folded_free(f);
}

/* A title longer than its line (a long command line, `record`'s default) is
 * cut with an ellipsis, never across a UTF-8 sequence, and whole in the
 * line's tooltip; one that fits is drawn as it is. */
static void long_title(void)
{
    pg_folded *f = folded("main;work 10\n");
    pg_flamegraph_opts o;
    pg_flamegraph_opts_init(&o);
    char title[1024];
    size_t n = 0;
    while (n < 300)         /* "./prog --opt=\xc3\xa9" over and over: 300 bytes */
        n += (size_t)snprintf(title + n, sizeof title - n, "./prog --opt=\xc3\xa9 ");
    title[300] = '\0';
    o.title = title;
    o.width = 1200;
    char *svg = render(f, &o);
    char want[1100];
    snprintf(want, sizeof want, "<text id=\"title\" x=\"600\" y=\"24\"><title>%s</title>", title);
    CHECK_CONTAINS(svg, want);
    const char *shown = strstr(svg, "</title>") + strlen("</title>"), *end = strstr(shown, "</text>");
    size_t len = (size_t)(end - shown);
    CHECK(len > 40 && len < 300);
    CHECK(!strncmp(shown, title, len - 3));                    /* the beginning of the title... */
    CHECK(!strncmp(end - 3, "\xe2\x80\xa6", 3));              /* ...and an ellipsis */
    CHECK_EQ_INT(pg_text_utf8_valid(shown, len), 1);
    /* At most what fits between "Reset Zoom" and "Search": (1200 - 2 * 90) / (17 * 0.59) characters. */
    CHECK(len - 3 <= (size_t)((1200 - 2 * 90) / (17 * 0.59)));
    free(svg);
    o.title = "./prog --short";
    svg = render(f, &o);
    CHECK_CONTAINS(svg, "<text id=\"title\" x=\"600\" y=\"24\">./prog --short</text>");
    free(svg);
    pg_folded_free(f);
}

int main(void)
{
    widths();
    long_title();
    labels();
    escaping();
    pruning();
    diff();
    files();
    funcdelta();
    large();
    return pg_check_done();
}
