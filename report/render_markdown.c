/* report/render_markdown.c — the comparison as a pull-request comment
 * (GitHub-flavoured markdown; GitLab renders the same). */
#include "report/control.h"
#include "report/coverage.h"
#include "report/format.h"
#include "report/render.h"
#include "util/error.h"
#include "util/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How much a report shows at most (see pg_render_markdown). */
#define PG_MD_MAX_NAME 256      /* bytes of one name or note shown */

/* Text in a table cell or a sentence (PG_TEXT_MARKDOWN of util/text.h):
 * markup and control characters escaped, so a benchmark named "a|b", "<img>"
 * or "\033[2J" cannot break the table, inject markup or reach a terminal
 * that shows the comment's source; a name longer than PG_MD_MAX_NAME is cut. */
static void md(FILE *out, const char *s)
{
    size_t n = pg_text_prefix(s, PG_MD_MAX_NAME);
    pg_text_fwrite(out, s, n, PG_TEXT_MARKDOWN);
    if (s[n])
        fputs("\xe2\x80\xa6", out);      /* U+2026 HORIZONTAL ELLIPSIS */
}

#define PG_MD_MAX_CHANGED 100   /* benchmarks in the table of changes */
#define PG_MD_MAX_FUNCS 10      /* function tables */
#define PG_MD_MAX_ROWS 300      /* rows in the complete table (whole benchmarks) */
/* Characters of the whole report: a pull-request comment holds 65,536 (GitHub
 * counts characters, of which bytes are an upper bound). */
#define PG_MD_MAX_REPORT 60000

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
    /* The numbers are ours, but the unit is the result document's. */
    fputs(" | ", out);
    md(out, ce.base);
    fputs(" | ", out);
    md(out, ce.cand);
    fputs(" | ", out);
    md(out, ce.pct);
    fputs(" (", out);
    md(out, ce.delta);
    fputs(") | ", out);
    md(out, ce.th);
    fputs(" | ", out);
    if (m->verdict == PG_VERDICT_REGRESSED || m->verdict == PG_VERDICT_IMPROVED)
        fprintf(out, "**%s**", pg_verdict_name(m->verdict));
    else
        fputs(pg_verdict_name(m->verdict), out);
    if (m->note) {
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
        if (!all && !pg_render_brief(&b->m[k]))
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
    pg_func_extra ex[3];
    size_t nex = pg_render_func_extra(ex, b);
    for (size_t i = 0; i < nex; i++) {
        pg_func_cells fc;
        pg_render_func_cells(&fc, &ex[i].row);
        fputs(ex[i].is_total ? "| **" : "| ", out);
        md(out, ex[i].label);
        fprintf(out, "%s | %s | %s | %s (%s) |\n", ex[i].is_total ? "**" : "", fc.base, fc.cand, fc.delta, fc.pct);
    }
    fputs("\n</details>\n", out);
}

/* Round 2 of the benchmarks measured again (report/confirm.h); round 1 is the table above. */
static void confirmation(FILE *out, const pg_comparison *c)
{
    if (!c->nremeasured)
        return;
    fputs("\n**Confirmation:** regressed on noisy metrics only, so both revisions were measured again, "
          "interleaved (A B A B ...). Round 2, the new runs alone:\n\n", out);
    header(out);
    for (size_t i = 0; i < c->nbench; i++) {
        const pg_bench_cmp *b = &c->bench[i];
        int first = 1;
        for (size_t k = 0; b->round1 == PG_VERDICT_REGRESSED && b->round2 && k < b->round2->nm; k++) {
            if (b->round2->m[k].gating) {
                row(out, b->round2, &b->round2->m[k], first);
                first = 0;
            }
        }
    }
    fputc('\n', out);
    for (size_t i = 0; i < c->nbench; i++) {
        if (c->bench[i].round1 != PG_VERDICT_REGRESSED)
            continue;
        fputs("- ", out);
        md(out, c->bench[i].name);
        fputs(c->bench[i].confirmed ? ": confirmed, **regressed**\n" : ": not confirmed, inconclusive\n", out);
    }
}

/* --control (report/control.h): the control's largest delta per gating
 * metric, what it settled and what it caught. */
static void control(FILE *out, const pg_comparison *c)
{
    if (!c->controlled)
        return;
    fputs("\n**Control:** the baseline was measured twice in this run, interleaved with the candidate (A A' B). "
          "Largest A/A delta:", out);
    for (size_t g = 0; c->gates && g < c->gates->n; g++) {
        char pct[24];
        pg_format_pct_fine(pct, sizeof pct, pg_control_largest(c, c->gates->v[g]));
        fprintf(out, "%s %s %s", g ? "," : "", c->gates->v[g], pct[0] == '+' ? pct + 1 : pct);
    }
    fputs(".\n", out);
    for (size_t i = 0; i < c->nbench; i++)
        for (size_t k = 0; k < c->bench[i].nm; k++) {
            const pg_metric_cmp *m = &c->bench[i].m[k];
            if (!m->within_noise && !m->exact_drift)
                continue;
            fputs("- ", out);
            md(out, c->bench[i].name);
            fprintf(out, " %s: ", m->metric);
            if (m->within_noise)
                md(out, m->note ? m->note : "");
            else
                fprintf(out, "**the exact count differs in the control (%g)**: its counts do not repeat; its delta is "
                        "decided against that difference", m->control_abs);
            fputc('\n', out);
        }
}

/* The coverage of the change (report/coverage.h): the functions not
 * covered first, then the covered ones folded. */
static void coverage(FILE *out, const pg_comparison *c)
{
    const pg_coverage *cv = c->coverage;
    if (!cv)
        return;
    char line[4096];
    pg_render_coverage_summary(line, sizeof line, cv);
    fputs("\n**Coverage of the change:** ", out);
    md(out, line);
    fputs("\n", out);
    for (int covered = 0; covered < 2; covered++) {
        size_t n = 0;
        for (size_t i = 0; i < cv->nf; i++) {
            if ((cv->f[i].nbench > 0) != covered)
                continue;
            if (covered && !n++)
                fputs("\n<details><summary>Changed functions a benchmark runs</summary>\n\n", out);
            pg_render_coverage_func(line, sizeof line, cv, &cv->f[i]);
            fputs("- ", out);
            md(out, line);
            fputc('\n', out);
        }
        if (covered && n)
            fputs("\n</details>\n", out);
    }
    for (size_t i = 0; i < cv->nunmapped; i++) {
        fputs("- changed, in no benchmark's function table: ", out);
        md(out, cv->unmapped[i]);
        fputc('\n', out);
    }
    if (cv->note) {
        fputs("\n_Not mapped:_ ", out);
        md(out, cv->note);
        fputc('\n', out);
    }
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

static void body(FILE *out, const pg_comparison *c)
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
            if (c->bench[i].note) {
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
    for (size_t i = 0; i < c->nbench && shown < PG_MD_MAX_CHANGED; i++) {
        if (!c->bench[i].div)
            continue;
        char d[512];
        pg_render_divergence(d, sizeof d, c, &c->bench[i]);
        fputs(shown++ ? "\n- " : "\n**Counts and time diverge** (docs/metrics.md):\n\n- ", out);
        md(out, c->bench[i].name);
        fputs(": ", out);
        md(out, d);
    }
    if (shown)
        fputc('\n', out);
    shown = 0;
    for (size_t i = 0; i < c->nbench && shown < PG_MD_MAX_FUNCS; i++)
        if (c->bench[i].nfuncs && ++shown)
            funcs(out, &c->bench[i]);
    confirmation(out, c);
    control(out, c);
    coverage(out, c);
    names(out, "New benchmarks, not in the baseline", c->added, c->nadded);
    names(out, "Vanished benchmarks, not in the candidate", c->vanished, c->nvanished);
    if (c->nmissing) {
        fprintf(out, "\n**Not gated (%zu):** ", c->nmissing);
        for (size_t i = 0; i < c->nmissing && i < PG_MD_MAX_CHANGED; i++) {
            fputs(i ? ", " : "", out);
            md(out, c->missing[i].bench);
            fputs(" (", out);
            md(out, c->missing[i].reason);
            fputc(')', out);
        }
        if (c->nmissing > PG_MD_MAX_CHANGED)
            fprintf(out, " and %zu more (`--format json` lists them)", c->nmissing - PG_MD_MAX_CHANGED);
        fputc('\n', out);
    }

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
}

/* Cuts `text` (len bytes, > PG_MD_MAX_REPORT) at a line boundary, closes the
 * <details> left open and says where the rest is, all within the limit. */
static void write_cut(FILE *out, const char *text, size_t len, const pg_comparison *c)
{
    char note[512], a[96], b[96];
    size_t keep = PG_MD_MAX_REPORT - 2048;   /* room for the note and the closing tags */
    while (keep > 0 && text[keep - 1] != '\n')
        keep--;
    int open = 0;
    for (const char *p = text; (p = strstr(p, "<details")) && p < text + keep; p++)
        open++;
    for (const char *p = text; (p = strstr(p, "</details>")) && p < text + keep; p++)
        open--;
    fwrite(text, 1, keep, out);
    /* A blank line first: a line right after a table would be one more row. */
    snprintf(note, sizeof note,
             "\n**This report was cut at %zu of its %zu bytes to fit a pull-request comment.** "
             "The complete comparison is `perfgate compare --format json` of the same baseline and candidate ",
             keep, len);
    fputs(note, out);
    pg_text_escape_buf(a, sizeof a, c->base->label, PG_TEXT_MARKDOWN);
    pg_text_escape_buf(b, sizeof b, c->cand->label, PG_TEXT_MARKDOWN);
    fprintf(out, "(%s, %s); the CI templates keep it as the perfgate-report.json artifact.\n", a, b);
    while (open-- > 0)
        fputs("\n</details>\n", out);
}

int pg_render_markdown(FILE *out, const pg_comparison *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return pg_error_errno(PG_ENOMEM, "cannot buffer the report");
    body(f, c);
    if (fclose(f) != 0) {
        free(text);
        return pg_error_errno(PG_ENOMEM, "cannot buffer the report");
    }
    if (len <= PG_MD_MAX_REPORT)
        fwrite(text, 1, len, out);
    else
        write_cut(out, text, len, c);
    free(text);
    if (fflush(out) != 0 || ferror(out))
        return pg_error_errno(PG_EIO, "cannot write the report");
    return 0;
}
