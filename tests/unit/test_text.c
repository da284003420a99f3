/* Unit tests: util/text.h (UTF-8 and the escapers of every output format)
 * and the file names derived from benchmark names (util/fileio.h). */
#include "../check.h"
#include "util/fileio.h"
#include "util/text.h"

#include <stdlib.h>

static void test_decode(void)
{
    static const struct {
        const char *s;
        size_t len;
        int32_t cp;
    } cases[] = {
        {"a", 1, 'a'},
        {"\xc3\xa9", 2, 0xe9},
        {"\xe6\x97\xa5", 3, 0x65e5},
        {"\xf0\x9f\x94\xa5", 4, 0x1f525},
        {"\xef\xbf\xbe", 3, 0xfffe},           /* valid UTF-8, though XML forbids it */
        {"\xff", 1, PG_TEXT_INVALID},
        {"\xc0\xaf", 1, PG_TEXT_INVALID},      /* overlong '/' */
        {"\xe0\x80\xaf", 1, PG_TEXT_INVALID},  /* overlong */
        {"\xed\xa0\x80", 1, PG_TEXT_INVALID},  /* U+D800, a surrogate (CESU-8) */
        {"\xf4\x90\x80\x80", 1, PG_TEXT_INVALID},   /* over U+10FFFF */
        {"\xe6\x97", 1, PG_TEXT_INVALID},      /* cut short */
        {"\x80", 1, PG_TEXT_INVALID},          /* a lone continuation byte */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int32_t cp = 0;
        size_t l = pg_text_utf8_decode(cases[i].s, strlen(cases[i].s), &cp);
        CHECK_EQ_INT(l, cases[i].len);
        CHECK_EQ_INT(cp, cases[i].cp);
    }
    CHECK(pg_text_utf8_valid("ok \xe6\x97\xa5", 6));
    CHECK(!pg_text_utf8_valid("bad \xed\xa0\x80", 7));
}

static void test_repair(void)
{
    size_t n;
    char *r = pg_text_utf8_repair("a\xff" "b\xed\xa0\x80" "c\xc3\xa9", 9, &n);
    CHECK_STR(r, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "c\xc3\xa9");
    CHECK_EQ_INT(n, strlen(r));
    CHECK(pg_text_utf8_valid(r, n));
    free(r);
}

static void test_escape_modes(void)
{
    char buf[256];
    const char *hostile = "x\x1b[2J\x07|<b>\"&\xff\xc2\x9b\xef\xbf\xbe\n";
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, hostile, PG_TEXT_TERM),
              "x\\x1b[2J\\x07|<b>\"&\xef\xbf\xbd\\u009b\xef\xbf\xbe\\n");
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, hostile, PG_TEXT_JSON),
              "x\\u001b[2J\\u0007|<b>\\\"&\xef\xbf\xbd\\u009b\xef\xbf\xbe\\n");
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, hostile, PG_TEXT_XML),
              "x\xef\xbf\xbd[2J\xef\xbf\xbd|&lt;b&gt;&quot;&amp;\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd&#10;");
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, hostile, PG_TEXT_MARKDOWN),
              "x\\\\x1b\\[2J\\\\x07\\|&lt;b&gt;\"&amp;\xef\xbf\xbd\\\\u009b\xef\xbf\xbe ");
    /* Mentions and references ping no one in a PR comment: a zero-width
     * space after the sigil when a name or number follows; "3%" and "a & b"
     * stay as they are. */
#define ZW "\xe2\x80\x8b"
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, "@everyone #12 !3 ~bug %v1 $s &e GH-1", PG_TEXT_MARKDOWN),
              "@" ZW "everyone \\#" ZW "12 !" ZW "3 \\~" ZW "bug %" ZW "v1 $" ZW "s &amp;" ZW "e GH-1");
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, "+3.00% (a & b) @ end@", PG_TEXT_MARKDOWN),
              "+3.00% (a &amp; b) @ end@");
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, "@everyone", PG_TEXT_TERM), "@everyone");
#undef ZW
    /* Right-to-left override (Trojan Source) shown, not obeyed, on a terminal. */
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, "a\xe2\x80\xae" "b", PG_TEXT_TERM), "a\\u202eb");
    /* Plain names pass unchanged in every mode. */
    for (int m = PG_TEXT_TERM; m <= PG_TEXT_MARKDOWN; m++)
        CHECK_STR(pg_text_escape_buf(buf, sizeof buf, "sort-200k \xe6\x97\xa5", (pg_text_mode)m), "sort-200k \xe6\x97\xa5");
}

static void test_escape_buf_cuts(void)
{
    char buf[12];
    /* Cut at a character boundary, marked. */
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, "abc\xe6\x97\xa5\xe6\x97\xa5xyz", PG_TEXT_TERM), "abc\xe6\x97\xa5...");
    /* An escape is kept whole or left out: never "\x1" at the end. */
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, "abcdef\x1b", PG_TEXT_TERM), "abcdef...");
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, "abcd&&", PG_TEXT_XML), "abcd...");   /* not "abcd&am..." */
    CHECK_STR(pg_text_escape_buf(buf, sizeof buf, NULL, PG_TEXT_TERM), "");
    CHECK_EQ_INT(pg_text_prefix("ab\xe6\x97\xa5", 4), 2);
    CHECK_EQ_INT(pg_text_prefix("ab\xe6\x97\xa5", 5), 5);
    CHECK_EQ_INT(pg_text_prefix("ab", 10), 2);
}

static void test_file_names(void)
{
    char buf[PG_SAFE_NAME_SIZE], other[PG_SAFE_NAME_SIZE];
    pg_path_safe_name(buf, "sort-1m");
    CHECK_STR(buf, "sort-1m");
    pg_path_safe_name(buf, "../etc/passwd x");
    CHECK(!strncmp(buf, "_._etc_passwd_x~", 16) && strlen(buf) == 16 + 12);
    pg_path_safe_name(buf, ".hidden");
    CHECK(!strncmp(buf, "_hidden~", 8));
    pg_path_safe_name(buf, "");
    CHECK(!strncmp(buf, "_~", 2));
    /* Injective: "a b", "a_b" and "a?b" no longer share a_b.folded. */
    const char *names[] = {"a b", "a_b", "a?b", "a\xff" "b", "a\xfe" "b"};
    char seen[5][PG_SAFE_NAME_SIZE];
    for (int i = 0; i < 5; i++) {
        pg_path_safe_name(seen[i], names[i]);
        CHECK(!strchr(seen[i], '/') && seen[i][0] != '.');
        for (int j = 0; j < i; j++)
            CHECK(strcmp(seen[i], seen[j]) != 0);
    }
    CHECK_STR(seen[1], "a_b");
    /* Bounded: a 300-byte name, and two that differ only at their ends. */
    char lng[301];
    memset(lng, 'x', 300);
    lng[300] = '\0';
    pg_path_safe_name(buf, lng);
    CHECK_EQ_INT(strlen(buf), PG_SAFE_NAME_MAX);
    lng[299] = 'y';
    pg_path_safe_name(other, lng);
    CHECK_EQ_INT(strlen(other), PG_SAFE_NAME_MAX);
    CHECK(strcmp(buf, other) != 0);
    /* Clean names at the bound stay; one byte more gets the hash. */
    lng[PG_SAFE_NAME_MAX] = '\0';
    pg_path_safe_name(buf, lng);
    CHECK_STR(buf, lng);
    lng[PG_SAFE_NAME_MAX] = 'x';
    lng[PG_SAFE_NAME_MAX + 1] = '\0';
    pg_path_safe_name(buf, lng);
    CHECK(strchr(buf, '~') != NULL && strlen(buf) == PG_SAFE_NAME_MAX);
}

int main(void)
{
    test_decode();
    test_repair();
    test_escape_modes();
    test_escape_buf_cuts();
    test_file_names();
    return pg_check_done();
}
