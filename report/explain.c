/* report/explain.c — see explain.h.
 *
 * The per-function deltas and the diff SVGs themselves are computed by
 * report/funcdelta.h and report/flamegraph.h; this file only picks the
 * benchmarks, reads their stacks and names the outputs. */
#include "report/explain.h"
#include "counters/callgrind.h"
#include "report/flamegraph.h"
#include "report/funcdelta.h"
#include "util/folded.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wanted(const pg_bench_cmp *b)
{
    return b->stacks_a && b->stacks_b &&
           (b->verdict == PG_VERDICT_REGRESSED || b->verdict == PG_VERDICT_IMPROVED);
}

/* valgrind stacks carry exact instruction counts: compare them raw. Sampled
 * stacks of runs of different length are normalized to the candidate's total. */
static int exact_counts(const pg_comparison *c)
{
    return !strcmp(c->base->backend, "valgrind") && !strcmp(c->cand->backend, "valgrind");
}

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

/* The benchmark's top `top` self-cost changes into b->funcs. */
static int funcs_of(pg_bench_cmp *b, pg_folded *fa, pg_folded *fb, size_t top, int exact)
{
    pg_funcdelta t;
    int rc = pg_funcdelta_compute(&t, fa, fb, top, !exact);
    if (rc < 0)
        return rc;
    b->funcs = calloc(t.n ? t.n : 1, sizeof *b->funcs);
    b->funcs_unit = strdup(exact ? "instructions" : "samples, baseline scaled to the candidate's total");
    if (!b->funcs || !b->funcs_unit)
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t k = 0; rc == 0 && k < t.n; k++) {
        if (t.rows[k].delta == 0)
            continue;   /* the table is about what changed */
        pg_func_row *r = &b->funcs[b->nfuncs];
        r->name = strdup(t.rows[k].name);
        if (!r->name) {
            rc = pg_error_set(PG_ENOMEM, "out of memory");
            break;
        }
        r->base = t.rows[k].before_scaled;
        r->cand = (double)t.rows[k].after;
        r->delta = t.rows[k].delta;
        b->nfuncs++;
    }
    pg_funcdelta_free(&t);
    return rc;
}

/* The benchmark's two differential flamegraphs into `dir`. */
static int diffs_of(size_t *written, const pg_comparison *c, const pg_bench_cmp *b, pg_folded *fa, pg_folded *fb,
                    const char *dir, int exact)
{
    char name[PG_SAFE_NAME_SIZE], path[4096 + 300], title[512];
    pg_path_safe_name(name, b->name);
    pg_flamegraph_opts o;
    pg_flamegraph_opts_init(&o);
    o.unit = exact ? "instructions" : "samples";
    o.normalize = !exact;
    o.subtitle = exact ? PG_CALLGRIND_NOTE : NULL;
    int rc = pg_mkdirs(dir);
    for (int reverse = 0; reverse <= 1 && rc == 0; reverse++) {
        snprintf(title, sizeof title, "%s: %s -> %s%s", b->name, c->base->label, c->cand->label,
                 reverse ? " (widths from the baseline)" : "");
        o.title = title;
        o.reverse = reverse;
        snprintf(path, sizeof path, "%s/%s.%s.svg", dir, name, reverse ? "diff-reverse" : "diff");
        rc = pg_flamegraph_write_diff_file(path, fa, fb, &o);
        if (rc == PG_EINVAL) {
            /* A side without samples: nothing to draw, not a failure of compare. */
            pg_text_warn("note: %s: no differential flamegraph: %s", b->name, pg_error_last());
            return 0;
        }
        *written += rc == 0;
    }
    return rc;
}

int pg_explain(pg_comparison *c, size_t top, const char *dir, size_t *written)
{
    *written = 0;
    int exact = exact_counts(c), rc = 0;
    for (size_t i = 0; i < c->nbench && rc == 0; i++) {
        pg_bench_cmp *b = &c->bench[i];
        pg_folded *fa, *fb;
        /* Each side's stacks are read once, for the table and the flamegraphs. */
        if (!wanted(b) || load_pair(&fa, &fb, b) < 0)
            continue;
        rc = funcs_of(b, fa, fb, top, exact);
        if (rc == 0 && dir && b->verdict == PG_VERDICT_REGRESSED)
            rc = diffs_of(written, c, b, fa, fb, dir, exact);
        pg_folded_free(fa);
        pg_folded_free(fb);
    }
    return rc;
}
