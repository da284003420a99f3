/* Every output format, read back: text (and its colours), markdown (tables
 * split into cells, escaping undone), JSON (parsed with cJSON) and JUnit
 * (parsed by a small XML reader that checks well-formedness and the elements
 * and attributes the JUnit schema requires). */
#include "report/compare.h"
#include "report/explain.h"
#include "report/render.h"
#include "util/pair.h"
#include "tests/check.h"
#include "util/fileio.h"
#include "tests/unit/fixture_render.h"
#include "tests/unit/fixture_side.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>

static const char WEIRD[] = "a|b <x> & \"q\" 'y' *z* `c`";

static char *render(int (*fn)(FILE *, const pg_comparison *), const pg_comparison *c)
{
    return fx_render(fn, c);
}

static char *render_text(const pg_comparison *c, int color, int verbose)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pg_render_opts o = {.color = color, .verbose = verbose};
    CHECK_EQ_INT(pg_render_text(f, c, &o), 0);
    fclose(f);
    return buf;
}

static void build(pg_side *a, pg_side *b)
{
    fx_side(a, "HEAD~1", "1111111111111111111111111111111111111111", "m1", "valgrind");
    fx_side(b, "HEAD", "2222222222222222222222222222222222222222", "m1", "valgrind");
    double base = 1000000, up = 1030000, down = 800000, w0[] = {5e8}, w1[] = {6e8};
    fx_metric(fx_bench(a, "sort"), "instructions", "count", "valgrind", &base, 1);
    fx_metric(fx_bench(b, "sort"), "instructions", "count", "valgrind", &up, 1);
    fx_metric(&a->b[0], "wall-time", "ns", "valgrind", w0, 1);
    fx_metric(&b->b[0], "wall-time", "ns", "valgrind", w1, 1);
    fx_metric(fx_bench(a, WEIRD), "instructions", "count", "valgrind", &base, 1);
    fx_metric(fx_bench(b, WEIRD), "instructions", "count", "valgrind", &down, 1);
    fx_metric(fx_bench(a, "steady"), "instructions", "count", "valgrind", &base, 1);
    fx_metric(fx_bench(b, "steady"), "instructions", "count", "valgrind", &base, 1);
    fx_bench(a, "old");
    fx_bench(b, "new<1>");
}

/* Functions as pg_explain() would set them. */
static void add_funcs(pg_comparison *c)
{
    pg_bench_cmp *s = &c->bench[0];
    s->funcs = calloc(2, sizeof *s->funcs);
    s->funcs[0] = (pg_func_row){strdup("hot_loop<int>"), 700000, 730000, 30000};
    s->funcs[1] = (pg_func_row){strdup("main"), 300000, 300000, 0};
    s->nfuncs = 2;
    s->funcs_unit = strdup("instructions");
}

static void test_text(const pg_comparison *c)
{
    char *t = render_text(c, 0, 0);
    CHECK_CONTAINS(t, "perfgate compare: HEAD~1 (111111111111) -> HEAD (222222222222)");
    CHECK_CONTAINS(t, "+3.00%");
    CHECK_CONTAINS(t, "+30,000");
    CHECK_CONTAINS(t, "-20.00%");
    CHECK_CONTAINS(t, "hot_loop<int>");
    CHECK_CONTAINS(t, "new benchmarks, not in the baseline (1): new<1>");
    CHECK_CONTAINS(t, "vanished benchmarks, not in the candidate (1): old");
    CHECK_CONTAINS(t, "\nverdict: regressed -- 1 regressed, 1 improved, 1 unchanged of 3 benchmarks compared; 1 new; 1 vanished\n");
    CHECK(!strchr(t, '\033'));
    /* wall-time under valgrind is not gating and a single sample: hidden unless verbose. */
    CHECK(!strstr(t, "wall-time"));
    /* Columns line up: every row's metric starts under the header's "metric". */
    const char *hdr = strstr(t, "\nbenchmark ");
    CHECK(hdr != NULL);
    int rows = 0;
    if (hdr) {
        hdr++;
        long col = strstr(hdr, "metric") - hdr;
        for (const char *l = strchr(hdr, '\n') + 1; *l && *l != '\n'; l = strchr(l, '\n') + 1) {
            CHECK(!strncmp(l + col, "instructions", 12));
            rows++;
        }
    }
    CHECK_EQ_INT(rows, 3);
    free(t);
    t = render_text(c, 1, 1);
    CHECK_CONTAINS(t, "\033[31mregressed\033[0m");
    CHECK_CONTAINS(t, "\033[32mimproved\033[0m");
    CHECK_CONTAINS(t, "wall-time");
    CHECK_CONTAINS(t, "3 per side needed");
    free(t);
}

/* Splits a markdown table row into cells at unescaped '|'; returns the count. */
static int cells(const char *line, char out[][256], int max)
{
    int n = 0;
    size_t o = 0;
    if (*line != '|')
        return 0;
    for (const char *p = line + 1; *p && *p != '\n'; p++) {
        if (*p == '\\' && p[1]) {
            if (n < max && o < 255)
                out[n][o++] = *++p;
            continue;
        }
        if (*p == '|') {
            if (n < max) {
                out[n][o] = '\0';
                /* trim */
                char *s = out[n];
                size_t l = strlen(s);
                while (l && s[l - 1] == ' ')
                    s[--l] = '\0';
                size_t k = 0;
                while (s[k] == ' ')
                    k++;
                memmove(s, s + k, strlen(s + k) + 1);
            }
            n++;
            o = 0;
            continue;
        }
        if (n < max && o < 255)
            out[n][o++] = *p;
    }
    return n;
}

/* Undoes the HTML entities the markdown renderer writes. */
static void unentity(char *s)
{
    static const char *const ent[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}};
    for (char *p = s; *p; p++)
        for (int i = 0; i < 3; i++)
            if (!strncmp(p, ent[i][0], strlen(ent[i][0])))
                memmove(p + 1, p + strlen(ent[i][0]), strlen(p + strlen(ent[i][0])) + 1), *p = ent[i][1][0];
}

static void test_markdown(const pg_comparison *c)
{
    char *md = render(pg_render_markdown, c);
    const char *first = "### perfgate: :red_circle: regressed\n";
    CHECK(!strncmp(md, first, strlen(first)));
    CHECK_CONTAINS(md, "1 regressed, 1 improved, 1 unchanged of 3 benchmarks compared");
    int opens = 0, closes = 0, headers = 0, rows = 0, weird_rows = 0, short_rows = 0;
    for (const char *p = md; (p = strstr(p, "<details")); p++)
        opens++;
    for (const char *p = md; (p = strstr(p, "</details>")); p++)
        closes++;
    CHECK_EQ_INT(opens, 2);         /* the function table, the complete table */
    CHECK_EQ_INT(closes, 2);
    int in_full = 0;
    for (const char *line = md; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (!strncmp(line, "<details><summary>All", 21))
            in_full = 1;
        char cell[8][256];
        int n = cells(line, cell, 8);
        if (!n)
            continue;
        if (!strcmp(cell[0], "benchmark")) {
            headers++;
            CHECK_EQ_INT(n, 7);
            continue;
        }
        if (!strcmp(cell[0], "function")) {
            CHECK_EQ_INT(n, 4);
            continue;
        }
        if (cell[0][0] == '-' || !strncmp(cell[0], "--", 2))
            continue;
        if (n == 4) {       /* function rows */
            unentity(cell[0]);
            CHECK(!strcmp(cell[0], "hot_loop<int>") || !strcmp(cell[0], "main"));
            continue;
        }
        CHECK_EQ_INT(n, 7);
        rows++;
        if (!in_full)
            short_rows++;
        unentity(cell[0]);
        if (!strcmp(cell[0], WEIRD)) {
            weird_rows++;
            CHECK_STR(cell[6], "**improved**");
            CHECK_CONTAINS(cell[4], "-20.00%");
        }
        if (!strcmp(cell[0], "sort")) {
            CHECK_STR(cell[1], "instructions (gate)");
            CHECK_STR(cell[2], "1,000,000");
            CHECK_STR(cell[3], "1,030,000");
            CHECK_STR(cell[4], "+3.00% (+30,000)");
            CHECK_STR(cell[5], "0.1%");
        }
    }
    CHECK_EQ_INT(headers, 2);
    CHECK_EQ_INT(short_rows, 2);    /* the changed ones: sort, WEIRD */
    CHECK_EQ_INT(weird_rows, 2);
    CHECK_EQ_INT(rows, 2 + 4);      /* full table: sort has 2 metrics, the others 1 */
    CHECK_CONTAINS(md, "new&lt;1&gt;");
    CHECK(!strstr(md, "<x>"));      /* no raw HTML from a benchmark name */
    free(md);
}

static void test_json(const pg_comparison *c)
{
    char *text = render(pg_render_json, c);
    cJSON *j = cJSON_Parse(text);
    CHECK(j != NULL);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "verdict")), "regressed");
    cJSON *base = cJSON_GetObjectItem(j, "baseline");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(base, "commit")), "1111111111111111111111111111111111111111");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(base, "machine")), "m1");
    cJSON *cand = cJSON_GetObjectItem(j, "candidate");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cand, "commit")), "2222222222222222222222222222222222222222");
    cJSON *bs = cJSON_GetObjectItem(j, "benchmarks");
    CHECK_EQ_INT(cJSON_GetArraySize(bs), 3);
    cJSON *s = cJSON_GetArrayItem(bs, 0);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(s, "name")), "sort");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(s, "verdict")), "regressed");
    cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "metrics"), 0);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(m, "name")), "instructions");
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(m, "baseline")), 1000000, 0);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(m, "candidate")), 1030000, 0);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(m, "delta_pct")), 3.0, 1e-9);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(m, "threshold_pct")), 0.1, 0);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(m, "verdict")), "regressed");
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(m, "p")));
    cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "functions"), "top"), 0);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(f, "name")), "hot_loop<int>");
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(f, "delta")), 30000, 0);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(bs, 1)->child), WEIRD);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "new"), 0)), "new<1>");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "vanished"), 0)), "old");
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "counts"), "improved")), 1, 0);
    cJSON_Delete(j);
    free(text);
}

/* A minimal XML reader: elements, attributes, text, the five entities and
 * numeric references; it fails on anything not well-formed. */
typedef struct xml_el {
    char name[32];
    char attr[8][2][512];
    int nattr;
    int depth;
    char parent[32];
} xml_el;

static int xml_decode(char *out, size_t len, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (o + 1 >= len)
            return -1;
        if (s[i] == '<')
            return -1;
        if (s[i] != '&') {
            out[o++] = s[i];
            continue;
        }
        static const char *const ent[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
        int k;
        for (k = 0; k < 5; k++)
            if (!strncmp(s + i, ent[k][0], strlen(ent[k][0])))
                break;
        if (k < 5) {
            out[o++] = ent[k][1][0];
            i += strlen(ent[k][0]) - 1;
        } else if (s[i + 1] == '#') {
            char *end;
            long v = strtol(s + i + 2, &end, 10);
            if (*end != ';')
                return -1;
            out[o++] = (char)v;
            i = (size_t)(end - s);
        } else {
            return -1;
        }
    }
    out[o] = '\0';
    return 0;
}

/* Parses `x` into els (start tags); 0 when well-formed. */
static int xml_parse(const char *x, xml_el *els, int max, int *nel)
{
    char stack[16][32];
    int depth = 0;
    *nel = 0;
    const char *p = x;
    if (!strncmp(p, "<?xml", 5))
        p = strstr(p, "?>") + 2;
    while (*p) {
        if (*p != '<') {
            const char *e = strchr(p, '<');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            char *tmp = malloc(n + 1);
            int bad = xml_decode(tmp, n + 1, p, n);
            free(tmp);
            if (bad)
                return -1;
            p += n;
            continue;
        }
        if (p[1] == '/') {
            const char *e = strchr(p, '>');
            if (!e || !depth || strncmp(p + 2, stack[depth - 1], (size_t)(e - p - 2)) ||
                strlen(stack[depth - 1]) != (size_t)(e - p - 2))
                return -1;
            depth--;
            p = e + 1;
            continue;
        }
        xml_el *el = &els[(*nel)++];
        if (*nel > max)
            return -1;
        memset(el, 0, sizeof *el);
        p++;
        size_t n = strcspn(p, " />");
        snprintf(el->name, sizeof el->name, "%.*s", (int)n, p);
        snprintf(el->parent, sizeof el->parent, "%s", depth ? stack[depth - 1] : "");
        el->depth = depth;
        p += n;
        for (;;) {
            while (*p == ' ' || *p == '\n')
                p++;
            if (*p == '/' && p[1] == '>') {
                p += 2;
                break;
            }
            if (*p == '>') {
                if (depth >= 16)
                    return -1;
                snprintf(stack[depth++], 32, "%s", el->name);
                p++;
                break;
            }
            size_t an = strcspn(p, "=");
            if (p[an] != '=' || p[an + 1] != '"' || el->nattr >= 8)
                return -1;
            snprintf(el->attr[el->nattr][0], 512, "%.*s", (int)an, p);
            const char *v = p + an + 2, *ve = strchr(v, '"');
            if (!ve || xml_decode(el->attr[el->nattr][1], 512, v, (size_t)(ve - v)) < 0)
                return -1;
            el->nattr++;
            p = ve + 1;
        }
    }
    return depth == 0 ? 0 : -1;
}

static const char *attr(const xml_el *e, const char *name)
{
    for (int i = 0; i < e->nattr; i++)
        if (!strcmp(e->attr[i][0], name))
            return e->attr[i][1];
    return NULL;
}

static void test_junit(const pg_comparison *c)
{
    char *x = render(pg_render_junit, c);
    static xml_el els[64];
    int n = 0;
    CHECK_EQ_INT(xml_parse(x, els, 64, &n), 0);
    CHECK(n > 0 && !strcmp(els[0].name, "testsuites"));
    int suites = 0, cases = 0, failures = 0, skipped = 0, weird = 0;
    for (int i = 0; i < n; i++) {
        xml_el *e = &els[i];
        if (!strcmp(e->name, "testsuite")) {
            suites++;
            CHECK_STR(e->parent, "testsuites");
            CHECK(attr(e, "name") != NULL);
            CHECK_STR(attr(e, "tests"), "5");
            CHECK_STR(attr(e, "failures"), "1");
            CHECK(attr(e, "errors") != NULL);
        } else if (!strcmp(e->name, "testcase")) {
            cases++;
            CHECK_STR(e->parent, "testsuite");
            CHECK(attr(e, "name") && attr(e, "classname"));
            weird += attr(e, "name") && !strcmp(attr(e, "name"), WEIRD);
        } else if (!strcmp(e->name, "failure")) {
            failures++;
            CHECK_STR(e->parent, "testcase");
            CHECK_CONTAINS(attr(e, "message"), "instructions +3.00% (+30,000), threshold 0.1%");
        } else if (!strcmp(e->name, "skipped")) {
            skipped++;
        }
    }
    CHECK_EQ_INT(suites, 1);
    CHECK_EQ_INT(cases, 5);         /* 3 compared, 1 new, 1 vanished */
    CHECK_EQ_INT(failures, 1);
    CHECK_EQ_INT(skipped, 2);
    CHECK_EQ_INT(weird, 1);
    CHECK_STR(attr(&els[0], "tests"), "5");
    CHECK_STR(attr(&els[0], "failures"), "1");
    free(x);
    /* The checker itself rejects what is not well-formed. */
    CHECK(xml_parse("<a><b></a></b>", els, 64, &n) != 0);
    CHECK(xml_parse("<a x=\"<\"/>", els, 64, &n) != 0);
    CHECK(xml_parse("<a>&bogus;</a>", els, 64, &n) != 0);
}

/* Benchmark i of a large suite on both sides: its name, metric and values. */
typedef void suite_bench(pg_side *a, pg_side *b, int i);

/* Sides a and b of n benchmarks made by `each`, compared gating on
 * instructions into c (the caller frees c, g, a and b). */
static void large_suite(pg_comparison *c, pg_gates *g, pg_side *a, pg_side *b, int n, suite_bench *each)
{
    fx_side(a, "a", "", "m1", "valgrind");
    fx_side(b, "b", "", "m1", "valgrind");
    for (int i = 0; i < n; i++)
        each(a, b, i);
    *g = (pg_gates){0};
    pg_gates_parse(g, "instructions");
    pg_compare_opts o = {.gates = g};
    CHECK_EQ_INT(pg_compare(c, a, b, &o), 0);
}

static void limits_bench(pg_side *a, pg_side *b, int i)
{
    double base = 1000, up = 1100, down = 900;
    char name[32];
    snprintf(name, sizeof name, "b%03d", i);
    fx_metric(fx_bench(a, name), "instructions", "count", "valgrind", &base, 1);
    fx_metric(fx_bench(b, name), "instructions", "count", "valgrind", i < 50 ? &down : i < 200 ? &up : &base, 1);
    b->dirty = 1;
}

/* A large suite: the markdown shows the worst first and says what it left out. */
static void test_markdown_limits(void)
{
    pg_side a, b;
    pg_gates g;
    pg_comparison c;
    large_suite(&c, &g, &a, &b, 400, limits_bench);
    char *md = render(pg_render_markdown, &c);
    CHECK(strlen(md) < 65536);      /* fits a pull-request comment */
    CHECK(strstr(md, "100 more changed benchmarks are not shown here") != NULL);
    CHECK(strstr(md, "The first 300 of 400 benchmarks") != NULL);
    /* Regressions come first: b050 (the first regressed) is shown, b000 (improved) is not. */
    const char *details = strstr(md, "<details>");
    const char *r = strstr(md, "| b050 |"), *imp = strstr(md, "| b000 |");
    CHECK(r && r < details);
    CHECK(imp && imp > details);
    CHECK(strstr(md, "candidate b (dirty work tree)") != NULL);
    free(md);
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

/* A large suite's JSON (its benchmarks rendered a chunk at a time on two
 * cores): every benchmark once, in the comparison's order, names that need
 * escaping as they were. */
static void json_bench(pg_side *a, pg_side *b, int i)
{
    double base = 1000, up = 1100;
    char name[32];
    snprintf(name, sizeof name, i % 7 ? "b%03d" : "b\"%03d\\", i);
    fx_metric(fx_bench(a, name), i % 5 ? "instructions" : "in\"str", "count", "valgrind", &base, 1);
    fx_metric(fx_bench(b, name), i % 5 ? "instructions" : "in\"str", "count", "valgrind", i % 3 ? &base : &up, 1);
}

static void test_json_large(void)
{
    pg_side a, b;
    pg_gates g;
    pg_comparison c;
    large_suite(&c, &g, &a, &b, 333, json_bench);
    /* As a pooled side's are: one string for every series of a metric. */
    static const char weird[] = "in\"str", plain[] = "instructions", unit[] = "count", backend[] = "valgrind";
    for (size_t k = 0; k < c.nbench; k++) {
        c.bench[k].m[0].metric = strcmp(c.bench[k].m[0].metric, weird) ? plain : weird;
        c.bench[k].m[0].unit = unit;
        c.bench[k].m[0].backend = backend;
    }
    char *text = render(pg_render_json, &c);
    cJSON *doc = cJSON_Parse(text);
    const cJSON *benches = cJSON_GetObjectItemCaseSensitive(doc, "benchmarks");
    CHECK_EQ_INT(cJSON_GetArraySize(benches), 333);
    CHECK_EQ_INT((int)c.nbench, 333);
    int i = 0;
    const cJSON *jb;
    cJSON_ArrayForEach(jb, benches) {
        const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(jb, "metrics"), 0);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(jb, "name")), c.bench[i].name);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "name")), c.bench[i].m[0].metric);
        i++;
    }
    CHECK(strstr(text, "\"name\": \"b\\\"007\\\\\"") != NULL);
    /* One thread (as under valgrind: util/pair.h) renders every chunk itself, the same text. */
    pg_pair_serial(1);
    char *serial = render(pg_render_json, &c);
    pg_pair_serial(0);
    CHECK_STR(serial, text);
    free(serial);
    cJSON_Delete(doc);
    free(text);
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

/* Long names in a large suite: the report is cut below 60,000 bytes at a
 * line, with its <details> closed and a note pointing to the JSON report. */
static void cap_bench(pg_side *a, pg_side *b, int i)
{
    double base = 1000, up = 1100;
    char name[300];
    snprintf(name, sizeof name, "b%03d-%0240d", i, 0);
    fx_metric(fx_bench(a, name), "instructions", "count", "valgrind", &base, 1);
    fx_metric(fx_bench(b, name), "instructions", "count", "valgrind", &up, 1);
}

static void test_markdown_cap(void)
{
    pg_side a, b;
    pg_gates g;
    pg_comparison c;
    large_suite(&c, &g, &a, &b, 400, cap_bench);
    char *md = render(pg_render_markdown, &c);
    size_t len = strlen(md);
    CHECK(len <= 60000);
    CHECK(strstr(md, "This report was cut at ") != NULL);
    CHECK(strstr(md, "`perfgate compare --format json`") != NULL);
    int open = 0;
    for (const char *p = md; (p = strstr(p, "<details")); p++)
        open++;
    for (const char *p = md; (p = strstr(p, "</details>")); p++)
        open--;
    CHECK_EQ_INT(open, 0);
    CHECK(len > 20 && !strcmp(md + len - 11, "</details>\n"));
    /* The note is a paragraph of its own, not one more table row. */
    const char *note = strstr(md, "**This report was cut");
    CHECK(note && note - md > 2 && note[-1] == '\n' && note[-2] == '\n');
    free(md);
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

static void test_side_names(void)
{
    pg_side s;
    char buf[200];
    fx_side(&s, "HEAD~1", "3f2a9c1d8e07aaaaaaaaaaaaaaaaaaaaaaaaaaaa", "m", "perf");
    pg_render_side(buf, sizeof buf, &s);
    CHECK_STR(buf, "HEAD~1 (3f2a9c1d8e07)");
    s.dirty = 1;
    pg_render_side(buf, sizeof buf, &s);
    CHECK_STR(buf, "HEAD~1 (3f2a9c1d8e07, dirty work tree)");
    snprintf(s.label, sizeof s.label, "3f2a9c1");
    pg_render_side(buf, sizeof buf, &s);
    CHECK_STR(buf, "3f2a9c1d8e07 (dirty work tree)");
    s.dirty = 0;
    pg_render_side(buf, sizeof buf, &s);
    CHECK_STR(buf, "3f2a9c1d8e07");
    s.commit[0] = '\0';
    snprintf(s.label, sizeof s.label, "a.json");
    pg_render_side(buf, sizeof buf, &s);
    CHECK_STR(buf, "a.json");
}

/* A simulating backend's own counters are summed up in one line that names
 * the backend the data names, whichever it is: report/ knows none. */
static void test_own_counters_named_by_data(void)
{
    pg_side a, b;
    fx_side(&a, "HEAD~1", "111111111111", "m1", "heapsim");
    fx_side(&b, "HEAD", "222222222222", "m1", "heapsim");
    pg_series *s;
    fx_metric(fx_bench(&a, "alloc"), "pp-blocks", "count", "heapsim", (double[]){100}, 1);
    s = &a.b[0].m[0], s->exact = s->simulated = 1;
    fx_metric(fx_bench(&b, "alloc"), "pp-blocks", "count", "heapsim", (double[]){200}, 1);
    s = &b.b[0].m[0], s->exact = s->simulated = 1;
    pg_gates g = {0};
    pg_gates_parse(&g, "instructions");
    pg_compare_opts o = {.gates = &g};
    pg_comparison c;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    char *t = render_text(&c, 0, 0);
    CHECK_CONTAINS(t, "(+1 more heapsim metric changed: -v shows it)");
    CHECK(!strstr(t, "valgrind"));
    free(t);
    char *x = render(pg_render_junit, &c);
    CHECK_CONTAINS(x, "(+1 heapsim metrics: --format json lists them)");
    CHECK(!strstr(x, "valgrind"));
    free(x);
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
}

int main(void)
{
    test_own_counters_named_by_data();
    test_side_names();
    test_markdown_limits();
    test_markdown_cap();
    test_json_large();
    pg_side a, b;
    build(&a, &b);
    pg_gates g = {0};
    pg_gates_parse(&g, "instructions");
    pg_compare_opts o = {.gates = &g};
    pg_comparison c;
    CHECK_EQ_INT(pg_compare(&c, &a, &b, &o), 0);
    add_funcs(&c);
    test_text(&c);
    test_markdown(&c);
    test_json(&c);
    test_junit(&c);
    pg_comparison_free(&c);
    pg_gates_free(&g);
    pg_side_free(&a);
    pg_side_free(&b);
    return pg_check_done();
}
