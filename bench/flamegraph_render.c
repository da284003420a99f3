/* bench/flamegraph_render.c — where the time of a big flamegraph goes.
 * Not one of the measured workloads (perfgate.json); run by
 * bench/tools/flamegraph-render.sh:
 *
 *     flamegraph_render FILE.folded [REPEATS]
 *
 * Prints, best of REPEATS (default 3), the wall time of: reading and parsing
 * (hash-merging) the file, sorting the stacks, and rendering the SVG with the
 * default options, and the rate in folded lines per second. */
#include "report/flamegraph.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/folded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: flamegraph_render FILE.folded [REPEATS]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    char *text;
    size_t len;
    if (pg_file_read(&text, &len, argv[1]) < 0) {
        fprintf(stderr, "flamegraph_render: %s\n", pg_error_last());
        return 2;
    }
    double best[3] = {1e9, 1e9, 1e9};
    size_t lines = 0, svglen = 0;
    for (int r = 0; r < (reps > 0 ? reps : 1); r++) {
        pg_folded *f;
        pg_folded_new(&f);
        double t0 = now();
        if (pg_folded_parse(f, text, len, argv[1]) < 0) {
            fprintf(stderr, "flamegraph_render: %s\n", pg_error_last());
            return 2;
        }
        double t1 = now();
        pg_folded_entries(f);
        double t2 = now();
        char *svg;
        if (pg_flamegraph_render(&svg, &svglen, f, NULL) < 0) {
            fprintf(stderr, "flamegraph_render: %s\n", pg_error_last());
            return 2;
        }
        double t3 = now();
        double t[3] = {t1 - t0, t2 - t1, t3 - t2};
        for (int i = 0; i < 3; i++)
            if (t[i] < best[i])
                best[i] = t[i];
        lines = pg_folded_count(f);
        free(svg);
        pg_folded_free(f);
    }
    free(text);
    const char *what[3] = {"parse + merge (hash table)", "sort stacks", "render SVG (min width 0.1%)"};
    double total = 0;
    for (int i = 0; i < 3; i++) {
        printf("  %-30s %7.3f s\n", what[i], best[i]);
        total += best[i];
    }
    printf("  %-30s %7.3f s  %.0f lines/s  (%zu distinct stacks, %zu KiB of SVG)\n", "in process, total", total,
           (double)lines / total, lines, svglen / 1024);
    return 0;
}
