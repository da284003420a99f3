/* perfgate top's numbers (report/top.h): self, total once per stack under
 * recursion, filters on whole stacks with percentages of the whole, the
 * tree around a function, empty frames and the flamegraph's rounding; and
 * the pprof encoder's bytes for a one-stack profile (report/pprof.h). */
#include "tests/check.h"
#include "report/pprof.h"
#include "report/top.h"
#include "util/error.h"
#include "util/folded.h"

#include <zlib.h>

static pg_folded *folded(const char *text)
{
    pg_folded *f;
    REQUIRE(pg_folded_new(&f) == 0);
    REQUIRE(pg_folded_parse(f, text, strlen(text), "t") == 0);
    return f;
}

static const pg_top_fn *row(const pg_top *t, const char *name)
{
    for (size_t i = 0; i < t->nfn; i++)
        if (!strcmp(t->fn[i].name, name))
            return &t->fn[i];
    return NULL;
}

static void numbers(void)
{
    pg_folded *f = folded("p;main;a;a;a 6\np;main;a;b;a 3\np;main;b 1\n");
    pg_top *t;
    REQUIRE(pg_top_build(&t, f, NULL) == 0);
    CHECK_EQ_INT(t->total, 10);
    CHECK_EQ_INT(t->kept, 10);
    CHECK_EQ_INT(t->nfn, 4);
    CHECK_STR(t->fn[0].name, "a");            /* by self */
    CHECK_EQ_INT(row(t, "a")->self, 9);
    CHECK_EQ_INT(row(t, "a")->total, 9);      /* once per stack, however deep */
    CHECK_EQ_INT(row(t, "b")->self, 1);
    CHECK_EQ_INT(row(t, "b")->total, 4);
    CHECK_EQ_INT(row(t, "p")->total, 10);
    pg_top_peek p;
    REQUIRE(pg_top_peek_of(&p, t, "a") == 0);
    CHECK_EQ_INT(p.ncallers, 3);              /* main 9, a 6, b 3 */
    CHECK_STR(p.callers[0].name, "main");
    CHECK_EQ_INT(p.callers[0].count, 9);
    CHECK_STR(p.callers[1].name, "a");
    CHECK_EQ_INT(p.callers[1].count, 6);
    CHECK_EQ_INT(p.callers[2].count, 3);
    CHECK_EQ_INT(p.ncallees, 2);              /* a 6, b 3 */
    CHECK_EQ_INT(p.callees[0].count, 6);
    CHECK_STR(p.callees[1].name, "b");
    CHECK_EQ_INT(p.root, 0);
    pg_top_peek_free(&p);
    REQUIRE(pg_top_peek_of(&p, t, "p") == 0);
    CHECK_EQ_INT(p.root, 10);
    pg_top_peek_free(&p);
    CHECK_EQ_INT(pg_top_peek_of(&p, t, "c"), PG_ENOTFOUND);
    pg_top_free(t);

    pg_top_opts o = {.focus = "^b$", .sort = PG_TOP_SORT_TOTAL};
    REQUIRE(pg_top_build(&t, f, &o) == 0);
    CHECK_EQ_INT(t->kept, 4);
    CHECK_EQ_INT(t->total, 10);
    CHECK_STR(t->fn[0].name, "b");            /* total 4 as main and p, and the self that breaks the tie */
    CHECK_STR(t->fn[1].name, "main");
    CHECK_EQ_INT(pg_top_pct100(t, row(t, "b")->total), 4000);
    pg_top_free(t);
    o = (pg_top_opts){.ignore = "a"};
    REQUIRE(pg_top_build(&t, f, &o) == 0);
    CHECK_EQ_INT(t->kept, 0);                 /* "main" matches 'a': every stack has it */
    CHECK_EQ_INT(t->nfn, 0);
    pg_top_free(t);
    o = (pg_top_opts){.ignore = "^a$"};
    REQUIRE(pg_top_build(&t, f, &o) == 0);
    CHECK_EQ_INT(t->kept, 1);
    CHECK(row(t, "a") == NULL);
    CHECK_EQ_INT(pg_top_peek_of(&p, t, "a"), PG_ENOTFOUND);
    CHECK_CONTAINS(pg_error_last(), "--focus/--ignore");
    pg_top_free(t);
    o = (pg_top_opts){.focus = "(("};
    CHECK_EQ_INT(pg_top_build(&t, f, &o), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "--focus '(('");
    pg_folded_free(f);
}

static void edges(void)
{
    /* Empty frames are frames (the flamegraph draws them); 1 of 3 is 33.33%. */
    pg_folded *f = folded("a;;b 1\na 2\n");
    pg_top *t;
    REQUIRE(pg_top_build(&t, f, NULL) == 0);
    CHECK(row(t, "") != NULL);
    CHECK_EQ_INT(pg_top_pct100(t, 1), 3333);
    CHECK_EQ_INT(pg_top_pct100(t, 2), 6667);
    pg_top_free(t);
    pg_folded_free(f);
    REQUIRE(pg_folded_new(&f) == 0);
    CHECK_EQ_INT(pg_top_build(&t, f, NULL), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "no samples");
    pg_folded_free(f);
}

static void pprof_bytes(void)
{
    pg_folded *f = folded("m;f 300\n");
    unsigned char *gz, raw[512];
    size_t len;
    REQUIRE(pg_pprof_encode(&gz, &len, f, NULL) == 0);
    CHECK(len > 18 && gz[0] == 0x1f && gz[1] == 0x8b);   /* a gzip member */
    z_stream z = {0};
    REQUIRE(inflateInit2(&z, 15 + 16) == Z_OK);
    z.next_in = gz;
    z.avail_in = (uInt)len;
    z.next_out = raw;
    z.avail_out = sizeof raw;
    CHECK_EQ_INT(inflate(&z, Z_FINISH), Z_STREAM_END);
    size_t n = z.total_out;
    inflateEnd(&z);
    /* string_table "", "samples", "count", "m", "f"; sample_type {1, 2};
     * sample: location_id [2, 1] leaf first, packed; value [300] = ac 02. */
    static const unsigned char want[] = {
        0x32, 0x00, 0x32, 0x07, 's', 'a', 'm', 'p', 'l', 'e', 's', 0x32, 0x05, 'c', 'o', 'u', 'n', 't',
        0x32, 0x01, 'm', 0x32, 0x01, 'f',
        0x0a, 0x04, 0x08, 0x01, 0x10, 0x02,
        0x12, 0x08, 0x0a, 0x02, 0x02, 0x01, 0x12, 0x02, 0xac, 0x02,
        0x22, 0x06, 0x08, 0x01, 0x22, 0x02, 0x08, 0x01,
        0x22, 0x06, 0x08, 0x02, 0x22, 0x02, 0x08, 0x02,
        0x2a, 0x06, 0x08, 0x01, 0x10, 0x03, 0x18, 0x03,
        0x2a, 0x06, 0x08, 0x02, 0x10, 0x04, 0x18, 0x04,
        0x5a, 0x04, 0x08, 0x01, 0x10, 0x02,
        0x60, 0x01,
    };
    CHECK_EQ_INT(n, sizeof want);
    CHECK(n == sizeof want && memcmp(raw, want, n) == 0);
    free(gz);
    pg_folded_free(f);
    REQUIRE(pg_folded_new(&f) == 0);
    CHECK_EQ_INT(pg_pprof_encode(&gz, &len, f, NULL), PG_EINVAL);
    pg_folded_free(f);
}

int main(void)
{
    numbers();
    edges();
    pprof_bytes();
    return pg_check_done();
}
