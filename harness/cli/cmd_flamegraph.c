/* harness/cli/cmd_flamegraph.c — `perfgate flamegraph`: folded stacks to an SVG. */
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "report/flamegraph.h"
#include "report/profile_out.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/folded.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate flamegraph",
    .usage = "usage: perfgate flamegraph [OPTIONS] FOLDED\n"
             "       perfgate flamegraph --diff [OPTIONS] BEFORE AFTER\n"
             "       perfgate flamegraph --output-format pprof|speedscope FOLDED -o OUT\n"
             "\n"
             "Draw folded stacks (one 'root;...;leaf COUNT' line per stack, as written by\n"
             "perfgate record --folded, stackcollapse-*.pl or inferno-collapse-*) as an\n"
             "interactive flamegraph SVG: click to zoom, Ctrl-F or Search to highlight.\n"
             "FOLDED may be '-' for standard input.\n"
             "\n"
             "With --diff, a differential flamegraph: widths from AFTER, colour from the\n"
             "change of each frame's self cost (red grew, blue shrank), BEFORE scaled to\n"
             "AFTER's total unless --raw.\n"
             "\n"
             "--output-format (or -o's extension: .pb.gz, .speedscope.json) converts the\n"
             "stacks to a pprof profile or a speedscope file instead (docs/flamegraph.md).\n",
    .footer = "Exit status: 0 written, 2 bad arguments or input (nothing written).\n",
};

static int load(pg_folded **out, const char *path, int *stdin_used)
{
    int rc = pg_folded_new(out);
    if (rc < 0)
        return rc;
    if (strcmp(path, "-") == 0 && (*stdin_used)++)
        return pg_error_set(PG_EINVAL, "standard input ('-') can be read only once");
    return pg_folded_read_path(*out, path);
}

/* --minwidth: a percentage, or pixels with "px". */
typedef struct min_width {
    double value;
    int px;
} min_width;

static int parse_minwidth(const pg_opt *opt, const char *name, const char *s)
{
    double *pct = &((min_width *)opt->dest)->value;
    int *px = &((min_width *)opt->dest)->px;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    *px = 0;
    if (end != s && strcmp(end, "px") == 0)
        *px = 1;
    else if (end != s && *end == '%' && end[1] == '\0')
        ;
    else if (end == s || *end)
        return pg_error_set(PG_EINVAL, "--minwidth: expected a percentage (0.1) or pixels (0.5px), got '%s'", s);
    if (errno || !isfinite(v) || v < 0 || (!*px && v > 100))
        return pg_error_set(PG_EINVAL, "--minwidth: out of range: '%s'", s);
    *pct = v;
    return 0;
}

/* The folded file (two with --diff) drawn or encoded, to `output` or stdout. */
static int draw(char **args, int diff, int format, const char *output, const pg_flamegraph_opts *o)
{
    pg_folded *a = NULL, *b = NULL;
    int stdin_used = 0;
    char *svg = NULL;
    size_t len = 0;
    const char *what = args[diff ? 1 : 0];
    int rc = load(&a, args[0], &stdin_used);
    if (rc == 0 && diff)
        rc = load(&b, args[1], &stdin_used);
    if (rc == 0) {
        rc = diff ? pg_flamegraph_render_diff(&svg, &len, a, b, o) : pg_profile_encode(&svg, &len, format, a, o);
        if (rc == PG_EINVAL)
            pg_error_wrap(rc, "%s", diff && o->reverse ? args[0] : what);
    }
    if (rc == 0) {
        if (output)
            rc = pg_file_write_atomic(output, svg, len);
        else if (fwrite(svg, 1, len, stdout) != len || fflush(stdout) != 0)
            rc = pg_error_errno(PG_EIO, "cannot write to standard output");
    }
    free(svg);
    pg_folded_free(a);
    pg_folded_free(b);
    return rc;
}

int pg_cmd_flamegraph(pg_ctx *ctx, int argc, char **argv)
{
    pg_flamegraph_opts o;
    pg_flamegraph_opts_init(&o);
    const char *output = NULL;
    int diff = 0, format = PG_PROFILE_SVG, format_given = 0, status;
    min_width mw = {.value = o.min_width_pct};
    const pg_opt opts[] = {
        PG_OPT_STRING('o', "output", "FILE", "write to FILE (default: standard output)", &output),
        PG_OPT_CHOICE(0, "output-format", "F", "svg, pprof (gzip'd profile.proto) or speedscope (JSON);\n"
                      "default: by -o's extension (.pb.gz, .speedscope.json), else svg", &format,
                      pg_profile_format_names, .seen = &format_given),
        PG_OPT_STRING(0, "title", "TEXT", "title (default \"Flame Graph\")", &o.title),
        PG_OPT_STRING(0, "subtitle", "TEXT", "a second line under the title", &o.subtitle),
        PG_OPT_STRING(0, "unit", "NAME", "what the counts are (default: samples)", &o.unit),
        PG_OPT_INT(0, "width", "PX", "image width in pixels (default 1200)", &o.width, 100, 100000,
                   .what = "pixels between 100 and 100000"),
        PG_OPT_CALLBACK(0, "minwidth", "W", "leave out frames narrower than W percent of the total\n"
                        "(default 0.1; 0 keeps all), or W pixels as 'Wpx'", &mw, parse_minwidth),
        PG_OPT_FLAG(0, "diff", "differential flamegraph of BEFORE and AFTER", &diff),
        PG_OPT_FLAG(0, "reverse", "with --diff: widths from BEFORE, so vanished code shows", &o.reverse),
        PG_OPT_SET_INT(0, "raw", "with --diff: compare raw counts, do not scale BEFORE", &o.normalize, 0),
        PG_OPT_END(),
    };
    if (pg_cmd_parse(&status, ctx, &spec, opts, argc, argv))
        return status;
    char **args = ctx->args.args;
    /* A pixel width is a share of the frame area, which is the image less its margins. */
    o.min_width_pct = mw.px ? mw.value * 100.0 / (o.width - 20) : mw.value;
    if (mw.px && o.min_width_pct > 100)
        return pg_die("--minwidth %gpx: wider than the %d px the frames have; nothing would be drawn",
                      mw.value, o.width - 20);
    int nargs = ctx->args.nargs, want = diff ? 2 : 1;
    if ((o.reverse || !o.normalize) && !diff)
        return pg_die("--reverse and --raw need --diff; see 'perfgate flamegraph --help'");
    if (!format_given)
        format = pg_profile_format_of(output);
    if (format == PG_PROFILE_SPEEDSCOPE && !o.title && nargs == 1)
        o.title = args[0];      /* the profile's name in speedscope */
    if (diff && format != PG_PROFILE_SVG)
        return pg_die("--diff draws an SVG: a %s file holds one profile", pg_profile_format_names[format]);
    if (nargs != want && diff)
        return pg_die("--diff needs two folded files, BEFORE and AFTER; see 'perfgate flamegraph --help'");
    if (nargs == 0)
        return pg_die("no folded file given ('-' reads standard input); see 'perfgate flamegraph --help'");
    if (nargs != want)
        return pg_die("one folded file expected, got %d; see 'perfgate flamegraph --help'", nargs);

    return draw(args, diff, format, output, &o) < 0 ? pg_die_last() : PG_EXIT_OK;
}
