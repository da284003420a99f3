/* harness/cli/cmd_history.c — `perfgate history [RANGE] -o history.html`.
 *
 * Reads what is stored for each commit of a first-parent line (the local
 * store and git notes, harness/store/results.h; nothing is measured), hands it to
 * report/history.h, which judges the steps and finds change points and
 * benchmarks hard to trust, and writes one HTML page. Flamegraphs of the
 * points that matter (regressions, improvements, change points, and the
 * points before them, with a differential graph each) are written into a
 * directory beside the page, which links them relatively; the page itself
 * needs nothing else and no network.
 */
#include "counters/backend.h"
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/store/gitrange.h"
#include "harness/store/gitrepo.h"
#include "harness/store/notes_stacks.h"
#include "harness/store/results.h"
#include "report/flamegraph.h"
#include "report/history.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/folded.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate history",
    .usage = "usage: perfgate history [OPTIONS] [RANGE]\n"
             "\n"
             "Write one HTML page that plots every benchmark and metric over the\n"
             "first-parent commits of RANGE, from the results stored for them (local store\n"
             "and git notes; nothing is measured). Each point links to its commit and, where\n"
             "stacks were stored, its flamegraph. Regressions and improvements (a commit\n"
             "against the previous one, as perfgate compare decides) and change points (in\n"
             "exact counts every step past the threshold; in noisy ones where the level\n"
             "moved and stayed) are marked, and benchmarks whose history shows them flaky,\n"
             "bimodal or noisy are flagged (docs/history.md).\n"
             "\n"
             "RANGE is REV (default HEAD: its last --max-count first-parent commits) or\n"
             "A..B (the first-parent line after A up to B; B defaults to HEAD).\n",
    .footer = "Exit status: 0 written, 2 bad arguments, or no results for any commit of RANGE\n"
              "(nothing written).\n",
};

typedef struct opts {
    const char *output, *commit_url, *machine, *backend;
    int max_count, flamegraphs, page_data;
    pg_thresholds thresholds;
} opts;

enum { FG_CHANGES, FG_ALL, FG_NONE };
enum { DATA_AUTO, DATA_INLINE, DATA_SPLIT };

/* Past this many points the page's data goes to files beside it, one per
 * chart, loaded as the chart is shown: 2,000 commits x 600 series made a
 * 103 MB page that a browser parsed for a minute before drawing anything. */
#define SPLIT_POINTS 50000

/* The load average a run was measured under, from its "uncontrolled" list
 * (harness/measure/session.c records "system load average was L at the
 * start" from 0.5 on; nothing said: below that, 0). */
static double run_load(const pg_rundoc *r)
{
    double load = 0, l;
    for (size_t i = 0; i < r->uncontrolled.n; i++)
        if (sscanf(r->uncontrolled.v[i], "system load average was %lf", &l) == 1 && l > load)
            load = l;
    return load;
}

/* Each machine's load on the commit just added: the highest of its runs'. */
static void note_loads(pg_history *h, const pg_rundoc_list *runs)
{
    for (size_t i = 0; i < runs->n; i++) {
        double load = 0;
        for (size_t j = 0; j < runs->n; j++)
            if (!strcmp(runs->v[j].machine.id, runs->v[i].machine.id))
                load = fmax(load, run_load(&runs->v[j]));
        pg_history_set_load(h, runs->v[i].machine.id, load);
    }
}

/* The commits of RANGE, oldest first. */
static int range_commits(char (**line)[PG_OID_HEXSZ + 1], unsigned long *n, pg_repo *repo, const char *range, int max)
{
    char b[PG_OID_HEXSZ + 1];
    int rc;
    if (!strstr(range, "..")) {
        if ((rc = pg_repo_resolve(b, repo, range)) < 0)
            return rc;
        return pg_repo_last_first_parents(line, n, repo, b, (unsigned long)max);
    }
    if ((rc = pg_repo_range(line, n, repo, range)) < 0)
        return rc;
    if (*n > (unsigned long)max) {    /* the newest --max-count */
        memmove(*line, *line + (*n - (unsigned long)max), (size_t)max * sizeof **line);
        *n = (unsigned long)max;
    }
    return 0;
}

/* Reads every commit's results into `h`; *with counts the commits that had any. */
static int load(pg_history *h, size_t *with, pg_ctx *ctx, char (*line)[PG_OID_HEXSZ + 1], unsigned long n, const opts *o)
{
    *with = 0;
    for (unsigned long i = 0; i < n; i++) {
        char subject[512];
        pg_repo_summary(subject, sizeof subject, ctx->repo, line[i]);
        int rc = pg_history_add_commit(h, line[i], subject, pg_repo_commit_time(ctx->repo, line[i]));
        if (rc < 0)
            return rc;
        pg_rundoc_list runs = {0};
        rc = pg_results_load(&runs, ctx->store, ctx->repo, line[i]);
        if (rc == 0) {
            size_t before = h->nsides;
            pg_notes_stacks_fill(&runs, ctx->store, ctx->repo, line[i]);     /* another clone's, from the stacks note */
            rc = pg_results_history_add(h, &runs, line[i], ctx->store, o->machine, o->backend);
            *with += h->nsides > before;
            if (rc == 0)
                note_loads(h, &runs);
        } else if (rc == PG_ENOTFOUND) {
            rc = 0;
        } else if (rc != PG_ENOMEM) {
            /* one damaged document does not hide the rest of the history */
            pg_text_warn("warning: %s; %.12s is left out of the history", pg_error_last(), line[i]);
            rc = 0;
        }
        pg_rundoc_list_free(&runs);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* "https://github.com/o/r/commit/%H" from origin's URL, for the hosts whose
 * commit pages have a known address; "" otherwise. */
static void commit_url_of(char *out, size_t len, pg_repo *repo)
{
    char url[1024], host[256], path[512];
    out[0] = '\0';
    if (pg_repo_remote_url(url, sizeof url, repo, "origin") < 0)
        return;
    const char *s = url, *slash;
    if (!strncmp(s, "https://", 8) || !strncmp(s, "http://", 7) || !strncmp(s, "ssh://", 6)) {
        s = strstr(s, "://") + 3;
        const char *at = strchr(s, '@');
        if (at && at < strchr(s, '/'))
            s = at + 1;
        if (!(slash = strchr(s, '/')))
            return;
        snprintf(host, sizeof host, "%.*s", (int)(slash - s), s);
        snprintf(path, sizeof path, "%s", slash + 1);
    } else if ((slash = strchr(s, ':')) && strchr(s, '@') && strchr(s, '@') < slash) {  /* git@host:o/r.git */
        s = strchr(s, '@') + 1;
        snprintf(host, sizeof host, "%.*s", (int)(slash - s), s);
        snprintf(path, sizeof path, "%s", slash + 1);
    } else {
        return;
    }
    char *colon = strchr(host, ':');     /* a port: not part of the web address */
    if (colon)
        *colon = '\0';
    size_t pl = strlen(path);
    if (pl > 4 && !strcmp(path + pl - 4, ".git"))
        path[pl - 4] = '\0';
    if (strstr(host, "github"))
        snprintf(out, len, "https://%s/%s/commit/%%H", host, path);
    else if (strstr(host, "gitlab"))
        snprintf(out, len, "https://%s/%s/-/commit/%%H", host, path);
}

typedef struct graphs {
    const pg_history *h;
    char dir[2 * PATH_MAX]; /* where they are written (a new directory) */
    char href[3 * PATH_MAX];/* its name as the page links it (a relative URL: escaped) */
    size_t written;
    int failed;             /* a graph could not be drawn: warned once */
} graphs;

static int folded_load(pg_folded **f, const char *path)
{
    int rc = pg_folded_new(f);
    if (rc == 0 && (rc = pg_folded_read_file(*f, path)) < 0) {
        pg_folded_free(*f);
        *f = NULL;
    }
    return rc;
}

/* Draws the flamegraph of a point (its differential one against `prev` when
 * non-NULL) into g->dir once; *href the page's link, or NULL when there are no
 * stacks to draw. */
static int draw(char **href, graphs *g, const pg_hist_series *s, const pg_hist_point *p, const pg_hist_point *prev)
{
    *href = NULL;
    if (!p->stacks || (prev && !prev->stacks))
        return 0;
    char safe[PG_SAFE_NAME_SIZE], name[PATH_MAX], path[PATH_MAX * 3];
    pg_path_safe_name(safe, s->bench);
    const char *c = g->h->commits[p->commit].id;
    if (prev)
        snprintf(name, sizeof name, "%.12s..%.12s-%zu-%s.diff.svg", g->h->commits[prev->commit].id, c, s->lane, safe);
    else
        snprintf(name, sizeof name, "%.12s-%zu-%s.svg", c, s->lane, safe);
    snprintf(path, sizeof path, "%s/%s", g->dir, name);
    if (access(path, F_OK) != 0) {
        pg_folded *after = NULL, *before = NULL;
        pg_flamegraph_opts fo;
        pg_flamegraph_opts_init(&fo);
        char title[512];
        const pg_backend_props *by = pg_backend_props_named(g->h->lanes[s->lane].backend);
        fo.unit = by ? by->stacks_unit : "samples";
        snprintf(title, sizeof title, "%s at %.12s%s%.12s", s->bench, c, prev ? " against " : "",
                 prev ? g->h->commits[prev->commit].id : "");
        fo.title = title;
        int rc = folded_load(&after, p->stacks);
        if (rc == 0 && prev)
            rc = folded_load(&before, prev->stacks);
        if (rc == 0)
            rc = prev ? pg_flamegraph_write_diff_file(path, before, after, &fo) : pg_flamegraph_write_file(path, after, &fo);
        pg_folded_free(after);
        pg_folded_free(before);
        if (rc == PG_ENOMEM)
            return rc;
        if (rc < 0) {       /* stacks of another clone, or removed: the point just has no graph */
            if (!g->failed++)
                pg_text_warn("warning: no flamegraph for %s at %.12s: %s", s->bench, c, pg_error_last());
            return 0;
        }
        g->written++;
    }
    size_t len = strlen(g->href) + strlen(name) + 2;
    if (!(*href = malloc(len)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    snprintf(*href, len, "%s/%s", g->href, name);
    return 0;
}

/* Is point i of `s` one whose flamegraphs the page should have? */
static int wanted(const pg_hist_series *s, size_t i, int mode)
{
    if (mode == FG_ALL)
        return 1;
    for (size_t k = i; k <= i + 1 && k < s->np; k++) {   /* marked, or the one before a marked point */
        if (s->p[k].step == PG_VERDICT_REGRESSED || s->p[k].step == PG_VERDICT_IMPROVED)
            return 1;
        for (size_t j = 0; j < s->ncp; j++)
            if (s->cp[j].at == k)
                return 1;
    }
    return 0;
}

static int draw_all(graphs *g, pg_history *h, int mode)
{
    for (size_t i = 0; i < h->ns; i++) {
        pg_hist_series *s = &h->s[i];
        for (size_t k = 0; k < s->np; k++) {
            if (!wanted(s, k, mode))
                continue;
            int rc = draw(&s->p[k].flamegraph, g, s, &s->p[k], NULL);
            if (rc == 0 && k > 0 && s->p[k].step != PG_VERDICT_UNCHANGED)
                rc = draw(&s->p[k].diff_flamegraph, g, s, &s->p[k], &s->p[k - 1]);
            if (rc == 0 && k > 0 && !s->p[k].diff_flamegraph)
                for (size_t j = 0; j < s->ncp && rc == 0; j++)
                    if (s->cp[j].at == k)
                        rc = draw(&s->p[k].diff_flamegraph, g, s, &s->p[k], &s->p[k - 1]);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* "history.html" -> "history_files" (as a browser saves a page), beside it;
 * the page links it as a relative URL, every byte but [A-Za-z0-9._~-]
 * percent-encoded ("my page#2.html" -> "my%20page%232_files"). */
static void graphs_dir(graphs *g, const char *output)
{
    const char *base = strrchr(output, '/');
    base = base ? base + 1 : output;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base), k = 0;
    snprintf(g->dir, sizeof g->dir, "%.*s%.*s_files", (int)(base - output), output, (int)stem, base);
    for (size_t i = 0; i < stem && k + 4 < sizeof g->href; i++) {
        unsigned char c = (unsigned char)base[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("._~-", c))
            g->href[k++] = (char)c;
        else
            k += (size_t)snprintf(g->href + k, sizeof g->href - k, "%%%02X", c);
    }
    snprintf(g->href + k, sizeof g->href - k, "_files");
}

/* The page's data, one script per chart, into dir/data/. */
static int write_chunks(const pg_history *h, const char *dir)
{
    char path[3 * PATH_MAX];
    snprintf(path, sizeof path, "%s/data", dir);
    if (mkdir(path, 0777) < 0)
        return pg_error_set(PG_EIO, "cannot create %s: %s", path, strerror(errno));
    for (size_t k = 0; k < h->nchunks; k++) {
        snprintf(path, sizeof path, "%s/data/%zu.js", dir, k);
        FILE *f = fopen(path, "w");
        if (!f)
            return pg_error_set(PG_EIO, "cannot write %s: %s", path, strerror(errno));
        int rc = pg_history_render_chunk(f, h, k);
        if (fclose(f) != 0 && rc == 0)
            rc = pg_error_set(PG_EIO, "writing %s failed: %s", path, strerror(errno));
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Writes the page atomically; the graphs and the data files go to a new
 * directory that replaces the old one only once everything was written. */
static int write_page(pg_history *h, pg_hist_page *page, const opts *o, size_t *ngraphs)
{
    graphs g = {.h = h};
    char tmp[2 * PATH_MAX + 32] = "", data_href[sizeof g.href + 8];
    int rc = 0, split = o->page_data == DATA_SPLIT || (o->page_data == DATA_AUTO && h->npoints > SPLIT_POINTS);
    *ngraphs = 0;
    graphs_dir(&g, o->output);
    if (o->flamegraphs != FG_NONE || split) {
        char final[sizeof g.dir];
        snprintf(final, sizeof final, "%s", g.dir);
        snprintf(tmp, sizeof tmp, "%s.new%ld", final, (long)getpid());
        size_t tl = strlen(tmp);
        if (tl >= sizeof g.dir)
            return pg_error_set(PG_EINVAL, "the graphs' directory name is too long: %s", tmp);
        if (mkdir(tmp, 0777) < 0)
            return pg_error_set(PG_EIO, "cannot create %s: %s", tmp, strerror(errno));
        memcpy(g.dir, tmp, tl + 1);
        if (o->flamegraphs != FG_NONE)
            rc = draw_all(&g, h, o->flamegraphs);
        if (rc == 0 && split && (rc = write_chunks(h, tmp)) == 0) {
            snprintf(data_href, sizeof data_href, "%s/data", g.href);
            page->data_dir = data_href;
        }
        snprintf(g.dir, sizeof g.dir, "%s", final);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = rc == 0 ? open_memstream(&text, &len) : NULL;
    if (rc == 0 && !mem)
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    if (mem) {
        rc = pg_history_render_html(mem, h, page);
        fclose(mem);
    }
    int keep = g.written || page->data_dir;
    if (rc == 0 && keep) {
        pg_remove_tree(g.dir);
        if (rename(tmp, g.dir) < 0)
            rc = pg_error_set(PG_EIO, "cannot move the flamegraphs and data to %s: %s", g.dir, strerror(errno));
    }
    if (*tmp && (rc < 0 || !keep))
        pg_remove_tree(tmp);
    if (rc == 0)
        rc = pg_file_write_atomic(o->output, text, len);
    free(text);
    *ngraphs = g.written;
    return rc;
}

/* Ends a finding's line: when commits between `prev` and `p` were not
 * measured, the change happened somewhere among them, and bisect finds it. */
static void between(const pg_history *h, const pg_hist_point *prev, const pg_hist_point *p)
{
    size_t gap = prev && p->commit > prev->commit + 1 ? p->commit - prev->commit - 1 : 0;
    if (gap)
        printf(" (between %.12s and %.12s: %zu commit%s not measured; 'perfgate bisect %.12s %.12s' finds it)",
               h->commits[prev->commit].id, h->commits[p->commit].id, gap, gap == 1 ? "" : "s",
               h->commits[prev->commit].id, h->commits[p->commit].id);
    printf("\n");
}

/* The change point's shift: in % of the level before it, or, from 0, in
 * the metric's unit. */
static void print_shift(const pg_hist_series *s, double pct, double delta)
{
    if (isfinite(pct))
        printf("%+.2f%%", pct);
    else
        printf("%+.15g %s", delta, s->unit ? s->unit : "");
}

static void summarize(const pg_history *h, size_t with, size_t ngraphs, int split, const opts *o)
{
    size_t regs = 0, imps = 0, cps = 0, loads = 0, flagged[3] = {0};
    for (size_t i = 0; i < h->ns; i++) {
        const pg_hist_series *s = &h->s[i];
        for (size_t k = 0; k < s->np; k++)
            regs += s->p[k].step == PG_VERDICT_REGRESSED, imps += s->p[k].step == PG_VERDICT_IMPROVED;
        for (size_t j = 0; j < s->ncp; j++)
            *(s->cp[j].kind == PG_HIST_CP_LOAD ? &loads : &cps) += 1;
        flagged[0] += !!(s->flags & PG_HIST_BIMODAL);
        flagged[1] += !!(s->flags & PG_HIST_FLAKY);
        flagged[2] += !!(s->flags & PG_HIST_NOISY);
    }
    printf("history: %zu commits, %zu with results; %zu series (benchmark x metric x machine); %zu regressions, "
           "%zu improvements, %zu change points",
           h->ncommits, with, h->ns, regs, imps, cps);
    if (loads)
        printf(" (and %zu in time only, measured under different load)", loads);
    printf("; flagged: %zu bimodal, %zu flaky, %zu noisy\n", flagged[0], flagged[1], flagged[2]);
    for (size_t i = 0; i < h->ns; i++) {
        const pg_hist_series *s = &h->s[i];
        char name[200];
        pg_text_escape_buf(name, sizeof name, s->bench, PG_TEXT_TERM);
        if (s->flags & PG_HIST_BIMODAL) {
            if (s->mode_low == 0)   /* no percentage of 0 */
                printf("  bimodal: %s %s: two groups, at %.15g and %.15g %s (%.0f%% in the lower)\n", name, s->metric,
                       s->mode_low, s->mode_high, s->unit ? s->unit : "", 100 * s->mode_share);
            else
                printf("  bimodal: %s %s: two groups %.2f%% apart (%.0f%% in the lower)\n", name, s->metric,
                       s->mode_gap_pct, 100 * s->mode_share);
        }
        if (s->flags & PG_HIST_FLAKY)
            printf("  flaky: %s %s: %zu verdicts undone by the next commit\n", name, s->metric, s->flips);
        size_t up = 0, main = 0;
        for (size_t j = 0; j < s->ncp; j++)
            if (s->cp[j].kind != PG_HIST_CP_LOAD)
                main++, up += s->cp[j].delta > 0;
        /* a steady creep of a noisy series: one line, as the page does (an
         * exact series' change points are steps, each a finding) */
        if (!s->exact && main > 3 && (up == 0 || up == main)) {
            const pg_hist_change *a = NULL, *z = NULL;
            for (size_t j = 0; j < s->ncp; j++)
                if (s->cp[j].kind != PG_HIST_CP_LOAD)
                    z = &s->cp[j], a = a ? a : z;
            printf("  creep: %s %s: %zu change points, %+.2f%% in all, from %.12s to %.12s\n", name, s->metric, main,
                   100 * (z->after - a->before) / a->before, h->commits[s->p[a->at].commit].id,
                   h->commits[s->p[z->at].commit].id);
        } else {
            for (size_t j = 0; j < s->ncp; j++) {
                const pg_hist_change *c = &s->cp[j];
                if (c->kind == PG_HIST_CP_LOAD)
                    continue;
                const pg_hist_point *p = &s->p[c->at], *prev = c->at ? p - 1 : NULL;
                printf("  change point: %s %s ", name, s->metric);
                print_shift(s, c->pct, c->delta);
                printf(" from %.12s", h->commits[p->commit].id);
                between(h, prev, p);
            }
        }
        for (size_t k = 1; k < s->np; k++) {
            const pg_hist_point *p = &s->p[k];
            if (p->step != PG_VERDICT_REGRESSED && p->step != PG_VERDICT_IMPROVED)
                continue;
            printf("  %s: %s %s ", pg_verdict_name(p->step), name, s->metric);
            print_shift(s, p->step_pct, p->step_delta);
            printf(" at %.12s", h->commits[p->commit].id);
            between(h, p - 1, p);
        }
        for (size_t j = 0; j < s->ncp; j++) {
            const pg_hist_change *c = &s->cp[j];
            if (c->kind != PG_HIST_CP_LOAD)
                continue;
            printf("  time only: %s %s ", name, s->metric);
            print_shift(s, c->pct, c->delta);
            printf(" from %.12s, measured under different load (load average %.2f before, %.2f after; "
                   "its exact counts did not move)\n", h->commits[s->p[c->at].commit].id, c->load_before, c->load_after);
        }
    }
    printf("wrote %s", o->output);
    if (ngraphs)
        printf(" and %zu flamegraph%s beside it", ngraphs, ngraphs == 1 ? "" : "s");
    if (split)
        printf("%s its data in %zu files beside it", ngraphs ? "," : " and", h->nchunks);
    printf("\n");
}

/* The options, each checked before anything is read: 0 to go on, else
 * *status is the exit. */
static int parse_args(int *status, opts *o, pg_ctx *ctx, int argc, char **argv)
{
    static const char *const fg_modes[] = {"changes", "all", "none", NULL};
    static const char *const data_modes[] = {"auto", "inline", "split", NULL};
    const pg_opt table[] = {
        PG_OPT_STRING('o', "output", "FILE", "the page to write (default history.html); flamegraphs go to\n"
                      "FILE's name with _files instead of .html, beside it", &o->output),
        PG_OPT_INT('n', "max-count", "N", "at most the last N commits of the range (default 200)", &o->max_count, 1,
                   1000000),
        PG_OPT_CHOICE(0, "flamegraphs", "WHICH", "changes (default: the points marked and those before them),\n"
                      "all, or none", &o->flamegraphs, fg_modes),
        PG_OPT_CHOICE(0, "page-data", "WHERE", "auto (default: in the page up to 50,000 points, else split),\n"
                      "inline (one self-contained page), or split (one file per chart\n"
                      "in FILE's _files/data/, loaded when the chart is shown)", &o->page_data, data_modes),
        PG_OPT_STRING(0, "commit-url", "URL", "a commit's web page, %H standing for its id (default: from\n"
                      "origin when it is on GitHub or GitLab)", &o->commit_url),
        PG_OPT_STRING(0, "machine", "ID", "only the runs of this machine (an id or its prefix, as\n"
                      "perfgate show prints it)", &o->machine),
        PG_OPT_STRING(0, "backend", "B", "only the runs of this backend ({names})", &o->backend),
        PG_OPT_CALLBACK('t', "threshold", "M=PCT", "regression threshold for metric M, as for compare", &o->thresholds,
                        pg_cmd_opt_threshold),
        PG_OPT_END(),
    };
    if (pg_cmd_parse(status, ctx, &spec, table, argc, argv))
        return 1;
    *status = PG_EXIT_USAGE;
    if (ctx->args.nargs > 1)
        return pg_die("history takes one range (REV or A..B; got %d); see 'perfgate history --help'", ctx->args.nargs);
    if (!*o->output || (o->commit_url && !strstr(o->commit_url, "%H")))
        return pg_die(*o->output ? "--commit-url '%s' has no %%H where the commit id goes" : "--output: empty file name",
                      o->commit_url);
    pg_backend_kind kind;
    char names[256];
    if (o->backend && (pg_backend_parse(&kind, o->backend) < 0 || !pg_backend_props_of(kind)))
        return pg_die("--backend '%s': expected the name of a backend (%s)", o->backend,
                      pg_backend_expand(names, sizeof names, "{names}"));
    char outdir[PATH_MAX];
    struct stat st;
    pg_path_dirname(outdir, sizeof outdir, o->output);
    if (stat(outdir, &st) < 0 || !S_ISDIR(st.st_mode))
        return pg_die("--output %s: no directory %s to write it in", o->output, outdir);
    return 0;
}

/* The page, titled after the work tree's directory, dated now. */
static int publish(pg_history *h, size_t *ngraphs, pg_ctx *ctx, const char *range, const opts *o, int *split)
{
    char url[1200] = "", title[PATH_MAX + 32], when[64];
    if (!o->commit_url)
        commit_url_of(url, sizeof url, ctx->repo);
    const char *wd = ctx->workdir ? ctx->workdir : ctx->cwd;
    size_t wl = strlen(wd);
    while (wl > 1 && wd[wl - 1] == '/')
        wl--;
    const char *base = wd + wl;
    while (base > wd && base[-1] != '/')
        base--;
    snprintf(title, sizeof title, "perfgate history: %.*s", (int)(wd + wl - base), base);
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    pg_hist_page page = {.title = title, .range = range, .commit_url = o->commit_url ? o->commit_url : *url ? url : NULL,
                         .generated = when};
    int rc = write_page(h, &page, o, ngraphs);
    *split = page.data_dir != NULL;
    return rc;
}

int pg_cmd_history(pg_ctx *ctx, int argc, char **argv)
{
    opts o = {.output = "history.html", .max_count = 200};
    int status;
    if (parse_args(&status, &o, ctx, argc, argv)) {
        pg_thresholds_free(&o.thresholds);
        return status;
    }
    const char *range = ctx->args.nargs ? ctx->args.args[0] : "HEAD";
    char (*line)[PG_OID_HEXSZ + 1] = NULL;
    unsigned long n = 0;
    pg_history h = {0};
    size_t with = 0, ngraphs = 0;
    int split = 0, rc = pg_ctx_repo(ctx);
    if (rc == 0 && pg_ctx_store(ctx) < 0)
        ctx->store[0] = '\0';      /* no store: the notes alone */
    if (rc == 0)
        rc = range_commits(&line, &n, ctx->repo, range, o.max_count);
    if (rc == 0)
        rc = load(&h, &with, ctx, line, n, &o);
    if (rc == 0 && !with)
        rc = pg_error_set(PG_ENOTFOUND, "no results stored for any of the %lu commit%s of %s%s (local store %s, "
                          "git notes); run 'perfgate run' on them or 'perfgate fetch' the notes", n, n == 1 ? "" : "s",
                          range, o.machine || o.backend ? " for the --machine/--backend chosen" : "",
                          *ctx->store ? ctx->store : "none");
    if (rc == 0)
        rc = pg_history_analyze(&h, &o.thresholds);
    if (rc == 0)
        rc = publish(&h, &ngraphs, ctx, range, &o, &split);
    if (rc == 0)
        summarize(&h, with, ngraphs, split, &o);
    status = rc == 0 ? PG_EXIT_OK : pg_exit_status(rc);
    pg_history_free(&h);
    free(line);
    pg_thresholds_free(&o.thresholds);
    return status;
}
