/* harness/cmd_flamegraph.c — `perfgate flamegraph`: folded stacks to an SVG. */
#include "harness/commands.h"
#include "report/flamegraph.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/folded.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: perfgate flamegraph [OPTIONS] FOLDED\n"
    "       perfgate flamegraph --diff [OPTIONS] BEFORE AFTER\n"
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
    "  -o, --output FILE    write the SVG to FILE (default: standard output)\n"
    "      --title TEXT     title (default \"Flame Graph\")\n"
    "      --subtitle TEXT  a second line under the title\n"
    "      --unit NAME      what the counts are (default: samples)\n"
    "      --width PX       image width in pixels (default 1200)\n"
    "      --minwidth W     leave out frames narrower than W percent of the total\n"
    "                       (default 0.1; 0 keeps all), or W pixels as 'Wpx'\n"
    "      --diff           differential flamegraph of BEFORE and AFTER\n"
    "      --reverse        with --diff: widths from BEFORE, so vanished code shows\n"
    "      --raw            with --diff: compare raw counts, do not scale BEFORE\n"
    "  -h, --help           this text\n"
    "\n"
    "Exit status: 0 written, 2 bad arguments or input (nothing written).\n";

static int load(pg_folded **out, const char *path, int *stdin_used)
{
    int rc = pg_folded_new(out);
    if (rc < 0)
        return rc;
    if (strcmp(path, "-") != 0)
        return pg_folded_read_file(*out, path);
    if ((*stdin_used)++)
        return pg_error_set(PG_EINVAL, "standard input ('-') can be read only once");
    char *buf;
    size_t n;
    if ((rc = pg_fd_read(&buf, &n, 0, "standard input")) < 0)
        return rc;
    rc = pg_folded_parse(*out, buf, n, "<stdin>");
    free(buf);
    return rc;
}

static int parse_minwidth(double *pct, int *px, const char *s)
{
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

int pg_cmd_flamegraph(int argc, char **argv)
{
    enum { O_TITLE = 256, O_SUBTITLE, O_UNIT, O_WIDTH, O_MINWIDTH, O_DIFF, O_REVERSE, O_RAW };
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"title", required_argument, 0, O_TITLE},
        {"subtitle", required_argument, 0, O_SUBTITLE}, {"unit", required_argument, 0, O_UNIT},
        {"width", required_argument, 0, O_WIDTH}, {"minwidth", required_argument, 0, O_MINWIDTH},
        {"diff", no_argument, 0, O_DIFF}, {"reverse", no_argument, 0, O_REVERSE},
        {"raw", no_argument, 0, O_RAW}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    pg_flamegraph_opts o;
    pg_flamegraph_opts_init(&o);
    const char *output = NULL;
    int diff = 0, minpx = 0, c;
    double minwidth = o.min_width_pct;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 'o': output = optarg; break;
        case O_TITLE: o.title = optarg; break;
        case O_SUBTITLE: o.subtitle = optarg; break;
        case O_UNIT: o.unit = optarg; break;
        case O_WIDTH: {
            long long v;
            if (pg_parse_whole(&v, optarg, 100, 100000) < 0)
                rc = pg_error_set(PG_EINVAL, "--width: expected pixels between 100 and 100000, got '%s'", optarg);
            else
                o.width = (int)v;
            break;
        }
        case O_MINWIDTH: rc = parse_minwidth(&minwidth, &minpx, optarg); break;
        case O_DIFF: diff = 1; break;
        case O_REVERSE: o.reverse = 1; break;
        case O_RAW: o.normalize = 0; break;
        case 'h': fputs(usage_text, stdout); return PG_EXIT_OK;
        case ':': return pg_die("option '%s' needs a value; see 'perfgate flamegraph --help'", argv[optind - 1]);
        default: return pg_die("unknown option '%s'; see 'perfgate flamegraph --help'", argv[optind - 1]);
        }
        if (rc < 0)
            return pg_die_last();
    }
    /* A pixel width is a share of the frame area, which is the image less its margins. */
    o.min_width_pct = minpx ? minwidth * 100.0 / (o.width - 20) : minwidth;
    if (minpx && o.min_width_pct > 100)
        return pg_die("--minwidth %gpx: wider than the %d px the frames have; nothing would be drawn",
                      minwidth, o.width - 20);
    int nargs = argc - optind, want = diff ? 2 : 1;
    if ((o.reverse || !o.normalize) && !diff)
        return pg_die("--reverse and --raw need --diff; see 'perfgate flamegraph --help'");
    if (nargs != want && diff)
        return pg_die("--diff needs two folded files, BEFORE and AFTER; see 'perfgate flamegraph --help'");
    if (nargs == 0)
        return pg_die("no folded file given ('-' reads standard input); see 'perfgate flamegraph --help'");
    if (nargs != want)
        return pg_die("one folded file expected, got %d; see 'perfgate flamegraph --help'", nargs);

    pg_folded *a = NULL, *b = NULL;
    int stdin_used = 0;
    char *svg = NULL;
    size_t len = 0;
    const char *what = argv[optind + want - 1];
    int rc = load(&a, argv[optind], &stdin_used);
    if (rc == 0 && diff)
        rc = load(&b, argv[optind + 1], &stdin_used);
    if (rc == 0) {
        rc = diff ? pg_flamegraph_render_diff(&svg, &len, a, b, &o) : pg_flamegraph_render(&svg, &len, a, &o);
        if (rc == PG_EINVAL)
            pg_error_wrap(rc, "%s", diff && o.reverse ? argv[optind] : what);
    }
    if (rc == 0) {
        if (output)
            rc = pg_file_write_atomic(output, svg, len);
        else if (fwrite(svg, 1, len, stdout) != len || fflush(stdout) != 0)
            rc = pg_error_errno(PG_EIO, "cannot write the SVG to standard output");
    }
    free(svg);
    pg_folded_free(a);
    pg_folded_free(b);
    return rc < 0 ? pg_die_last() : PG_EXIT_OK;
}
