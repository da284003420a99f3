/* report/render_history.c — the history page (history.h).
 *
 * The template (report/history_page.html, compiled in by cmake/embed.cmake)
 * has two holes: the title, escaped as HTML text, and the data, a JSON
 * document inside <script type="application/json">. A name could end that
 * element early ("</script>"), so every '<', '>' and '&' of the JSON is
 * written as its \u escape, which JSON.parse reads back unchanged; outside
 * strings JSON has none of them. */
#include "report/history.h"

#include "util/error.h"
#include "util/numfmt.h"
#include "util/text.h"

#include "history_page.h"   /* pg_history_page[], generated */

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A sink for pg_text_escape: JSON text made safe inside a script element. */
static void put_script(void *ctx, const char *s, size_t n)
{
    FILE *out = ctx;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '<' && s[i] != '>' && s[i] != '&')
            continue;
        fwrite(s + run, 1, i - run, out);
        fprintf(out, "\\u%04x", (unsigned)(unsigned char)s[i]);
        run = i + 1;
    }
    fwrite(s + run, 1, n - run, out);
}

static void str(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    pg_text_escape(put_script, out, s, strlen(s), PG_TEXT_JSON);
    fputc('"', out);
}

/* JSON has no NaN: a value that does not exist is null. 15 digits are more
 * than any measurement has; integers print exactly. */
static void num(FILE *out, double v)
{
    if (!isfinite(v))
        fputs("null", out);
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        fprintf(out, "%lld", (long long)v);
    else if (fabs(v) > 1e308)   /* 15 digits round past DBL_MAX: JSON.parse would read Infinity */
        fprintf(out, "%.17g", v);
    else {
        char buf[PG_FMT_G15_SIZE];
        fwrite(buf, 1, pg_fmt_g15(buf, v), out);
    }
}

static void point(FILE *out, const pg_hist_point *p)
{
    fprintf(out, "[%zu,", p->commit);
    num(out, p->median), fputc(',', out);
    num(out, p->q1), fputc(',', out);
    num(out, p->q3), fputc(',', out);
    num(out, p->min), fputc(',', out);
    num(out, p->max), fprintf(out, ",%zu,", p->n);
    str(out, pg_verdict_name(p->step)), fputc(',', out);
    num(out, p->step_pct), fputc(',', out);
    num(out, p->step_threshold), fputc(',', out);
    str(out, p->flamegraph), fputc(',', out);
    str(out, p->diff_flamegraph), fputc(',', out);
    num(out, p->step_delta), fputc(']', out);
}

static const char *const cp_kind[] = {"level", "step", "load"};

/* The commit of the point before point i, or -1. */
static long prev_commit(const pg_hist_series *s, size_t i)
{
    return i ? (long)s->p[i - 1].commit : -1;
}

/* What the page needs of a series before its points are loaded: what it
 * is, its flags, its change points and marked steps (the findings), and
 * where its points are. */
static void series(FILE *out, const pg_hist_series *s)
{
    fputs("{\"bench\":", out), str(out, s->bench);
    fputs(",\"metric\":", out), str(out, s->metric);
    fputs(",\"unit\":", out), str(out, s->unit);
    fprintf(out, ",\"lane\":%zu,\"threshold\":", s->lane), num(out, s->threshold);
    fprintf(out, ",\"exact\":%s,\"floor\":", s->exact ? "true" : "false"), num(out, s->floor);
    fputs(",\"spread\":", out), num(out, s->spread_pct);
    fprintf(out, ",\"flips\":%zu,\"modeGap\":", s->flips), num(out, s->mode_gap_pct);
    fputs(",\"modeShare\":", out), num(out, s->mode_share);
    fputs(",\"modeLow\":", out), num(out, s->mode_low);
    fputs(",\"modeHigh\":", out), num(out, s->mode_high);
    fprintf(out, ",\"flags\":[%s%s%s%s%s]", s->flags & PG_HIST_BIMODAL ? "\"bimodal\"" : "",
            (s->flags & PG_HIST_BIMODAL) && (s->flags & (PG_HIST_FLAKY | PG_HIST_NOISY)) ? "," : "",
            s->flags & PG_HIST_FLAKY ? "\"flaky\"" : "",
            (s->flags & PG_HIST_FLAKY) && (s->flags & PG_HIST_NOISY) ? "," : "", s->flags & PG_HIST_NOISY ? "\"noisy\"" : "");
    fputs(",\"changes\":[", out);
    for (size_t i = 0; i < s->ncp; i++) {
        const pg_hist_change *c = &s->cp[i];
        fprintf(out, "%s[%zu,", i ? "," : "", c->at);
        num(out, c->before), fputc(',', out);
        num(out, c->after), fputc(',', out);
        num(out, c->pct);
        fprintf(out, ",%zu,%zu,", c->n_before, c->n_after);
        num(out, c->q);
        fprintf(out, ",%zu,%ld,\"%s\",", s->p[c->at].commit, prev_commit(s, c->at), cp_kind[c->kind]);
        num(out, c->delta), fputc(',', out);
        num(out, c->kind == PG_HIST_CP_LOAD ? c->load_before : NAN), fputc(',', out);
        num(out, c->kind == PG_HIST_CP_LOAD ? c->load_after : NAN), fputc(']', out);
    }
    /* the steps compare marked: [point, commit, previous commit, verdict, %, threshold, delta] */
    fputs("],\"marks\":[", out);
    for (size_t i = 1, k = 0; i < s->np; i++) {
        const pg_hist_point *p = &s->p[i];
        if (p->step != PG_VERDICT_REGRESSED && p->step != PG_VERDICT_IMPROVED)
            continue;
        fprintf(out, "%s[%zu,%zu,%ld,", k++ ? "," : "", i, p->commit, prev_commit(s, i));
        str(out, pg_verdict_name(p->step)), fputc(',', out);
        num(out, p->step_pct), fputc(',', out);
        num(out, p->step_threshold), fputc(',', out);
        num(out, p->step_delta), fputc(']', out);
    }
    fprintf(out, "],\"np\":%zu,\"chunk\":%zu,\"last\":", s->np, s->chunk);
    if (s->np) {
        fprintf(out, "[%zu,", s->p[s->np - 1].commit);
        num(out, s->p[s->np - 1].median), fputc(']', out);
    } else {
        fputs("null", out);
    }
    fputc('}', out);
}

/* One chunk's points: [[series index, [point, ...]], ...]. */
static void chunk(FILE *out, const pg_history *h, size_t k)
{
    fputc('[', out);
    for (size_t i = 0, first = 1; i < h->ns; i++) {
        const pg_hist_series *s = &h->s[i];
        if (s->chunk != k)
            continue;
        fprintf(out, "%s[%zu,[", first ? "" : ",\n", i);
        first = 0;
        for (size_t j = 0; j < s->np; j++) {
            if (j)
                fputc(',', out);
            point(out, &s->p[j]);
        }
        fputs("]]", out);
    }
    fputc(']', out);
}

static void data(FILE *out, const pg_history *h, const pg_hist_page *page)
{
    fputs("{\"title\":", out), str(out, page->title);
    fputs(",\"range\":", out), str(out, page->range);
    fputs(",\"generated\":", out), str(out, page->generated);
    fputs(",\"version\":", out), str(out, PERFGATE_VERSION);
    fputs(",\"commitUrl\":", out), str(out, page->commit_url);
    fprintf(out, ",\"measured\":%zu,\"nchunks\":%zu,\"dataDir\":", h->nmeasured, h->nchunks);
    str(out, page->data_dir);
    fputs(",\n\"lanes\":[", out);
    for (size_t i = 0; i < h->nlanes; i++) {
        fputs(i ? ",{\"machine\":" : "{\"machine\":", out), str(out, h->lanes[i].machine_id);
        fputs(",\"desc\":", out), str(out, h->lanes[i].machine_desc);
        fputs(",\"backend\":", out), str(out, h->lanes[i].backend), fputc('}', out);
    }
    fputs("],\n\"commits\":[", out);
    for (size_t i = 0; i < h->ncommits; i++) {
        fputs(i ? ",\n[" : "\n[", out), str(out, h->commits[i].id), fputc(',', out);
        str(out, h->commits[i].subject);
        fprintf(out, ",%lld]", h->commits[i].time);
    }
    fputs("],\n\"series\":[", out);
    for (size_t i = 0; i < h->ns; i++) {
        fputs(i ? ",\n" : "\n", out);
        series(out, &h->s[i]);
    }
    fputs("]", out);
    if (!page->data_dir) {
        fputs(",\n\"chunks\":[", out);
        for (size_t k = 0; k < h->nchunks; k++) {
            fputs(k ? ",\n" : "\n", out);
            chunk(out, h, k);
        }
        fputs("]", out);
    }
    fputs("}", out);
}

int pg_history_render_chunk(FILE *out, const pg_history *h, size_t k)
{
    /* a script, so that a page opened from file:// can load it (fetch()
     * of a file: URL is refused); JSON is a JavaScript expression */
    fprintf(out, "perfgateChunk(%zu,", k);
    chunk(out, h, k);
    fputs(");\n", out);
    if (fflush(out) != 0 || ferror(out))
        return pg_error_set(PG_EIO, "writing the history page's data failed");
    return 0;
}

int pg_history_render_html(FILE *out, const pg_history *h, const pg_hist_page *page)
{
    static const char title_hole[] = "@PERFGATE_TITLE@", data_hole[] = "@PERFGATE_DATA@";
    const char *t = strstr(pg_history_page, title_hole), *d = strstr(pg_history_page, data_hole);
    if (!t || !d || d < t)
        return pg_error_set(PG_ERROR, "the history page template has lost its placeholders");
    fwrite(pg_history_page, 1, (size_t)(t - pg_history_page), out);
    pg_text_fputs(out, page->title, PG_TEXT_XML);
    t += sizeof title_hole - 1;
    fwrite(t, 1, (size_t)(d - t), out);
    data(out, h, page);
    d += sizeof data_hole - 1;
    fputs(d, out);
    if (fflush(out) != 0 || ferror(out))
        return pg_error_set(PG_EIO, "writing the history page failed");
    return 0;
}
