/* harness/cli/explain.c — see explain.h. Reads the stacks files and writes the
 * SVGs; what goes into them is report/explain.h's. */
#include "harness/cli/explain.h"
#include "report/explain.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/folded.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>

/* Reads both sides' stacks; a file that cannot be read is reported and skipped. */
static int load_pair(pg_folded **fa, pg_folded **fb, const pg_bench_cmp *b)
{
    *fa = *fb = NULL;
    if (pg_folded_new(fa) < 0 || pg_folded_new(fb) < 0 || pg_folded_read_file(*fa, b->stacks_a) < 0 ||
        pg_folded_read_file(*fb, b->stacks_b) < 0) {
        pg_text_warn("note: %s: no function breakdown: %s", b->name, pg_error_last());
        pg_folded_free(*fa);
        pg_folded_free(*fb);
        *fa = *fb = NULL;
        return -1;
    }
    return 0;
}

/* The benchmark's two differential flamegraphs into `dir`. */
static int diffs_of(size_t *written, const pg_comparison *c, const pg_bench_cmp *b, pg_folded *fa, pg_folded *fb,
                    const char *dir, const char *exact)
{
    char name[PG_SAFE_NAME_SIZE], path[4096 + 300];
    pg_path_safe_name(name, b->name);
    int rc = pg_mkdirs(dir);
    for (int reverse = 0; reverse <= 1 && rc == 0; reverse++) {
        char *svg = NULL;
        size_t len = 0;
        rc = pg_explain_diff_svg(&svg, &len, c, b, fa, fb, exact, reverse);
        if (rc == PG_EINVAL) {
            /* A side without samples: nothing to draw, not a failure of compare. */
            pg_text_warn("note: %s: no differential flamegraph: %s", b->name, pg_error_last());
            return 0;
        }
        snprintf(path, sizeof path, "%s/%s.%s.svg", dir, name, reverse ? "diff-reverse" : "diff");
        if (rc == 0)
            rc = pg_file_write_atomic(path, svg, len);
        free(svg);
        *written += rc == 0;
    }
    return rc;
}

int pg_explain(pg_comparison *c, size_t top, const char *dir, size_t *written)
{
    *written = 0;
    const char *exact = pg_explain_exact(c);
    int rc = 0;
    for (size_t i = 0; i < c->nbench && rc == 0; i++) {
        pg_bench_cmp *b = &c->bench[i];
        pg_folded *fa, *fb;
        /* Each side's stacks are read once, for the table and the flamegraphs. */
        if (!pg_explain_wanted(b) || load_pair(&fa, &fb, b) < 0)
            continue;
        rc = pg_explain_funcs(b, fa, fb, top, exact);
        if (rc == 0 && dir && b->verdict == PG_VERDICT_REGRESSED)
            rc = diffs_of(written, c, b, fa, fb, dir, exact);
        pg_folded_free(fa);
        pg_folded_free(fb);
    }
    return rc;
}
