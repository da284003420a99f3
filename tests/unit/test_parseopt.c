/* The option tables of util/parseopt.h: every kind of argument, bad values,
 * unknown and ambiguous options, operands and "--", and the generated help. */
#include "tests/check.h"
#include "util/error.h"
#include "util/parseopt.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct vals {
    int flag, off, num, choice, seen, cb_calls;
    unsigned long freq;
    uint64_t count;
    unsigned small;
    double secs;
    const char *str;
    char *list;
    const char *cb_name, *cb_arg;
} vals;

static const char *const formats[] = {"text", "markdown|md", "json", NULL};

static int cb(const pg_opt *opt, const char *name, const char *arg)
{
    vals *v = opt->dest;
    v->cb_calls++;
    v->cb_name = name;
    v->cb_arg = arg;
    if (arg && !strcmp(arg, "bad"))
        return pg_error_set(PG_EINVAL, "%s: the callback says no to '%s'", name, arg);
    return 0;
}

static const pg_opt_cmd cmd = {.prog = "perfgate t", .usage = "usage: perfgate t [OPTIONS] ARG\n", .footer = "Exit status: 0.\n"};
static const pg_opt_cmd cmd_rest = {.prog = "perfgate t", .usage = "usage: perfgate t -- CMD\n", .rest = 1};

#define TABLE(v) { \
    PG_OPT_FLAG('v', "verbose", "say more", &(v)->flag), \
    PG_OPT_SET_INT(0, "no-thing", "turn it off", &(v)->off, -2), \
    PG_OPT_INT('r', "repeat", "N", "runs", &(v)->num, 1, INT_MAX), \
    PG_OPT_INT('F', "freq", "HZ", "rate", &(v)->freq, 1, 100000, .what = "a whole number > 0"), \
    PG_OPT_INT('c', "count", "N", "period", &(v)->count, 1, LLONG_MAX), \
    PG_OPT_INT(0, "small", "B", "bytes", &(v)->small, 8, 64), \
    PG_OPT_DOUBLE(0, "timeout", "SEC", "seconds\nsecond line", &(v)->secs, 0, 3600, .what = "a number of seconds > 0"), \
    PG_OPT_STRING('o', "output", "FILE", "where", &(v)->str), \
    PG_OPT_CHOICE('f', "format", "F", "text, markdown or json", &(v)->choice, formats), \
    PG_OPT_LIST('e', "events", "LIST", "events", &(v)->list), \
    PG_OPT_CALLBACK('t', "threshold", "M=PCT", "a rule", (v), cb), \
    PG_OPT_INT(0, "sample", "HZ", "also sample", &(v)->freq, 1, 1000, .flags = PG_OPT_OPTARG, .seen = &(v)->seen), \
    PG_OPT_FLAG(0, "store-nothing", "nothing", &(v)->flag), \
    PG_OPT_FLAG(0, "a-very-long-option-name", "help on the next line", &(v)->flag), \
    PG_OPT_END(), \
}

/* Parses a space-separated command line; returns pg_opt_parse's result. */
static int parse(vals *v, pg_opt_args *a, const pg_opt_cmd *c, char *line)
{
    static char *argv[64];
    int argc = 0;
    argv[argc++] = "t";
    for (char *tok = strtok(line, " "); tok && argc < 63; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc] = NULL;
    memset(v, 0, sizeof *v);
    const pg_opt opts[] = TABLE(v);
    pg_error_clear();
    return pg_opt_parse(a, c, opts, argc, argv);
}

#define PARSE(v, a, c, text) parse(v, a, c, strcpy(linebuf, text))
static char linebuf[512];

static void test_kinds(void)
{
    vals v;
    pg_opt_args a;
    CHECK_EQ_INT(PARSE(&v, &a, &cmd, "-v --no-thing -r 5 -F200 --count=7 --small 16 --timeout 2.5 -o out.svg -f md"
                                     " -e a,b -e c -t x=1% X"), 0);
    CHECK_EQ_INT(v.flag, 1);
    CHECK_EQ_INT(v.off, -2);
    CHECK_EQ_INT(v.num, 5);
    CHECK_EQ_INT(v.freq, 200);
    CHECK_EQ_INT(v.count, 7);
    CHECK_EQ_INT(v.small, 16);
    CHECK_NEAR(v.secs, 2.5, 1e-12);
    CHECK_STR(v.str, "out.svg");
    CHECK_EQ_INT(v.choice, 1);              /* "md" is markdown's alias */
    CHECK_STR(v.list, "a,b,c");             /* a list given twice grows */
    CHECK_EQ_INT(v.cb_calls, 1);
    CHECK_STR(v.cb_name, "-t");
    CHECK_STR(v.cb_arg, "x=1%");
    CHECK_EQ_INT(a.nargs, 1);
    CHECK_STR(a.args[0], "X");
    CHECK_EQ_INT(v.seen, 0);
    pg_opt_args_free(&a);

    /* Bundled short options, a value glued on, a unique prefix, an optional argument. */
    CHECK_EQ_INT(PARSE(&v, &a, &cmd, "-vr3 --rep=4 --sample"), 0);
    CHECK_EQ_INT(v.flag, 1);
    CHECK_EQ_INT(v.num, 4);
    CHECK_EQ_INT(v.seen, 1);
    CHECK_EQ_INT(v.freq, 0);                /* absent: unchanged */
    pg_opt_args_free(&a);
    CHECK_EQ_INT(PARSE(&v, &a, &cmd, "--sample=500"), 0);
    CHECK_EQ_INT(v.seen, 1);
    CHECK_EQ_INT(v.freq, 500);
    pg_opt_args_free(&a);
    /* An optional argument is never the next word: that stays an operand. */
    CHECK_EQ_INT(PARSE(&v, &a, &cmd, "--sample 500"), 0);
    CHECK_EQ_INT(v.freq, 0);
    CHECK_EQ_INT(a.nargs, 1);
    pg_opt_args_free(&a);
}

static void test_bad_values(void)
{
    static const struct {
        const char *line, *msg;
    } cases[] = {
        {"--repeat zero", "--repeat: expected a whole number >= 1, got 'zero'"},
        {"-r 0", "-r: expected a whole number >= 1, got '0'"},
        {"-r 5x", "-r: expected a whole number >= 1, got '5x'"},
        {"-r 99999999999", "-r: expected a whole number >= 1, got '99999999999'"},
        {"-F fast", "-F: expected a whole number > 0, got 'fast'"},
        {"-F 200000", "-F 200000: at most 100000"},
        {"--count -3", "--count: expected a whole number >= 1, got '-3'"},
        {"--small 4", "--small: expected a whole number from 8 to 64, got '4'"},
        {"--small 65", "--small: expected a whole number from 8 to 64, got '65'"},
        {"--timeout 0", "--timeout: expected a number of seconds > 0, got '0'"},
        {"--timeout soon", "--timeout: expected a number of seconds > 0, got 'soon'"},
        {"--timeout nan", "--timeout: expected a number of seconds > 0, got 'nan'"},
        {"--timeout 7200", "--timeout 7200: at most 3600"},
        {"-f html", "-f: expected text, markdown or json, got 'html'"},
        {"--format=", "--format: expected text, markdown or json, got ''"},
        {"-e a,,b", "-e: empty name in the list 'a,,b'"},
        {"--events ,", "--events: empty name in the list ','"},
        {"-t bad", "-t: the callback says no to 'bad'"},
        {"--sample=0", "--sample: expected a whole number from 1 to 1000, got '0'"},
        {"--repeat", "option '--repeat' needs a value; see 'perfgate t --help'"},
        {"-r", "option '-r' needs a value; see 'perfgate t --help'"},
        {"--verbose=yes", "option '--verbose' takes no value; see 'perfgate t --help'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        vals v;
        pg_opt_args a;
        char line[128];
        snprintf(line, sizeof line, "%s", cases[i].line);
        int rc = parse(&v, &a, &cmd, line);
        if (rc != PG_EINVAL)
            fprintf(stderr, "case '%s': rc %d\n", cases[i].line, rc);
        CHECK_EQ_INT(rc, PG_EINVAL);
        CHECK_STR(pg_error_last(), cases[i].msg);
        pg_opt_args_free(&a);
    }
}

/* A LIST's check (--pass-env's): each argument checked before it is added;
 * one refused adds nothing, and is said in the check's words. */
static int no_x(const pg_opt *opt, const char *name, const char *arg)
{
    (void)opt;
    return strchr(arg, 'x') ? pg_error_set(PG_EINVAL, "%s: '%s' has an x", name, arg) : 0;
}

static int parse_checked(char **list, pg_opt_args *a, char *line)
{
    char *argv[16] = {"t"};
    int argc = 1;
    for (char *tok = strtok(line, " "); tok && argc < 15; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    *list = NULL;
    const pg_opt opts[] = {PG_OPT_LIST(0, "names", "LIST", "names", list, .cb = no_x), PG_OPT_END()};
    pg_error_clear();
    return pg_opt_parse(a, &cmd, opts, argc, argv);
}

static void test_list_check(void)
{
    char line[64], *list;
    pg_opt_args a;
    CHECK_EQ_INT(parse_checked(&list, &a, strcpy(line, "--names a --names b,c")), 0);
    CHECK_STR(list, "a,b,c");
    pg_opt_args_free(&a);
    CHECK_EQ_INT(parse_checked(&list, &a, strcpy(line, "--names a --names b,xy")), PG_EINVAL);
    CHECK_STR(pg_error_last(), "--names: 'b,xy' has an x");
    CHECK_STR(list, "a");
    pg_opt_args_free(&a);
    CHECK_EQ_INT(parse_checked(&list, &a, strcpy(line, "--names x,")), PG_EINVAL);
    CHECK_STR(pg_error_last(), "--names: 'x,' has an x");     /* the check comes first */
    pg_opt_args_free(&a);
    CHECK_EQ_INT(parse_checked(&list, &a, strcpy(line, "--names a,,b")), PG_EINVAL);
    CHECK_STR(pg_error_last(), "--names: empty name in the list 'a,,b'");
    pg_opt_args_free(&a);
}

static void test_unknown(void)
{
    vals v;
    pg_opt_args a;
    CHECK_EQ_INT(PARSE(&v, &a, &cmd, "--frobnicate"), PG_EINVAL);
    CHECK_STR(pg_error_last(), "unknown option '--frobnicate'; see 'perfgate t --help'");
    CHECK_EQ_INT(PARSE(&v, &a, &cmd, "--repaet 3"), PG_EINVAL);
    CHECK_STR(pg_error_last(), "unknown option '--repaet' (did you mean '--repeat'?); see 'perfgate t --help'");
    CHECK_EQ_INT(PARSE(&v, &a, &cmd, "--verbsoe"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "(did you mean '--verbose'?)");
    CHECK_EQ_INT(PARSE(&v, &a, &cmd, "--x"), PG_EINVAL);        /* too short to guess */
    CHECK_STR(pg_error_last(), "unknown option '--x'; see 'perfgate t --help'");
    CHECK_EQ_INT(PARSE(&v, &a, &cmd, "-x"), PG_EINVAL);
    CHECK_STR(pg_error_last(), "unknown option '-x'; see 'perfgate t --help'");
    CHECK_EQ_INT(PARSE(&v, &a, &cmd, "--s"), PG_EINVAL);
    CHECK_STR(pg_error_last(), "option '--s' is ambiguous (--small, --sample, --store-nothing); see 'perfgate t --help'");
    pg_opt_args_free(&a);
}

static void test_operands(void)
{
    vals v;
    pg_opt_args a;
    /* Options after operands, '-' as an operand, "--" ends the options. */
    CHECK_EQ_INT(PARSE(&v, &a, &cmd, "A -v - B -- -r C"), 0);
    CHECK_EQ_INT(v.flag, 1);
    CHECK_EQ_INT(v.num, 0);
    CHECK_EQ_INT(a.nargs, 5);
    CHECK_STR(a.args[0], "A");
    CHECK_STR(a.args[1], "-");
    CHECK_STR(a.args[2], "B");
    CHECK_STR(a.args[3], "-r");
    CHECK_STR(a.args[4], "C");
    CHECK_EQ_INT(a.dashdash, 1);
    CHECK_EQ_INT(a.nrest, 0);
    pg_opt_args_free(&a);
    /* A command of its own after "--", options and all. */
    CHECK_EQ_INT(PARSE(&v, &a, &cmd_rest, "P -r 2 -- prog -v x"), 0);
    CHECK_EQ_INT(v.num, 2);
    CHECK_EQ_INT(v.flag, 0);
    CHECK_EQ_INT(a.nargs, 1);
    CHECK_STR(a.args[0], "P");
    CHECK_EQ_INT(a.nrest, 3);
    CHECK_STR(a.rest[0], "prog");
    CHECK_STR(a.rest[1], "-v");
    CHECK_STR(a.rest[2], "x");
    pg_opt_args_free(&a);
    CHECK_EQ_INT(PARSE(&v, &a, &cmd_rest, "--"), 0);
    CHECK_EQ_INT(a.dashdash, 1);
    CHECK_EQ_INT(a.nrest, 0);
    pg_opt_args_free(&a);
}

static char *help_of(const pg_opt_cmd *c)
{
    vals v;
    const pg_opt opts[] = TABLE(&v);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pg_opt_usage(f, c, opts);
    fclose(f);
    return text;
}

static void test_help(void)
{
    char *h = help_of(&cmd);
    CHECK(!strncmp(h, "usage: perfgate t [OPTIONS] ARG\n\n", 33));
    /* Every option of the table, in the table's order, aligned in one column. */
    CHECK_CONTAINS(h, "\n  -v, --verbose          say more\n");
    CHECK_CONTAINS(h, "\n      --no-thing         turn it off\n");
    CHECK_CONTAINS(h, "\n  -r, --repeat N         runs\n");
    CHECK_CONTAINS(h, "\n      --timeout SEC      seconds\n                         second line\n");
    CHECK_CONTAINS(h, "\n  -t, --threshold M=PCT  a rule\n");
    CHECK_CONTAINS(h, "\n      --sample[=HZ]      also sample\n");
    CHECK_CONTAINS(h, "\n      --a-very-long-option-name\n                         help on the next line\n");
    CHECK_CONTAINS(h, "\n  -h, --help             this text\n\nExit status: 0.\n");
    const char *names[] = {"--verbose", "--no-thing", "--repeat", "--freq", "--count", "--small", "--timeout", "--output",
                           "--format", "--events", "--threshold", "--sample", "--store-nothing", "--help"};
    const char *prev = h;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *at = strstr(prev, names[i]);
        CHECK(at != NULL);
        if (at)
            prev = at;
    }
    free(h);

    /* -h and --help print it and stop. */
    vals v;
    pg_opt_args a;
    fflush(stdout);
    FILE *saved = stdout;
    char *out = NULL;
    size_t len = 0;
    stdout = open_memstream(&out, &len);
    int rc1 = PARSE(&v, &a, &cmd, "-v --help -r bad");
    pg_opt_args_free(&a);
    int rc2 = PARSE(&v, &a, &cmd, "-vh");
    pg_opt_args_free(&a);
    fclose(stdout);
    stdout = saved;
    CHECK_EQ_INT(rc1, 1);
    CHECK_EQ_INT(rc2, 1);
    CHECK_CONTAINS(out, "usage: perfgate t");
    CHECK_CONTAINS(out, "  -h, --help");
    free(out);
}

/* An option renamed: the old spelling still sets the value, in full only,
 * with a note on stderr; help and suggestions know only the new name. */
static int parse_renamed(const char **manifest, const char **bench, char **err, const char *line)
{
    static char *argv[16];
    static char buf[256];
    int argc = 0;
    argv[argc++] = "t";
    snprintf(buf, sizeof buf, "%s", line);
    for (char *tok = strtok(buf, " "); tok && argc < 15; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    *manifest = *bench = NULL;
    const pg_opt opts[] = {
        PG_OPT_STRING(0, "manifest", "PATH", "the manifest", manifest),
        PG_OPT_STRING(0, "bench-dir", "PATH", NULL, manifest, .renamed = "manifest"),
        PG_OPT_STRING(0, "benchmark", "NAME", "one benchmark", bench),
        PG_OPT_STRING(0, "bench", "NAME", NULL, bench, .renamed = "benchmark"),
        PG_OPT_END(),
    };
    pg_opt_args a;
    size_t len = 0;
    fflush(stderr);
    FILE *saved = stderr;
    stderr = open_memstream(err, &len);
    pg_error_clear();
    int rc = pg_opt_parse(&a, &cmd, opts, argc, argv);
    fclose(stderr);
    stderr = saved;
    pg_opt_args_free(&a);
    return rc;
}

static void test_renamed(void)
{
    const char *m, *b;
    char *err = NULL;
    CHECK_EQ_INT(parse_renamed(&m, &b, &err, "--bench-dir d --bench x"), 0);
    CHECK_STR(m ? m : "", "d");
    CHECK_STR(b ? b : "", "x");
    CHECK_CONTAINS(err, "note: '--bench-dir' is spelt '--manifest' now (the old name still works, for now; see "
                        "'perfgate t --help')\n");
    CHECK_CONTAINS(err, "note: '--bench' is spelt '--benchmark' now");
    free(err);
    CHECK_EQ_INT(parse_renamed(&m, &b, &err, "--manifest d --benchmark=x"), 0);
    CHECK_STR(err, "");        /* the new names say nothing */
    free(err);
    /* A prefix is the new name's: --ben is --benchmark, not ambiguous with the old spellings. */
    CHECK_EQ_INT(parse_renamed(&m, &b, &err, "--ben y"), 0);
    CHECK_STR(b ? b : "", "y");
    CHECK_STR(err, "");
    free(err);
    CHECK_EQ_INT(parse_renamed(&m, &b, &err, "--bench-d y"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "unknown option '--bench-d'");
    free(err);
    /* Help lists the new names only. */
    const pg_opt opts[] = {
        PG_OPT_STRING(0, "manifest", "PATH", "the manifest", &m),
        PG_OPT_STRING(0, "bench-dir", "PATH", NULL, &m, .renamed = "manifest"),
        PG_OPT_END(),
    };
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pg_opt_usage(f, &cmd, opts);
    fclose(f);
    CHECK_CONTAINS(text, "--manifest PATH");
    CHECK(!strstr(text, "bench-dir"));
    free(text);
}

int main(void)
{
    test_kinds();
    test_bad_values();
    test_list_check();
    test_unknown();
    test_operands();
    test_help();
    test_renamed();
    return pg_check_done();
}
