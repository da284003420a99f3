/* report/render.h — a pg_comparison as text, markdown, JSON or JUnit XML.
 *
 * Every renderer writes the whole report to `out` and returns 0 or PG_EIO
 * when writing failed. Each shows, per benchmark, the gating metrics (and,
 * with `verbose` or in the complete tables, every metric), the new and
 * vanished benchmarks, and the per-function self-cost table of benchmarks
 * that have one (pg_explain_funcs(), explain.h). None of them decides anything: the
 * verdicts are the comparison's. Every string that came from a result
 * document (names above all) is escaped for the format (util/text.h), so the
 * output is valid whatever the bytes.
 */
#ifndef PG_REPORT_RENDER_H
#define PG_REPORT_RENDER_H

#include "report/compare.h"

#include <stdio.h>

typedef struct pg_render_opts {
    int color;          /* text: ANSI colours (the caller decides: a terminal and no NO_COLOR) */
    int verbose;        /* text: every metric, not only the gating and changed ones */
} pg_render_opts;

/* Aligned table for a terminal, one line per shown metric, then the function
 * tables, new/vanished benchmarks and a last line "verdict: <verdict> ...". */
int pg_render_text(FILE *out, const pg_comparison *c, const pg_render_opts *o);

/* A pull-request comment: a summary line, the table of changed benchmarks,
 * function tables, then the complete table in a collapsed <details>. At most
 * 60,000 bytes (a comment holds 65,536 characters): a longer report is cut at
 * a line, its open <details> closed, and a note says where the complete
 * report is (--format json). */
int pg_render_markdown(FILE *out, const pg_comparison *c);

/* The comparison report of docs/result-schema.md ({"verdict", "baseline", "candidate", "benchmarks":
 * [{"name", "verdict", "metrics": [...]}]}) plus counts, gates, new and
 * vanished benchmarks, p-values, notes and function tables. */
int pg_render_json(FILE *out, const pg_comparison *c);

/* JUnit XML: one <testsuite> of one <testcase> per benchmark; regressions are
 * <failure>s, inconclusive, new and vanished benchmarks <skipped>. */
int pg_render_junit(FILE *out, const pg_comparison *c);

/* The formats, one row each (report/render_table.c), text first: the
 * default. pg_renderer_names holds --format's words in the same order, NULL
 * at the end (a util/parseopt.h choice list). */
typedef struct pg_renderer {
    const char *name;
    int (*render)(FILE *out, const pg_comparison *c, const pg_render_opts *o);
    int colors;         /* uses o->color: the caller asks the terminal only for these */
} pg_renderer;
extern const pg_renderer pg_renderers[];
extern const char *const pg_renderer_names[];
extern const size_t pg_nrenderers;
/* The renderer called `name` ("markdown"), or NULL. */
const pg_renderer *pg_renderer_find(const char *name);

/* Shared by the renderers. */

/* "1 regressed, 2 unchanged of 3 benchmarks compared" (zero counts left out;
 * "; 1 divergence of counts and time" when there is one). */
void pg_render_counts(char *buf, size_t len, const pg_comparison *c);
/* "HEAD~1 (3f2a9c1d8e07)", "a.json", "a.json (3f2a9c1d8e07)",
 * "HEAD (3f2a9c1d8e07, dirty work tree)". */
void pg_render_side(char *buf, size_t len, const pg_side *s);
/* Whether a metric row belongs in a short table: gating, or regressed/improved. */
int pg_render_notable(const pg_metric_cmp *m);
/* A benchmark's divergence (b->div != NULL), as every format says it:
 * "instructions +20.20% (+7,697,294) but task-clock -2.81% (-400.000 us):
 * opposite directions (Mann-Whitney p=0.0079, BH-adjusted 0.024)". */
void pg_render_divergence(char *buf, size_t len, const pg_comparison *c, const pg_bench_cmp *b);
/* Whether a notable row is also worth a line without -v: gating, or a shared
 * metric of the registry (docs/metrics.md) or a raw event the user asked
 * for. valgrind's own thirteen counters (D1mr, Bim...) are only counted. */
int pg_render_brief(const pg_metric_cmp *m);
/* The backend a hidden row's counters are the own of, for "(+13 NAME
 * metrics...)": m's backend as the data names it when `so_far` (the name
 * of the rows before) is NULL or the same, else "backend" (two backends'). */
const char *pg_render_own_backend(const char *so_far, const pg_metric_cmp *m);
/* The coverage of the change (report/coverage.h): the summary ("1 of 2
 * changed functions not covered by any benchmark", "no function of the
 * benchmarks' programs changed"), and one changed
 * function ("not covered: parse_header (src/parse.c:120), 3 lines changed";
 * "covered: hash (src/h.c:40), 2 lines changed; run by small (+1,200
 * instructions), large (+9,600 instructions)"). Not escaped: the caller
 * escapes the line for its format. */
struct pg_coverage;
struct pg_cov_func;
void pg_render_coverage_summary(char *buf, size_t len, const struct pg_coverage *cv);
void pg_render_coverage_func(char *buf, size_t len, const struct pg_coverage *cv, const struct pg_cov_func *f);
/* "instructions,cycles" */
void pg_render_gates(char *buf, size_t len, const pg_gates *g);

/* A metric's numbers as every renderer shows them: "1,030,001", "12.500 ms",
 * "+30,001", "+3.00%", "1%". */
typedef struct pg_metric_cells {
    char base[48], cand[48], delta[48], pct[24], th[24];
} pg_metric_cells;
void pg_render_metric_cells(pg_metric_cells *out, const pg_metric_cmp *m);

/* The rows under a function table that make it add up: the functions not
 * listed ("(3 other functions)"), then, when the table has a headline, what
 * the headline's runs counted beyond the stacks' own run (PG_UNATTRIBUTED_LABEL)
 * and the headline itself ("= instructions (headline)"). Fills rows/labels,
 * returns how many (0-3). */
typedef struct pg_func_extra {
    char label[96];
    pg_func_row row;
    int is_total;       /* the headline: the sum of every row above it */
} pg_func_extra;
size_t pg_render_func_extra(pg_func_extra out[3], const pg_bench_cmp *b);
/* The stacks hold every instruction of the run that recorded them (callgrind
 * names code without a symbol [unknown], it does not drop it): the rest of
 * the headline is what its own runs counted apart from that run, and that is
 * all the label says. docs/sampling.md says what makes two runs differ. */
#define PG_UNATTRIBUTED_LABEL "(headline's run minus the stacks' run: measured apart)"

/* A function row's numbers: base, candidate, signed delta, delta in %. */
typedef struct pg_func_cells {
    char base[32], cand[32], delta[32], pct[24];
} pg_func_cells;
void pg_render_func_cells(pg_func_cells *out, const pg_func_row *f);

#endif
