/* report/render_markdown.c — the comparison as a pull-request comment
 * (GitHub-flavoured markdown; GitLab renders the same). */
#include "report/format.h"
#include "report/render.h"
#include "util/error.h"

#include <math.h>
#include <string.h>

/* Text in a table cell or a sentence: markdown and HTML specials escaped, so a
 * benchmark named "a|b" or "<img>" cannot break the table or inject markup. */
static void md(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '\n': case '\r': case '\t': fputc(' ', out); break;
        case '|': case '\\': case '`': case '*': case '_': case '[': case ']': case '#': case '~':
            fputc('\\', out);
            fputc(*s, out);
            break;
        default: fputc(*s, out);
        }
    }
}

/* How much a report shows at most (see pg_render_markdown). */
#define PG_MD_MAX_CHANGED 100   /* benchmarks in the table of changes */
#define PG_MD_MAX_FUNCS 10      /* function tables */
#define PG_MD_MAX_ROWS 300      /* rows in the complete table (whole benchmarks) */

static const char *mark(pg_verdict v)
{
    switch (v) {
    case PG_VERDICT_REGRESSED: return ":red_circle:";
    case PG_VERDICT_IMPROVED: return ":green_circle:";
    case PG_VERDICT_INCONCLUSIVE: return ":grey_question:";
    default: return ":white_check_mark:";
    }
}

static void header(FILE *out)
{
    fputs("| benchmark | metric | baseline | candidate | delta | threshold | verdict |\n", out);
    fputs("|---|---|--:|--:|--:|--:|---|\n", out);
}

static void row(FILE *out, const pg_bench_cmp *b, const pg_metric_cmp *m, int first)
{
    pg_metric_cells ce;
    pg_render_metric_cells(&ce, m);
    fputs("| ", out);
    if (first)
        md(out, b->name);
    fputs(" | ", out);
    md(out, m->metric);
    if (m->gating)
        fputs(" (gate)", out);
    fprintf(out, " | %s | %s | %s (%s) | %s | ", ce.base, ce.cand, ce.pct, ce.delta, ce.th);
    if (m->verdict == PG_VERDICT_REGRESSED || m->verdict == PG_VERDICT_IMPROVED)
        fprintf(out, "**%s**", pg_verdict_name(m->verdict));
    else
        fputs(pg_verdict_name(m->verdict), out);
    if (m->note[0]) {
        fputs(" (", out);
        md(out, m->note);
        fputc(')', out);
    }
    fputs(" |\n", out);
}

/* Rows of one benchmark; `all`: every metric, else only the notable ones. */
static void bench_rows(FILE *out, const pg_bench_cmp *b, int all)
{
    int first = 1;
    for (size_t k = 0; k < b->nm; k++) {
        if (!all && !pg_render_notable(&b->m[k]))
            continue;
        row(out, b, &b->m[k], first);
        first = 0;
    }
    if (first) {
        fputs("| ", out);
        md(out, b->name);
        fprintf(out, " | | | | | | %s |\n", pg_verdict_name(b->verdict));
    }
}

static void funcs(FILE *out, const pg_bench_cmp *b)
{
    fputs("\n<details open><summary>", out);
    md(out, b->name);
    fprintf(out, ": self cost by function (%s), largest changes</summary>\n\n", b->funcs_unit ? b->funcs_unit : "samples");
    fputs("| function | baseline | candidate | delta |\n|---|--:|--:|--:|\n", out);
    for (size_t i = 0; i < b->nfuncs; i++) {
        pg_func_cells fc;
        pg_render_func_cells(&fc, &b->funcs[i]);
        fputs("| ", out);
        md(out, b->funcs[i].name);
        fprintf(out, " | %s | %s | %s (%s) |\n", fc.base, fc.cand, fc.delta, fc.pct);
    }
    fputs("\n</details>\n", out);
}

static void names(FILE *out, const char *what, const char *const *v, size_t n)
{
    if (!n)
        return;
    fprintf(out, "\n**%s (%zu):** ", what, n);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", out);
        md(out, v[i]);
    }
    fputc('\n', out);
}

int pg_render_markdown(FILE *out, const pg_comparison *c)
{
    char a[200], b[200], counts[256], gates[256];
    pg_render_side(a, sizeof a, c->base);
    pg_render_side(b, sizeof b, c->cand);
    pg_render_counts(counts, sizeof counts, c);
    pg_render_gates(gates, sizeof gates, c->gates);

    fprintf(out, "### perfgate: %s %s\n\n", mark(c->verdict), pg_verdict_name(c->verdict));
    fputs("**", out);
    md(out, counts);
    fputs("**, gating on ", out);
    md(out, gates);
    fputs(". Baseline ", out);
    md(out, a);
    fputs(", candidate ", out);
    md(out, b);
    fputs("; machine ", out);
    md(out, c->cand->machine_id);
    fputs(" (", out);
    md(out, c->cand->machine_desc);
    fputs("), backend ", out);
    md(out, c->cand->backend);
    fputs(".\n", out);
    if (c->cross_machine) {
        fputs("\n> **Note:** the baseline was measured on another machine (", out);
        md(out, c->base->machine_id);
        fputs(", ", out);
        md(out, c->base->machine_desc);
        fputs("); the comparison was forced with --allow-cross-machine.\n", out);
    }

    /* A pull-request comment holds 65,536 characters and a job summary 1 MiB:
     * a large suite shows its worst changes first and says what it left out. */
    static const pg_verdict shown_order[] = {PG_VERDICT_REGRESSED, PG_VERDICT_INCONCLUSIVE, PG_VERDICT_IMPROVED};
    size_t changed = c->nbench - c->count[PG_VERDICT_UNCHANGED], shown = 0;
    if (changed) {
        fputs("\n", out);
        header(out);
        for (size_t v = 0; v < 3; v++)
            for (size_t i = 0; i < c->nbench && shown < PG_MD_MAX_CHANGED; i++)
                if (c->bench[i].verdict == shown_order[v] && ++shown)
                    bench_rows(out, &c->bench[i], 0);
        if (changed > shown)
            fprintf(out, "\n%zu more changed benchmarks are not shown here; `--format json` lists every one.\n",
                    changed - shown);
        shown = 0;
        for (size_t i = 0; i < c->nbench && shown < PG_MD_MAX_CHANGED; i++) {
            if (c->bench[i].note[0]) {
                fputs(shown++ ? "\n- " : "\n\n- ", out);
                md(out, c->bench[i].name);
                fputs(": ", out);
                md(out, c->bench[i].note);
            }
        }
        if (shown)
            fputc('\n', out);
    } else if (c->nbench) {
        fputs("\nNo benchmark changed beyond its threshold.\n", out);
    }
    shown = 0;
    for (size_t i = 0; i < c->nbench && shown < PG_MD_MAX_FUNCS; i++)
        if (c->bench[i].nfuncs && ++shown)
            funcs(out, &c->bench[i]);
    names(out, "New benchmarks, not in the baseline", c->added, c->nadded);
    names(out, "Vanished benchmarks, not in the candidate", c->vanished, c->nvanished);

    if (c->nbench) {
        fprintf(out, "\n<details><summary>All benchmarks and metrics (%zu benchmarks)</summary>\n\n", c->nbench);
        header(out);
        size_t n = 0, rows = 0;
        for (; n < c->nbench && (n == 0 || rows + c->bench[n].nm <= PG_MD_MAX_ROWS); n++) {
            bench_rows(out, &c->bench[n], 1);
            rows += c->bench[n].nm;
        }
        if (n < c->nbench)
            fprintf(out, "\nThe first %zu of %zu benchmarks; `--format json` has them all.\n", n, c->nbench);
        fputs("\n</details>\n", out);
    }
    if (fflush(out) != 0 || ferror(out))
        return pg_error_errno(PG_EIO, "cannot write the report");
    return 0;
}
