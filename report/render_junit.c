/* report/render_junit.c — the comparison as JUnit XML, for CI test reports
 * (GitLab's junit artifact, GitHub test-report actions, Jenkins).
 *
 * Elements and attributes the common JUnit schema requires: <testsuites>,
 * <testsuite name tests failures errors>, <testcase name classname>. A
 * regression is a <failure message type>; inconclusive, new and vanished
 * benchmarks are <skipped message>, so they are seen but do not fail. A
 * divergence of counts and time is a line of the body, and a <failure
 * type="divergence"> with --fail-on-divergence.
 */
#include "report/format.h"
#include "report/coverage.h"
#include "report/render.h"
#include "util/metrics.h"
#include "util/error.h"
#include "util/text.h"

#include <math.h>
#include <string.h>

/* XML 1.0 text or attribute value, whatever the bytes (util/text.h). */
static void xml(FILE *out, const char *s)
{
    pg_text_fputs(out, s, PG_TEXT_XML);
}

/* "instructions +3.02% (+30,000), threshold 1%" */
static void describe(char *buf, size_t len, const pg_metric_cmp *m)
{
    pg_metric_cells ce;
    pg_render_metric_cells(&ce, m);
    snprintf(buf, len, "%s %s (%s), threshold %s", m->metric, ce.pct, ce.delta, ce.th);
}

/* The metric lines of a benchmark, as the body of its <failure> or <system-out>. */
static void body(FILE *out, const pg_comparison *c, const pg_bench_cmp *b)
{
    if (b->div) {
        char d[512];
        pg_render_divergence(d, sizeof d, c, b);
        fputs("divergence: ", out);
        xml(out, d);
        fputc('\n', out);
    }
    size_t hidden = 0;
    const char *by = NULL;
    for (size_t k = 0; k < b->nm; k++) {
        const pg_metric_cmp *m = &b->m[k];
        /* the shared metrics; a simulator's own counters (valgrind's D1mr...) only counted */
        if (!m->gating && !pg_render_brief(m) && !pg_metric_find(m->metric) && m->simulated) {
            hidden++;
            by = pg_render_own_backend(by, m);
            continue;
        }
        pg_metric_cells ce;
        char d[160];
        pg_render_metric_cells(&ce, m);
        describe(d, sizeof d, m);
        fprintf(out, "%s: ", pg_verdict_name(m->verdict));
        xml(out, d);
        fputs(": ", out);
        xml(out, ce.base);
        fputs(" -> ", out);
        xml(out, ce.cand);
        if (m->note) {
            fputs(" (", out);
            xml(out, m->note);
            fputc(')', out);
        }
        fputc('\n', out);
    }
    if (hidden) {
        fprintf(out, "(+%zu ", hidden);
        xml(out, by);
        fputs(" metrics: --format json lists them)\n", out);
    }
    if (b->nfuncs) {
        fprintf(out, "self cost by function (%s), largest changes:\n", b->funcs_unit ? b->funcs_unit : "samples");
        for (size_t i = 0; i < b->nfuncs; i++) {
            pg_func_cells fc;
            pg_render_func_cells(&fc, &b->funcs[i]);
            fputs("  ", out);
            xml(out, b->funcs[i].name);
            fprintf(out, ": %s -> %s (%s)\n", fc.base, fc.cand, fc.delta);
        }
        pg_func_extra ex[3];
        size_t nex = pg_render_func_extra(ex, b);
        for (size_t i = 0; i < nex; i++) {
            pg_func_cells fc;
            pg_render_func_cells(&fc, &ex[i].row);
            fprintf(out, "  %s: %s -> %s (%s)\n", ex[i].label, fc.base, fc.cand, fc.delta);
        }
    }
}

/* A divergence fails its test case only with --fail-on-divergence. */
static int diverge_fails(const pg_comparison *c, const pg_bench_cmp *b)
{
    return c->fail_on_divergence && b->div && b->verdict != PG_VERDICT_REGRESSED;
}

static void testcase(FILE *out, const pg_comparison *c, const pg_bench_cmp *b)
{
    fputs("    <testcase name=\"", out);
    xml(out, b->name);
    fputs("\" classname=\"perfgate.benchmarks\">\n", out);
    if (diverge_fails(c, b)) {
        char d[512];
        pg_render_divergence(d, sizeof d, c, b);
        fputs("      <failure type=\"divergence\" message=\"divergence: ", out);
        xml(out, d);
        fputs("\">", out);
        body(out, c, b);
        fputs("</failure>\n", out);
    } else if (b->verdict == PG_VERDICT_REGRESSED) {
        char msg[512] = "";
        size_t o = 0;
        for (size_t k = 0; k < b->nm && o < sizeof msg; k++) {
            if (b->m[k].gating && b->m[k].verdict == PG_VERDICT_REGRESSED) {
                char d[160];
                describe(d, sizeof d, &b->m[k]);
                o += (size_t)snprintf(msg + o, sizeof msg - o, "%sregressed: %s", o ? "; " : "", d);
            }
        }
        fputs("      <failure type=\"regression\" message=\"", out);
        xml(out, msg);
        fputs("\">", out);
        body(out, c, b);
        fputs("</failure>\n", out);
    } else {
        if (b->verdict == PG_VERDICT_INCONCLUSIVE) {
            fputs("      <skipped message=\"inconclusive", out);
            if (b->note) {
                fputs(": ", out);
                xml(out, b->note);
            }
            fputs("\"/>\n", out);
        }
        fputs("      <system-out>", out);
        body(out, c, b);
        fputs("</system-out>\n", out);
    }
    fputs("    </testcase>\n", out);
}

static void one_sided(FILE *out, const char *name, const char *why)
{
    fputs("    <testcase name=\"", out);
    xml(out, name);
    fprintf(out, "\" classname=\"perfgate.benchmarks\">\n      <skipped message=\"%s\"/>\n    </testcase>\n", why);
}

/* The coverage of the change (report/coverage.h): a test case per changed
 * function, one not covered a failure with --require-coverage (else
 * skipped), and one for a change that could not be mapped. */
static void coverage(FILE *out, const pg_coverage *cv)
{
    char line[4096];
    if (!cv->mapped) {
        fputs("    <testcase name=\"coverage of the change\" classname=\"perfgate.coverage\">\n", out);
        fputs(cv->required ? "      <failure type=\"coverage unknown\" message=\"" : "      <skipped message=\"", out);
        xml(out, cv->note ? cv->note : "");
        fputs("\"/>\n    </testcase>\n", out);
    }
    for (size_t i = 0; i < cv->nf; i++) {
        const pg_cov_func *f = &cv->f[i];
        pg_render_coverage_func(line, sizeof line, cv, f);
        fputs("    <testcase name=\"", out);
        xml(out, f->name);
        fputs(" (", out);
        xml(out, f->file);
        fprintf(out, ":%d)\" classname=\"perfgate.coverage\">\n", f->changed_at);
        if (!f->nbench)
            fputs(cv->required ? "      <failure type=\"not covered\" message=\"" : "      <skipped message=\"", out);
        else
            fputs("      <system-out>", out);
        xml(out, line);
        fputs(f->nbench ? "</system-out>\n    </testcase>\n" : "\"/>\n    </testcase>\n", out);
    }
}

int pg_render_junit(FILE *out, const pg_comparison *c)
{
    const pg_coverage *cv = c->coverage;
    size_t tests = c->nbench + c->nadded + c->nvanished + (cv ? cv->nf + !cv->mapped : 0);
    size_t failures = c->count[PG_VERDICT_REGRESSED] + (cv && cv->required ? cv->nuncovered + !cv->mapped : 0);
    size_t skipped = c->count[PG_VERDICT_INCONCLUSIVE] + c->nadded + c->nvanished +
                     (cv && !cv->required ? cv->nuncovered + !cv->mapped : 0);
    for (size_t i = 0; i < c->nbench; i++) {
        if (diverge_fails(c, &c->bench[i])) {
            failures++;
            skipped -= c->bench[i].verdict == PG_VERDICT_INCONCLUSIVE;
        }
    }
    char a[200], b[200], counts[256];
    pg_render_side(a, sizeof a, c->base);
    pg_render_side(b, sizeof b, c->cand);
    pg_render_counts(counts, sizeof counts, c);

    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<testsuites name=\"perfgate\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", tests,
            failures, skipped);
    fputs("  <testsuite name=\"perfgate compare ", out);
    xml(out, a);
    fputs(" -&gt; ", out);
    xml(out, b);
    fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", tests, failures, skipped);
    fputs("    <properties>\n", out);
    fputs("      <property name=\"verdict\" value=\"", out);
    xml(out, pg_verdict_name(c->verdict));
    fputs("\"/>\n      <property name=\"machine\" value=\"", out);
    xml(out, c->cand->machine_id);
    fputs("\"/>\n      <property name=\"backend\" value=\"", out);
    xml(out, c->cand->backend);
    fputs("\"/>\n    </properties>\n", out);
    for (size_t i = 0; i < c->nbench; i++)
        testcase(out, c, &c->bench[i]);
    for (size_t i = 0; i < c->nadded; i++)
        one_sided(out, c->added[i], "new benchmark: not in the baseline");
    for (size_t i = 0; i < c->nvanished; i++)
        one_sided(out, c->vanished[i], "vanished benchmark: not in the candidate");
    if (cv)
        coverage(out, cv);
    fputs("    <system-out>verdict: ", out);
    xml(out, pg_verdict_name(c->verdict));
    fputs(" -- ", out);
    xml(out, counts);
    fputs("</system-out>\n  </testsuite>\n</testsuites>\n", out);
    if (fflush(out) != 0 || ferror(out))
        return pg_error_errno(PG_EIO, "cannot write the report");
    return 0;
}
