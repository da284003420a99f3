/* report/flamegraph.h — folded stacks drawn as a flamegraph SVG.
 *
 * The SVG follows flamegraph.pl's look (root "all" at the bottom, 16 px
 * frames, Verdana 12 px, warm colours hashed from the function name, so one
 * function has one colour in every graph) and is one self-contained file: no
 * network use, a small inline script for tooltips, click-to-zoom, Reset Zoom
 * and Search (Ctrl-F or the Search button; a regular expression, or plain
 * text when it does not compile; matches turn magenta and the matched share
 * of all samples is shown). `?s=TERM` in the URL searches on load.
 *
 * Frames narrower than min_width_pct of the total are left out (with
 * everything above them, which is narrower still), so a profile of a million
 * stacks stays a few hundred kilobytes; zooming cannot reveal them, and
 * search counts only the frames drawn.
 *
 * Differential graphs (difffolded.pl + flamegraph.pl style): stacks of BEFORE
 * and AFTER are merged; widths come from AFTER (or BEFORE, `reverse`, so
 * code that vanished is visible), and each frame's colour from the change of
 * its self cost (samples where it is the leaf) at that place in the tree:
 * red grew, blue shrank, white unchanged, saturation proportional to the
 * change over the largest change drawn; a change under min_tint_pct of the
 * total stays white. The legend line under the title says all of this, with
 * the largest change and the white cut-off in the graph's unit. With `normalize` BEFORE is scaled to
 * AFTER's total first, so a profile that is simply longer is not all red.
 * Red means "more in AFTER" in both views. Tooltips give both counts, the
 * change in count and percent, and the self change.
 *
 * Names are escaped (pg_svg_escape) wherever they appear; the script reads
 * names from the DOM and never evaluates them.
 */
#ifndef PG_REPORT_FLAMEGRAPH_H
#define PG_REPORT_FLAMEGRAPH_H

#include "util/folded.h"

#include <stddef.h>

/* Changes under 0.1% of the total are white in a differential graph: as wide
 * as the narrowest frame drawn (min_width_pct), no more than noise to the eye. */
#define PG_FLAMEGRAPH_MIN_TINT_PCT 0.1

typedef struct pg_flamegraph_opts {
    const char *title;      /* NULL: "Flame Graph" / "Differential Flame Graph" */
    const char *subtitle;   /* NULL: none; e.g. "stacks reconstructed from callgrind's call graph" */
    const char *unit;       /* what counts count: "samples" (default), "instructions" */
    int width;              /* image width in pixels; <= 0: 1200 */
    double min_width_pct;   /* leave out frames narrower than this % of the total;
                             * pg_flamegraph_opts_init sets 0.1 (1.2 px at 1200 px); 0 keeps all */
    int reverse;            /* diff: widths from BEFORE instead of AFTER */
    double min_tint_pct;    /* diff: a self change under this % of the total is drawn white
                             * (init: PG_FLAMEGRAPH_MIN_TINT_PCT); 0 tints every change */
    int normalize;          /* diff: scale BEFORE to AFTER's total (init: 1) */
} pg_flamegraph_opts;

/* The defaults above. */
void pg_flamegraph_opts_init(pg_flamegraph_opts *o);

/* Renders `f` into *out (malloc'd, NUL-terminated, caller frees; *len its
 * length). PG_EINVAL when `f` holds no samples (total 0), PG_ENOMEM. `o` may
 * be NULL for the defaults. `f` is only read (its sorted cache is filled). */
int pg_flamegraph_render(char **out, size_t *len, pg_folded *f, const pg_flamegraph_opts *o);

/* The differential graph of BEFORE → AFTER; o->reverse chooses the view.
 * PG_EINVAL when the side that gives the widths has no samples. A caller that
 * wants both views renders twice. */
int pg_flamegraph_render_diff(char **out, size_t *len, pg_folded *before, pg_folded *after,
                              const pg_flamegraph_opts *o);

/* Render and write atomically to `path` (nothing is left behind on failure). */
int pg_flamegraph_write_file(const char *path, pg_folded *f, const pg_flamegraph_opts *o);
int pg_flamegraph_write_diff_file(const char *path, pg_folded *before, pg_folded *after,
                                  const pg_flamegraph_opts *o);

#endif
