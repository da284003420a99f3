/* util/parseopt.h — a command's options from one table (after git's parse-options).
 *
 * A command declares each option once, in an array of pg_opt ended by
 * PG_OPT_END(): long name, short letter, kind of argument, help text and where
 * the value goes. pg_opt_parse reads argv against the table, validating every
 * value, and pg_opt_usage prints the options part of --help from the same
 * table, so parsing and help cannot drift apart.
 *
 * Syntax, as getopt_long's: -v, -r 5, -r5, -vr5, --repeat 5, --repeat=5, a
 * unique prefix of a long name (--rep 5), options and operands in any order,
 * "--" ending the options. -h and --help are built in.
 *
 * An option renamed keeps its old spelling as an entry of its own, the same
 * but for its name and .renamed (the new name): it still works, with a
 * one-line note: PG_OPT_STRING(0, "bench-dir", "PATH", NULL, &o.manifest, .renamed = "manifest").
 *
 * Errors are one line naming the option as the user typed it:
 *     -F: expected a whole number > 0, got 'fast'
 *     unknown option '--repaet' (did you mean '--repeat'?); see 'perfgate run --help'
 */
#ifndef PG_UTIL_PARSEOPT_H
#define PG_UTIL_PARSEOPT_H

#include <stddef.h>
#include <stdio.h>

/* For help texts built from numeric macros: "(default " PG_XSTR(PG_SAMPLE_FREQ_DEFAULT) ")". */
#define PG_STR(x) #x
#define PG_XSTR(x) PG_STR(x)

typedef enum pg_opt_kind {
    PG_OPT_KIND_END = 0,
    PG_OPT_KIND_FLAG,     /* no argument: *(int *)dest = value */
    PG_OPT_KIND_INT,      /* a whole number from min to max, into the integer type of dest */
    PG_OPT_KIND_DOUBLE,   /* a finite number > dmin and <= dmax: *(double *)dest */
    PG_OPT_KIND_STRING,   /* *(const char **)dest = the argument (borrowed from argv) */
    PG_OPT_KIND_CHOICE,   /* one of choices: *(int *)dest = its index */
    PG_OPT_KIND_LIST,     /* comma-separated names, no empty one; repeating the option adds
                             to the list: *(char **)dest = "a,b,c" (owned by pg_opt_args);
                             cb, when set, checks each argument first (and stores nothing) */
    PG_OPT_KIND_CALLBACK, /* cb validates and stores the argument */
} pg_opt_kind;

/* The integer type behind an INT option's dest, from PG_OPT_INT's pointer. */
typedef enum pg_opt_width {
    PG_OPT_W_INT, PG_OPT_W_UINT, PG_OPT_W_LONG, PG_OPT_W_ULONG, PG_OPT_W_LLONG, PG_OPT_W_ULLONG,
} pg_opt_width;

#define PG_OPT_WIDTH_OF(p) _Generic((p), int *: PG_OPT_W_INT, unsigned *: PG_OPT_W_UINT, \
    long *: PG_OPT_W_LONG, unsigned long *: PG_OPT_W_ULONG, long long *: PG_OPT_W_LLONG, \
    unsigned long long *: PG_OPT_W_ULLONG)

enum {
    PG_OPT_OPTARG = 1,    /* the argument is optional and only given as --name=ARG */
};

typedef struct pg_opt pg_opt;

/* A CALLBACK option's parser: `name` is the option as typed ("-t",
 * "--threshold"), `arg` its argument (NULL for an absent optional one).
 * 0, or a negative PG_E* code with the message set (it is printed as is). */
typedef int (*pg_opt_cb)(const pg_opt *opt, const char *name, const char *arg);

struct pg_opt {
    pg_opt_kind kind;
    char short_name;            /* 0: none */
    const char *long_name;      /* without "--" */
    const char *argname;        /* the argument in help ("N", "LIST"); NULL: none */
    const char *help;           /* '\n' starts a continuation line, indented */
    void *dest;
    int flags;                  /* PG_OPT_OPTARG */
    int *seen;                  /* when non-NULL, set to 1 when the option is given */
    int value;                  /* FLAG: what dest is set to */
    long long min, max;         /* INT: the range, both inclusive */
    double dmin, dmax;          /* DOUBLE: dmin < v <= dmax */
    pg_opt_width width;         /* INT: dest's type */
    const char *what;           /* INT, DOUBLE: the "expected WHAT" of the error for a value
                                   that is no number or too small; NULL: said from the range */
    const char *const *choices; /* CHOICE: NULL-terminated; "markdown|md" adds an alias */
    pg_opt_cb cb;               /* CALLBACK; LIST: its check, or NULL */
    const char *renamed;        /* an old spelling kept working: the option's new long name. It
                                   matches only in full (never as a prefix or a suggestion), is
                                   left out of --help, and says once on stderr what to type now */
};

/* dest, checked to point to `type` (a mismatch is a compiler warning). */
#define PG_OPT_DEST(p, type) (1 ? (p) : (type)0)

/* Table entries. Trailing designated initialisers may follow the fixed
 * arguments: PG_OPT_INT('F', "freq", "HZ", "...", &f, 1, 100000, .what = "a whole number > 0"). */
#define PG_OPT_FLAG(s, l, h, p, ...) \
    {.kind = PG_OPT_KIND_FLAG, .short_name = (s), .long_name = (l), .help = (h), .dest = PG_OPT_DEST(p, int *), .value = 1, __VA_ARGS__}
#define PG_OPT_SET_INT(s, l, h, p, v, ...) \
    {.kind = PG_OPT_KIND_FLAG, .short_name = (s), .long_name = (l), .help = (h), .dest = PG_OPT_DEST(p, int *), .value = (v), __VA_ARGS__}
#define PG_OPT_INT(s, l, a, h, p, lo, hi, ...) \
    {.kind = PG_OPT_KIND_INT, .short_name = (s), .long_name = (l), .argname = (a), .help = (h), .dest = (p), \
     .min = (lo), .max = (hi), .width = PG_OPT_WIDTH_OF(p), __VA_ARGS__}
#define PG_OPT_DOUBLE(s, l, a, h, p, lo, hi, ...) \
    {.kind = PG_OPT_KIND_DOUBLE, .short_name = (s), .long_name = (l), .argname = (a), .help = (h), \
     .dest = PG_OPT_DEST(p, double *), .dmin = (lo), .dmax = (hi), __VA_ARGS__}
#define PG_OPT_STRING(s, l, a, h, p, ...) \
    {.kind = PG_OPT_KIND_STRING, .short_name = (s), .long_name = (l), .argname = (a), .help = (h), \
     .dest = PG_OPT_DEST(p, const char **), __VA_ARGS__}
#define PG_OPT_CHOICE(s, l, a, h, p, ch, ...) \
    {.kind = PG_OPT_KIND_CHOICE, .short_name = (s), .long_name = (l), .argname = (a), .help = (h), \
     .dest = PG_OPT_DEST(p, int *), .choices = (ch), __VA_ARGS__}
#define PG_OPT_LIST(s, l, a, h, p, ...) \
    {.kind = PG_OPT_KIND_LIST, .short_name = (s), .long_name = (l), .argname = (a), .help = (h), \
     .dest = PG_OPT_DEST(p, char **), __VA_ARGS__}
#define PG_OPT_CALLBACK(s, l, a, h, p, fn, ...) \
    {.kind = PG_OPT_KIND_CALLBACK, .short_name = (s), .long_name = (l), .argname = (a), .help = (h), \
     .dest = (p), .cb = (fn), __VA_ARGS__}
#define PG_OPT_END() {.kind = PG_OPT_KIND_END}

/* The command an option table belongs to, for help and errors. */
typedef struct pg_opt_cmd {
    const char *prog;           /* "perfgate run": errors say "see 'perfgate run --help'" */
    const char *usage;          /* help before the options: usage line(s) and description */
    const char *footer;         /* help after the options (exit status); NULL: none */
    int rest;                   /* 1: what follows "--" is a command of its own (rest),
                                   0: more operands */
} pg_opt_cmd;

/* What pg_opt_parse leaves besides the options' values. */
typedef struct pg_opt_args {
    char **args;                /* the operands, in order (argv's own strings) */
    int nargs;
    char **rest;                /* with cmd->rest: what follows "--" */
    int nrest;
    int dashdash;               /* "--" was given */
    char **owned;               /* LIST values, freed by pg_opt_args_free */
    size_t nowned;
} pg_opt_args;

/* Parses argv[1..argc) against `opts` (argv[0] is the command's name). argv is
 * reordered in place, as getopt_long does: out->args and out->rest point into it.
 * 0 parsed; 1 -h/--help, the help printed on stdout (exit 0); PG_EINVAL with the
 * message set for a bad option or value; PG_ENOMEM. Call pg_opt_args_free either way. */
int pg_opt_parse(pg_opt_args *out, const pg_opt_cmd *cmd, const pg_opt *opts, int argc, char **argv);
void pg_opt_args_free(pg_opt_args *a);

/* The whole help: cmd->usage, the options of `opts` (and -h), cmd->footer. */
void pg_opt_usage(FILE *f, const pg_opt_cmd *cmd, const pg_opt *opts);

/* `s` as a whole number from min to max (decimal, nothing after it): 0 and
 * *out, or -1 (no message: the caller says what it wanted). */
int pg_opt_whole(long long *out, const char *s, long long min, long long max);

#endif
