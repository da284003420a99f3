/* Folded stacks: parsing (good, bad with file:line), merging, totals, the
 * frame-wise order, exact output, atomic files, and a large profile. */
#include "tests/check.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/folded.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

static char *written(pg_folded *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CHECK_EQ_INT(pg_folded_write(f, m), 0);
    fclose(m);
    return buf;
}

static void parse_and_merge(void)
{
    pg_folded *f;
    CHECK_EQ_INT(pg_folded_new(&f), 0);
    const char *text = "main;parse;hash 3\n"
                       "\n"
                       "main;sort;compare 5\r\n"
                       "   \n"
                       "main;parse;hash 4\n"
                       "main;std::vector<int, std::allocator<int> >::push_back 2\n"
                       "main;parse 1";   /* no final newline */
    CHECK_EQ_INT(pg_folded_parse(f, text, strlen(text), "t.folded"), 0);
    CHECK_EQ_INT(pg_folded_count(f), 4);
    CHECK_EQ_INT(pg_folded_total(f), 15);
    const pg_folded_entry *e = pg_folded_entries(f);
    CHECK_STR(e[0].stack, "main;parse");
    CHECK_EQ_INT(e[0].count, 1);
    CHECK_STR(e[1].stack, "main;parse;hash");
    CHECK_EQ_INT(e[1].count, 7);
    CHECK_STR(e[2].stack, "main;sort;compare");
    CHECK_STR(e[3].stack, "main;std::vector<int, std::allocator<int> >::push_back");
    char *out = written(f);
    CHECK_STR(out, "main;parse 1\nmain;parse;hash 7\nmain;sort;compare 5\n"
                   "main;std::vector<int, std::allocator<int> >::push_back 2\n");
    free(out);

    /* Adds merge into what is there, and invalidate the sorted view. */
    CHECK_EQ_INT(pg_folded_add(f, "main;parse", 9), 0);
    CHECK_EQ_INT(pg_folded_add(f, "a", 1), 0);
    e = pg_folded_entries(f);
    CHECK_STR(e[0].stack, "a");
    CHECK_EQ_INT(e[1].count, 10);
    CHECK_EQ_INT(pg_folded_total(f), 25);

    /* Frames are sanitized so the line stays parseable. */
    const char *frames[] = {"main", "weird;name", "multi\nline"};
    CHECK_EQ_INT(pg_folded_add_frames(f, frames, 3, 2), 0);
    CHECK_EQ_INT(pg_folded_add_frames(f, frames, 3, 1), 0);
    CHECK_EQ_INT(pg_folded_add_frames(f, frames, 0, 1), PG_EINVAL);
    e = pg_folded_entries(f);
    int found = 0;
    for (size_t i = 0; i < pg_folded_count(f); i++)
        if (!strcmp(e[i].stack, "main;weird:name;multi line") && e[i].count == 3)
            found = 1;
    CHECK(found);
    pg_folded_free(f);
}

/* A stack sorts before its extensions and all stacks under one frame stay
 * together, even when a name has bytes below ';' ('!', digits, ':'). */
static void order(void)
{
    CHECK(pg_folded_stack_cmp("a;b", "a;b;c") < 0);
    CHECK(pg_folded_stack_cmp("a;b;c", "a;b!") < 0);
    CHECK(pg_folded_stack_cmp("a;b!", "a;b;c") > 0);
    CHECK(pg_folded_stack_cmp("a;b0", "a;b;z") > 0);
    CHECK(pg_folded_stack_cmp("a", "a") == 0);
    CHECK(pg_folded_stack_cmp("a;\xc3\xa9", "a;z") > 0);   /* bytes compare unsigned */
    pg_folded *f;
    pg_folded_new(&f);
    const char *text = "a;b!;x 1\na;b;c 2\na;b 3\na;b:: 4\n";
    CHECK_EQ_INT(pg_folded_parse(f, text, strlen(text), "o"), 0);
    char *out = written(f);
    CHECK_STR(out, "a;b 3\na;b;c 2\na;b!;x 1\na;b:: 4\n");
    free(out);
    pg_folded_free(f);
}

static void bad_input(void)
{
    pg_folded *f0;
    pg_folded_new(&f0);
    struct { const char *text, *msg; } cases[] = {
        {"main;a 1\nmain;b\n", "bad.folded:2: expected 'frame;frame;... COUNT' (a line of 6 bytes)"},
        {"main;a 1\n\nmain;b x2\n", "bad.folded:3: expected a whole-number count at the end of the line (a line of 9 bytes)"},
        {"main;a 1.5\n", "bad.folded:1: expected a whole-number count"},
        {"main;a -3\n", "bad.folded:1: expected a whole-number count"},
        {" 12\n", "bad.folded:1: expected 'frame;frame;... COUNT'"},
        {"main 99999999999999999999\n", "bad.folded:1: count does not fit in 64 bits"},
        {"a 18446744073709551615\nb 1\n", "bad.folded:2: folded counts overflow 64 bits"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pg_folded *f;
        pg_folded_new(&f);
        CHECK_EQ_INT(pg_folded_parse(f, cases[i].text, strlen(cases[i].text), "bad.folded"), PG_EINVAL);
        CHECK_CONTAINS(pg_error_last(), cases[i].msg);
        pg_folded_free(f);
    }
    /* No line is quoted (a file named by data may be a secret): the message
     * stays one short line whatever the line was. */
    CHECK_EQ_INT(pg_folded_parse(f0, "SECRET=hunter2\n", 15, "env"), PG_EINVAL);
    CHECK(strstr(pg_error_last(), "hunter2") == NULL);
    char longline[300];
    memset(longline, 'x', sizeof longline - 1);
    longline[sizeof longline - 1] = '\0';
    pg_folded *f;
    pg_folded_new(&f);
    CHECK_EQ_INT(pg_folded_parse(f, longline, strlen(longline), "long"), PG_EINVAL);
    CHECK(strlen(pg_error_last()) < 160);
    CHECK(strchr(pg_error_last(), '\n') == NULL);
    CHECK_EQ_INT(pg_folded_read_file(f, "/nonexistent/x.folded"), PG_ENOTFOUND);
    CHECK_CONTAINS(pg_error_last(), "/nonexistent/x.folded");
    pg_folded_free(f);
    pg_folded_free(f0);
}

static void files(void)
{
    char dir[PATH_MAX];
    REQUIRE(pg_mkdtemp(dir, sizeof dir, "pg-folded-") == 0);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/p.folded", dir);
    pg_folded *f, *g;
    pg_folded_new(&f);
    pg_folded_add(f, "main;b", 2);
    pg_folded_add(f, "main;a", 1);
    CHECK_EQ_INT(pg_folded_write_file(f, path), 0);
    char *text;
    size_t len;
    CHECK_EQ_INT(pg_file_read(&text, &len, path), 0);
    CHECK_STR(text, "main;a 1\nmain;b 2\n");
    free(text);
    pg_folded_new(&g);
    CHECK_EQ_INT(pg_folded_read_file(g, path), 0);
    CHECK_EQ_INT(pg_folded_total(g), 3);
    /* A write into a missing directory fails and leaves nothing behind. */
    char bad[PATH_MAX + 64];
    snprintf(bad, sizeof bad, "%s/missing/p.folded", dir);
    CHECK(pg_folded_write_file(f, bad) < 0);
    CHECK(access(bad, F_OK) != 0);
    pg_folded_free(f);
    pg_folded_free(g);
    unlink(path);
    rmdir(dir);
}

/* 200,000 distinct stacks, each added twice: all merge, totals exact. */
static void large(void)
{
    pg_folded *f;
    pg_folded_new(&f);
    size_t cap = 200000 * 64, len = 0;
    char *text = malloc(cap);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 100000; i++)
            len += (size_t)snprintf(text + len, cap - len, "main;work%d;leaf%d %d\n", i % 97, i, pass + 1);
    CHECK_EQ_INT(pg_folded_parse(f, text, len, "big"), 0);
    CHECK_EQ_INT(pg_folded_count(f), 100000);
    CHECK_EQ_INT(pg_folded_total(f), 300000);
    const pg_folded_entry *e = pg_folded_entries(f);
    int sorted = 1;
    for (size_t i = 1; i < pg_folded_count(f); i++)
        if (pg_folded_stack_cmp(e[i - 1].stack, e[i].stack) >= 0 || e[i].count != 3)
            sorted = 0;
    CHECK(sorted);
    free(text);
    pg_folded_free(f);
}

/* The sort against the definition of the order, on random stacks over an
 * alphabet that hits every case: ';' and the end of a string rank lowest,
 * bytes on both sides of ';', shared prefixes of every length. */
static void random_order(void)
{
    static const char alphabet[] = "ab;!:\xc3z";
    unsigned seed = 12345;
    for (int round = 0; round < 20; round++) {
        pg_folded *f;
        pg_folded_new(&f);
        size_t want = 0;
        for (int i = 0; i < 3000; i++) {
            char st[40];
            seed = seed * 1103515245u + 12345u;
            size_t len = 1 + (seed >> 16) % 30;
            for (size_t k = 0; k < len; k++) {
                seed = seed * 1103515245u + 12345u;
                st[k] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
            }
            st[len] = '\0';
            pg_folded_add(f, st, 1);
            want++;
        }
        CHECK_EQ_INT(pg_folded_total(f), want);
        const pg_folded_entry *e = pg_folded_entries(f);
        int ok = 1;
        for (size_t i = 1; i < pg_folded_count(f); i++)
            if (pg_folded_stack_cmp(e[i - 1].stack, e[i].stack) >= 0)
                ok = 0;
        CHECK(ok);
        pg_folded_free(f);
    }
}

int main(void)
{
    random_order();
    parse_and_merge();
    order();
    bad_input();
    files();
    large();
    return pg_check_done();
}
