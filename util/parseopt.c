#include "util/parseopt.h"
#include "util/error.h"
#include "util/suggest.h"
#include "util/text.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int pg_opt_whole(long long *out, const char *s, long long min, long long max)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* ---- values ---------------------------------------------------------------- */

static void int_type_range(pg_opt_width w, long long *lo, long long *hi)
{
    switch (w) {
    case PG_OPT_W_INT: *lo = INT_MIN; *hi = INT_MAX; break;
    case PG_OPT_W_UINT: *lo = 0; *hi = UINT_MAX; break;
    case PG_OPT_W_LONG: *lo = LONG_MIN; *hi = LONG_MAX; break;
    case PG_OPT_W_ULONG: case PG_OPT_W_ULLONG: *lo = 0; *hi = LLONG_MAX; break;
    default: *lo = LLONG_MIN; *hi = LLONG_MAX; break;
    }
}

static void int_store(const pg_opt *o, long long v)
{
    switch (o->width) {
    case PG_OPT_W_INT: *(int *)o->dest = (int)v; break;
    case PG_OPT_W_UINT: *(unsigned *)o->dest = (unsigned)v; break;
    case PG_OPT_W_LONG: *(long *)o->dest = (long)v; break;
    case PG_OPT_W_ULONG: *(unsigned long *)o->dest = (unsigned long)v; break;
    case PG_OPT_W_LLONG: *(long long *)o->dest = v; break;
    case PG_OPT_W_ULLONG: *(unsigned long long *)o->dest = (unsigned long long)v; break;
    }
}

/* A value that is no number or below the range says what was expected; one
 * above a range the option describes in its own words says the limit. */
static int set_int(const pg_opt *o, const char *name, const char *arg)
{
    long long tlo, thi;
    int_type_range(o->width, &tlo, &thi);
    long long lo = o->min > tlo ? o->min : tlo, hi = o->max < thi ? o->max : thi;
    char what[96];
    if (o->what)
        snprintf(what, sizeof what, "%s", o->what);
    else if (hi == thi)
        snprintf(what, sizeof what, "a whole number >= %lld", lo);
    else
        snprintf(what, sizeof what, "a whole number from %lld to %lld", lo, hi);
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    int too_big = end != arg && !*end && (errno == ERANGE ? v > 0 : v > hi);
    if (too_big && o->what)
        return pg_error_set(PG_EINVAL, "%s %s: at most %lld", name, arg, hi);
    if (end == arg || *end || errno || v < lo || v > hi)
        return pg_error_set(PG_EINVAL, "%s: expected %s, got '%s'", name, what, arg);
    int_store(o, v);
    return 0;
}

static int set_double(const pg_opt *o, const char *name, const char *arg)
{
    char *end;
    double v = strtod(arg, &end);
    if (end != arg && !*end && isfinite(v) && v > o->dmax)
        return pg_error_set(PG_EINVAL, "%s %s: at most %g", name, arg, o->dmax);
    if (end == arg || *end || !isfinite(v) || !(v > o->dmin)) {
        if (o->what)
            return pg_error_set(PG_EINVAL, "%s: expected %s, got '%s'", name, o->what, arg);
        return pg_error_set(PG_EINVAL, "%s: expected a number > %g, got '%s'", name, o->dmin, arg);
    }
    *(double *)o->dest = v;
    return 0;
}

/* Whether `arg` is `choice` or one of its '|'-separated aliases. */
static int choice_matches(const char *choice, const char *arg)
{
    size_t n = strlen(arg);
    for (const char *p = choice; p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, arg, n))
            return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

static int set_choice(const pg_opt *o, const char *name, const char *arg)
{
    size_t n = 0;
    for (; o->choices[n]; n++) {
        if (choice_matches(o->choices[n], arg)) {
            *(int *)o->dest = (int)n;
            return 0;
        }
    }
    char list[256] = "";
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(list);
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        snprintf(list + l, sizeof list - l, "%s%.*s", sep, (int)strcspn(o->choices[i], "|"), o->choices[i]);
    }
    return pg_error_set(PG_EINVAL, "%s: expected %s, got '%s'", name, list, arg);
}

static int owned_index(const pg_opt_args *a, const char *p)
{
    for (size_t i = 0; i < a->nowned; i++)
        if (a->owned[i] == p)
            return (int)i;
    return -1;
}

/* A list given again grows: "-e a -e b,c" is "a,b,c". */
static int set_list(pg_opt_args *a, const pg_opt *o, const char *name, const char *arg)
{
    int rc = o->cb ? o->cb(o, name, arg) : 0;
    if (rc < 0)
        return rc;
    for (const char *p = arg;; p++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (strspn(p, " \t") >= len)
            return pg_error_set(PG_EINVAL, "%s: empty name in the list '%s'", name, arg);
        if (!comma)
            break;
        p = comma;
    }
    char **dest = o->dest;
    int k = *dest ? owned_index(a, *dest) : -1;
    size_t old = k >= 0 ? strlen(*dest) + 1 : 0;
    if (k < 0) {
        char **grown = realloc(a->owned, (a->nowned + 1) * sizeof *grown);
        if (!grown)
            return pg_error_set(PG_ENOMEM, "out of memory");
        a->owned = grown;
        a->owned[k = (int)a->nowned++] = NULL;
    }
    char *s = realloc(a->owned[k], old + strlen(arg) + 1);
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if (old)
        s[old - 1] = ',';
    strcpy(s + old, arg);
    a->owned[k] = *dest = s;
    return 0;
}

static int set_value(pg_opt_args *a, const pg_opt *o, const char *name, const char *arg)
{
    if (o->seen)
        *o->seen = 1;
    if (!arg && o->kind != PG_OPT_KIND_FLAG && o->kind != PG_OPT_KIND_CALLBACK)
        return 0;       /* an optional argument, absent */
    switch (o->kind) {
    case PG_OPT_KIND_FLAG: *(int *)o->dest = o->value; return 0;
    case PG_OPT_KIND_INT: return set_int(o, name, arg);
    case PG_OPT_KIND_DOUBLE: return set_double(o, name, arg);
    case PG_OPT_KIND_STRING: *(const char **)o->dest = arg; return 0;
    case PG_OPT_KIND_CHOICE: return set_choice(o, name, arg);
    case PG_OPT_KIND_LIST: return set_list(a, o, name, arg);
    case PG_OPT_KIND_CALLBACK: return o->cb(o, name, arg);
    default: return pg_error_set(PG_ERROR, "%s: bad option table", name);
    }
}

/* ---- matching -------------------------------------------------------------- */

static const pg_opt HELP = {.kind = PG_OPT_KIND_FLAG, .short_name = 'h', .long_name = "help", .help = "this text"};

static int takes_arg(const pg_opt *o) { return o->kind != PG_OPT_KIND_FLAG; }

/* The long name closest to the unknown `body` (up to len), NULL when none is
 * close: fewer than 3 edits, and not a rewrite of a word that short. */
static const char *closest_long(const pg_opt *opts, const char *body, size_t len)
{
    char typed[64];
    snprintf(typed, sizeof typed, "%.*s", (int)(len < 63 ? len : 63), body);
    pg_suggest s;
    pg_suggest_init(&s, typed);
    for (const pg_opt *o = opts;; o++) {
        if (o->kind == PG_OPT_KIND_END)
            o = &HELP;
        if (!o->renamed)
            pg_suggest_offer(&s, o->long_name);
        if (o == &HELP)
            break;
    }
    const char *best = pg_suggest_best(&s);
    for (const pg_opt *o = opts; best; o++) {   /* the table's string, not the suggestion's copy */
        if (o->kind == PG_OPT_KIND_END)
            o = &HELP;
        if (!strcmp(o->long_name, best))
            return o->long_name;
    }
    return NULL;
}

/* The option `body` (up to len) names: exactly, or as the prefix of only one. */
static int find_long(const pg_opt **out, const pg_opt *opts, const char *body, size_t len, const pg_opt_cmd *cmd)
{
    const pg_opt *prefix = NULL;
    int nprefix = 0;
    char names[256] = "";
    for (const pg_opt *o = opts;; o++) {
        if (o->kind == PG_OPT_KIND_END)
            o = &HELP;
        if (strlen(o->long_name) == len && !strncmp(o->long_name, body, len)) {
            *out = o;
            return 0;
        }
        if (!o->renamed && !strncmp(o->long_name, body, len)) {
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s--%s", nprefix ? ", " : "", o->long_name);
            prefix = o;
            nprefix++;
        }
        if (o == &HELP)
            break;
    }
    if (nprefix == 1) {
        *out = prefix;
        return 0;
    }
    if (nprefix > 1)
        return pg_error_set(PG_EINVAL, "option '--%.*s' is ambiguous (%s); see '%s --help'", (int)len, body, names, cmd->prog);
    const char *best = closest_long(opts, body, len);
    if (best)
        return pg_error_set(PG_EINVAL, "unknown option '--%.*s' (did you mean '--%s'?); see '%s --help'", (int)len, body, best,
                            cmd->prog);
    return pg_error_set(PG_EINVAL, "unknown option '--%.*s'; see '%s --help'", (int)len, body, cmd->prog);
}

static const pg_opt *find_short(const pg_opt *opts, char c)
{
    for (const pg_opt *o = opts; o->kind != PG_OPT_KIND_END; o++)
        if (o->short_name == c)
            return o;
    return c == 'h' ? &HELP : NULL;
}

/* One "--name[=value]" at argv[*i]; may take argv[*i + 1] as its value. */
static int parse_long(pg_opt_args *a, const pg_opt_cmd *cmd, const pg_opt *opts, int *i, int argc, char **argv)
{
    const char *body = argv[*i] + 2, *eq = strchr(body, '=');
    size_t len = eq ? (size_t)(eq - body) : strlen(body);
    const pg_opt *o = NULL;
    int rc = find_long(&o, opts, body, len, cmd);
    if (rc < 0)
        return rc;
    if (o == &HELP)
        return 1;
    if (o->renamed)
        pg_text_warn("note: '--%s' is spelt '--%s' now (the old name still works, for now; see '%s --help')",
                     o->long_name, o->renamed, cmd->prog);
    char name[80];
    snprintf(name, sizeof name, "--%s", o->long_name);
    const char *arg = NULL;
    if (!takes_arg(o) && eq)
        return pg_error_set(PG_EINVAL, "option '%s' takes no value; see '%s --help'", name, cmd->prog);
    if (takes_arg(o)) {
        if (eq)
            arg = eq + 1;
        else if (!(o->flags & PG_OPT_OPTARG) && *i + 1 < argc)
            arg = argv[++*i];
        else if (!(o->flags & PG_OPT_OPTARG))
            return pg_error_set(PG_EINVAL, "option '%s' needs a value; see '%s --help'", name, cmd->prog);
    }
    return set_value(a, o, name, arg);
}

/* A cluster of short options at argv[*i]: "-v", "-vr5", "-r 5". */
static int parse_short(pg_opt_args *a, const pg_opt_cmd *cmd, const pg_opt *opts, int *i, int argc, char **argv)
{
    const char *s = argv[*i];
    for (size_t j = 1; s[j]; j++) {
        const pg_opt *o = find_short(opts, s[j]);
        if (!o)
            return pg_error_set(PG_EINVAL, "unknown option '-%c'; see '%s --help'", s[j], cmd->prog);
        if (o == &HELP)
            return 1;
        char name[3] = {'-', s[j], 0};
        const char *arg = NULL;
        if (takes_arg(o)) {
            if (s[j + 1])
                arg = s + j + 1;
            else if (!(o->flags & PG_OPT_OPTARG) && *i + 1 < argc)
                arg = argv[++*i];
            else if (!(o->flags & PG_OPT_OPTARG))
                return pg_error_set(PG_EINVAL, "option '%s' needs a value; see '%s --help'", name, cmd->prog);
        }
        int rc = set_value(a, o, name, arg);
        if (rc < 0 || arg)
            return rc;
    }
    return 0;
}

int pg_opt_parse(pg_opt_args *out, const pg_opt_cmd *cmd, const pg_opt *opts, int argc, char **argv)
{
    memset(out, 0, sizeof *out);
    /* Operands are moved down to argv[1..] as they come: never past what was read. */
    int n = 0, i = 1, ended = 0;
    for (; i < argc; i++) {
        const char *s = argv[i];
        int rc = 0;
        if (!ended && !strcmp(s, "--")) {
            out->dashdash = 1;
            if (cmd->rest)
                break;
            ended = 1;
            continue;
        }
        if (ended || s[0] != '-' || !s[1])
            argv[1 + n++] = argv[i];
        else if (s[1] == '-')
            rc = parse_long(out, cmd, opts, &i, argc, argv);
        else
            rc = parse_short(out, cmd, opts, &i, argc, argv);
        if (rc > 0) {
            pg_opt_usage(stdout, cmd, opts);
            return 1;
        }
        if (rc < 0)
            return rc;
    }
    out->args = argv + 1;
    out->nargs = n;
    if (i < argc) {
        out->rest = argv + i + 1;
        out->nrest = argc - i - 1;
    }
    return 0;
}

void pg_opt_args_free(pg_opt_args *a)
{
    for (size_t i = 0; i < a->nowned; i++)
        free(a->owned[i]);
    free(a->owned);
    a->owned = NULL;
    a->nowned = 0;
}

/* ---- help ------------------------------------------------------------------- */

enum { HELP_MAX_LEFT = 26 };    /* a longer option puts its help on the next line */

static int left_column(char *buf, size_t len, const pg_opt *o)
{
    char s[4] = "   ";
    if (o->short_name)
        snprintf(s, sizeof s, "-%c,", o->short_name);
    if (!o->argname)
        return snprintf(buf, len, "  %s --%s", s, o->long_name);
    if (o->flags & PG_OPT_OPTARG)
        return snprintf(buf, len, "  %s --%s[=%s]", s, o->long_name, o->argname);
    return snprintf(buf, len, "  %s --%s %s", s, o->long_name, o->argname);
}

static void print_option(FILE *f, const pg_opt *o, int col)
{
    char left[128];
    int n = left_column(left, sizeof left, o);
    fputs(left, f);
    if (n > col - 2) {
        fputc('\n', f);
        n = 0;
    }
    const char *h = o->help ? o->help : "";
    for (int first = 1;; first = 0) {
        const char *nl = strchr(h, '\n');
        fprintf(f, "%*s%.*s\n", first ? col - n : col, "", nl ? (int)(nl - h) : (int)strlen(h), h);
        if (!nl)
            break;
        h = nl + 1;
    }
}

void pg_opt_usage(FILE *f, const pg_opt_cmd *cmd, const pg_opt *opts)
{
    char left[128];
    int col = 0;
    for (const pg_opt *o = opts;; o++) {
        if (o->kind == PG_OPT_KIND_END)
            o = &HELP;
        int n = left_column(left, sizeof left, o);
        if (!o->renamed && n <= HELP_MAX_LEFT && n > col)
            col = n;
        if (o == &HELP)
            break;
    }
    col += 2;
    fputs(cmd->usage, f);
    fputc('\n', f);
    for (const pg_opt *o = opts; o->kind != PG_OPT_KIND_END; o++)
        if (!o->renamed)
            print_option(f, o, col);
    print_option(f, &HELP, col);
    if (cmd->footer)
        fprintf(f, "\n%s", cmd->footer);
}
