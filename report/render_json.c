/* report/render_json.c — the comparison as JSON (docs/result-schema.md).
 *
 * Written straight out rather than built as a cJSON tree and printed: a
 * comparison of 10^4 benchmarks is a million values, and building, printing
 * and freeing the tree took longer than the comparison itself. Output goes
 * through a small buffer of our own (one locked stdio call per 8 KiB, not per
 * character). One metric per line keeps it readable and diffable. */
#include "report/control.h"
#include "report/coverage.h"
#include "report/divergence.h"
#include "report/render.h"
#include "util/array.h"
#include "util/error.h"
#include "util/numfmt.h"
#include "util/pair.h"
#include "util/text.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEPT 8

/* Text held in memory (a chunk of benchmarks rendered on the second core). */
typedef struct text {
    char *v;
    size_t len, cap;
    int oom;
} text;

typedef struct jw {
    FILE *out;                  /* NULL: into `mem` */
    text *mem;
    size_t n;
    const char *kept[KEPT];     /* str_kept: strings found to need no escaping, */
    size_t kept_len[KEPT];      /* and their lengths */
    size_t nkept;
    char buf[8192];
} jw;

/* s[0..n) onto the end of t (grown in its own arena: see render_benches). */
static void append(text *t, const char *s, size_t n)
{
    size_t want = t->cap * 2 > t->len + n ? t->cap * 2 : t->len + n;
    if (t->oom || (t->len + n > t->cap && pg_array_reserve(&t->v, &t->cap, want, 1) < 0)) {
        t->oom = 1;
        return;
    }
    memcpy(t->v + t->len, s, n);
    t->len += n;
}

static void write_out(jw *w, const char *s, size_t n)
{
    if (w->out)
        fwrite(s, 1, n, w->out);
    else
        append(w->mem, s, n);
}

static void flush(jw *w)
{
    write_out(w, w->buf, w->n);
    w->n = 0;
}

static void raw(jw *w, const char *s, size_t n)
{
    if (w->n + n > sizeof w->buf) {
        flush(w);
        if (n > sizeof w->buf) {
            write_out(w, s, n);
            return;
        }
    }
    memcpy(w->buf + w->n, s, n);
    w->n += n;
}

static void put(jw *w, const char *s) { raw(w, s, strlen(s)); }

static void put_raw(void *w, const char *s, size_t n) { raw(w, s, n); }

/* Names are any bytes: util/text.h makes them a valid JSON string. Most
 * (metric names, units, verdicts, benchmark names) are printable ASCII
 * without a quote or a backslash, which JSON takes as they are: copied
 * whole, not looked at a code point at a time (a million strings in a
 * comparison of 10^4 benchmarks). */
static size_t plain_len(const char *s)
{
    size_t n = 0;
    for (unsigned char c; (c = (unsigned char)s[n]) >= 0x20 && c < 0x7f && c != '"' && c != '\\';)
        n++;
    return n;
}

static void str(jw *w, const char *s)
{
    size_t n = plain_len(s);
    raw(w, "\"", 1);
    if (!s[n])
        raw(w, s, n);
    else
        pg_text_escape(put_raw, w, s, n + strlen(s + n), PG_TEXT_JSON);
    raw(w, "\"", 1);
}

/* str() of a string that stays where it is, unchanged, while the report is
 * written (a series' metric, unit and backend, borrowed from the sides):
 * the few of them 5 * 10^4 metrics repeat are scanned once, then known by
 * their address. */
static void str_kept(jw *w, const char *s)
{
    for (size_t i = 0; i < w->nkept && i < KEPT; i++)
        if (w->kept[i] == s) {
            raw(w, "\"", 1);
            raw(w, s, w->kept_len[i]);
            raw(w, "\"", 1);
            return;
        }
    size_t n = plain_len(s);
    if (!s[n]) {
        w->kept[w->nkept % KEPT] = s;
        w->kept_len[w->nkept++ % KEPT] = n;
    }
    str(w, s);
}

/* A word of the schema's own (a literal or a table's, never data): quoted
 * as it is. */
static void word(jw *w, const char *s)
{
    raw(w, "\"", 1);
    put(w, s);
    raw(w, "\"", 1);
}

/* JSON has no NaN or infinity: a value that does not exist is null. Integers
 * (counts, and most deltas) print exactly; other values with 15 significant
 * digits, more than any measurement has. */
static void num(jw *w, double v)
{
    char buf[32];
    if (!isfinite(v)) {
        raw(w, "null", 4);
    } else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        long long i = (long long)v;
        unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;
        char *p = buf + sizeof buf;
        do
            *--p = (char)('0' + u % 10);
        while (u /= 10);
        if (i < 0)
            *--p = '-';
        raw(w, p, (size_t)(buf + sizeof buf - p));
    } else {
        raw(w, buf, pg_fmt_g15(buf, v));
    }
}

/* A key of the schema's own (a literal here, never data): no escaping, and
 * its length known when compiling. knum_named takes a key that is not a
 * literal (still the schema's). */
#define LIT(w, s) raw(w, s, sizeof(s) - 1)
#define key(w, k) LIT(w, "\"" k "\": ")
#define kstr(w, k, v) (key(w, k), str(w, v))
#define knum(w, k, v) (key(w, k), num(w, v))
/* The same after a comma: the second and later fields of an object. */
#define fstr(w, k, v) (LIT(w, ", \"" k "\": "), str(w, v))
#define fnum(w, k, v) (LIT(w, ", \"" k "\": "), num(w, v))

static void knum_named(jw *w, const char *k, double v)
{
    raw(w, "\"", 1);
    put(w, k);
    raw(w, "\": ", 3);
    num(w, v);
}

static void side(jw *w, const char *key, const pg_side *s)
{
    put(w, "  \"");
    put(w, key);
    put(w, "\": {");
    kstr(w, "label", s->label);
    put(w, ", \"commit\": ");
    if (s->commit[0])
        str(w, s->commit);
    else
        put(w, "null");
    fstr(w, "machine", s->machine_id);
    fstr(w, "machine_description", s->machine_desc);
    fstr(w, "backend", s->backend);
    fnum(w, "runs", (double)s->nruns);
    fnum(w, "load", s->nload ? s->load_sum / (double)s->nload : NAN);
    if (s->nfetched)
        fnum(w, "fetched_runs", (double)s->nfetched);
    put(w, "},\n");
}

static const char *const sources[] = {"default", "manifest", "command line", "calibration"};

static void metric(jw *w, const pg_metric_cmp *m)
{
    put(w, "{");
    key(w, "name");
    str_kept(w, m->metric);
    LIT(w, ", \"unit\": ");
    str_kept(w, m->unit);
    LIT(w, ", \"backend\": ");
    str_kept(w, m->backend);
    fnum(w, "baseline", m->base);
    fnum(w, "candidate", m->cand);
    fnum(w, "delta", m->delta_abs);
    fnum(w, "delta_pct", m->delta_pct);
    fnum(w, "threshold_pct", m->threshold_pct);
    LIT(w, ", \"threshold_source\": ");
    word(w, sources[m->threshold_source]);
    if (!isnan(m->floor_pct))
        fnum(w, "noise_floor_pct", m->floor_pct);
    if (m->spread > 0)
        fnum(w, "spread", m->spread);
    LIT(w, ", \"verdict\": ");
    word(w, pg_verdict_name(m->verdict));
    put(w, m->gating ? ", \"gating\": true" : ", \"gating\": false");
    put(w, m->deterministic ? ", \"deterministic\": true" : ", \"deterministic\": false");
    put(w, m->not_compared ? ", \"compared\": false" : ", \"compared\": true");
    fnum(w, "baseline_samples", (double)m->na);
    fnum(w, "candidate_samples", (double)m->nb);
    fnum(w, "p", m->p);
    fnum(w, "p_adjusted", m->q);
    if (m->controlled) {
        fnum(w, "control_pct", m->control_pct);
        fnum(w, "control_delta", m->control_abs);
        put(w, m->within_noise ? ", \"within_noise\": true" : ", \"within_noise\": false");
        put(w, m->exact_drift ? ", \"exact_drift\": true" : ", \"exact_drift\": false");
    }
    if (m->note)
        fstr(w, "note", m->note);
    put(w, "}");
}

/* --control (report/control.h): "control": {"largest_pct": {gate: pct}, "within_noise", "exact_drift"}, or null. */
static void control(jw *w, const pg_comparison *c)
{
    put(w, ",\n  \"control\": ");
    if (!c->controlled) {
        put(w, "null");
        return;
    }
    put(w, "{\"largest_pct\": {");
    for (size_t g = 0; c->gates && g < c->gates->n; g++) {
        put(w, g ? ", " : "");
        str(w, c->gates->v[g]);     /* a name the user gave: escaped */
        put(w, ": ");
        num(w, pg_control_largest(c, c->gates->v[g]));
    }
    put(w, "}");
    fnum(w, "within_noise", (double)c->nwithin_noise);
    fnum(w, "exact_drift", (double)c->nexact_drift);
    put(w, "}");
}

/* "key": ["a", "b"] */
static void list(jw *w, const char *key, const char *const *v, size_t n)
{
    str(w, key);
    put(w, ": [");
    for (size_t i = 0; i < n; i++) {
        put(w, i ? ", " : "");
        str(w, v[i]);
    }
    put(w, "]");
}

/* The same after a comma. */
static void strings(jw *w, const char *key, const char *const *v, size_t n)
{
    put(w, ", ");
    list(w, key, v, n);
}

/* A changed function: where, what changed; `full` adds its span, frames and benchmarks. */
static void cov_func(jw *w, const pg_cov_func *f, int full)
{
    put(w, "\n    {");
    kstr(w, "function", f->name);
    fstr(w, "file", f->file);
    fnum(w, "line", f->changed_at);
    fnum(w, "lines", (double)f->nchanged);
    if (full) {
        fnum(w, "first", f->first);
        fnum(w, "last", f->last);
        strings(w, "in", (const char *const *)f->in, f->nin);
        put(w, ", \"benchmarks\": [");
        for (size_t k = 0; k < f->nbench; k++) {
            put(w, k ? ", {" : "{");
            kstr(w, "name", f->bench[k].name);
            fnum(w, "delta", f->bench[k].delta);
            put(w, "}");
        }
        put(w, "]");
    }
    put(w, "}");
}

/* The coverage of the change (report/coverage.h), or null: "changed" every
 * changed function, "uncovered" those no benchmark runs. */
static void coverage(jw *w, const pg_comparison *c)
{
    const pg_coverage *cv = c->coverage;
    put(w, ",\n  \"coverage\": ");
    if (!cv) {
        put(w, "null");
        return;
    }
    put(w, "{");
    kstr(w, "verdict", pg_coverage_verdict(cv));
    put(w, cv->required ? ", \"required\": true" : ", \"required\": false");
    put(w, cv->mapped ? ", \"mapped\": true" : ", \"mapped\": false");
    fstr(w, "unit", cv->unit);
    put(w, ", \"changed\": [");
    for (size_t i = 0; i < cv->nf; i++) {
        put(w, i ? "," : "");
        cov_func(w, &cv->f[i], 1);
    }
    put(w, cv->nf ? "\n  ], \"uncovered\": [" : "], \"uncovered\": [");
    for (size_t i = 0, n = 0; i < cv->nf; i++)
        if (!cv->f[i].nbench) {
            put(w, n++ ? "," : "");
            cov_func(w, &cv->f[i], 0);
        }
    put(w, cv->nuncovered ? "\n  ]" : "]");
    strings(w, "unmapped_files", (const char *const *)cv->unmapped, cv->nunmapped);
    strings(w, "benchmarks_without_tables", cv->blind, cv->nblind);
    put(w, ", \"note\": ");
    if (cv->note)
        str(w, cv->note);
    else
        put(w, "null");
    put(w, "}");
}

/* {"kind", "factor", "count": {name, backend, deltas}, "time": {...}, "p", "p_adjusted"} or null. */
static void divergence(jw *w, const pg_comparison *c, const pg_bench_cmp *b)
{
    put(w, ",\n     \"divergence\": ");
    if (!b->div) {
        put(w, "null");
        return;
    }
    put(w, "{");
    kstr(w, "kind", b->div->kind == PG_DIVERGENCE_OPPOSITE ? "opposite" : "magnitude");
    fnum(w, "factor", c->divergence_factor);
    const pg_metric_cmp *m[2] = {&b->div->count, &b->div->time};
    static const char *const keys[2] = {"count", "time"};
    for (int i = 0; i < 2; i++) {
        put(w, ", \"");
        put(w, keys[i]);
        put(w, "\": {");
        kstr(w, "name", m[i]->metric);
        fstr(w, "unit", m[i]->unit);
        fstr(w, "backend", m[i]->backend);
        fnum(w, "baseline", m[i]->base);
        fnum(w, "candidate", m[i]->cand);
        fnum(w, "delta", m[i]->delta_abs);
        fnum(w, "delta_pct", m[i]->delta_pct);
        put(w, "}");
    }
    fnum(w, "p", b->div->time.p);
    fnum(w, "p_adjusted", b->div->time.q);
    put(w, "}");
}

/* A benchmark measured again (report/confirm.h): its first round is its
 * "metrics", the second round's gating metrics are here. */
static void confirmation(jw *w, const pg_bench_cmp *b)
{
    put(w, ",\n     \"confirmation\": {");
    put(w, b->confirmed ? "\"confirmed\": true" : "\"confirmed\": false");
    put(w, ", \"rounds\": [{");
    knum(w, "round", 1);
    fstr(w, "verdict", pg_verdict_name(b->round1));
    put(w, "}, {");
    knum(w, "round", 2);
    fstr(w, "verdict", b->round2 ? pg_verdict_name(b->round2->verdict) : "not measured");
    put(w, ", \"metrics\": [");
    size_t n = 0;
    for (size_t k = 0; b->round2 && k < b->round2->nm; k++) {
        if (!b->round2->m[k].gating)
            continue;
        put(w, n++ ? ",\n       " : "\n       ");
        metric(w, &b->round2->m[k]);
    }
    put(w, "]}]}");
}

static void bench(jw *w, const pg_comparison *c, const pg_bench_cmp *b)
{
    put(w, "    {");
    kstr(w, "name", b->name);
    fstr(w, "verdict", pg_verdict_name(b->verdict));
    if (b->note)
        fstr(w, "note", b->note);
    put(w, ",\n     \"metrics\": [");
    for (size_t k = 0; k < b->nm; k++) {
        put(w, k ? ",\n       " : "\n       ");
        metric(w, &b->m[k]);
    }
    put(w, "]");
    divergence(w, c, b);
    if (b->round1 == PG_VERDICT_REGRESSED)
        confirmation(w, b);
    if (b->nfuncs) {
        put(w, ",\n     \"functions\": {");
        kstr(w, "unit", b->funcs_unit ? b->funcs_unit : "samples");
        put(w, ", \"top\": [");
        for (size_t i = 0; i < b->nfuncs; i++) {
            put(w, i ? ",\n       {" : "\n       {");
            kstr(w, "name", b->funcs[i].name);
            fnum(w, "baseline", b->funcs[i].base);
            fnum(w, "candidate", b->funcs[i].cand);
            fnum(w, "delta", b->funcs[i].delta);
            put(w, "}");
        }
        /* rows + other (+ unattributed) = the stacks' totals (the headline) */
        put(w, "],\n      \"other\": {");
        knum(w, "functions", (double)b->nfuncs_other);
        fnum(w, "baseline", b->funcs_other.base);
        fnum(w, "candidate", b->funcs_other.cand);
        fnum(w, "delta", b->funcs_other.delta);
        put(w, "}");
        if (b->funcs_headline) {
            const pg_metric_cmp *h = pg_bench_cmp_metric(b, b->funcs_headline);
            put(w, ",\n      \"unattributed\": {");
            kstr(w, "reason", PG_UNATTRIBUTED_LABEL);
            fnum(w, "baseline", b->funcs_unattributed.base);
            fnum(w, "candidate", b->funcs_unattributed.cand);
            fnum(w, "delta", b->funcs_unattributed.delta);
            put(w, "},\n      \"headline\": {");
            kstr(w, "metric", h->metric);
            fnum(w, "baseline", h->base);
            fnum(w, "candidate", h->cand);
            fnum(w, "delta", h->delta_abs);
            put(w, "}");
        }
        put(w, "}");
    }
    put(w, "}");
}

static void names(jw *w, const char *key, const char *const *v, size_t n, int last)
{
    put(w, "  ");
    list(w, key, v, n);
    put(w, last ? "\n" : ",\n");
}

/* The benchmarks array is most of a report (2 KiB a benchmark) and of its
 * time, and the comparison is read only: rendered on two cores in chunks of
 * benchmarks. The report's thread writes each chunk in order: the next one
 * straight into the report when no one has taken it, else the text it was
 * rendered into ahead. Both threads take chunks ahead, into at most SLOTS
 * texts: a few chunks' text is held at a time, never the report. One
 * helper for the whole array (a thread for every two chunks was 79 thread
 * starts for 10^4 benchmarks), and where the two cannot run at once (pg_pair_serial)
 * the report's thread finds every chunk free and renders it all. */
#define CHUNK 64
#define SLOTS 4

typedef struct slot {
    jw w;                       /* a writer into `t` */
    text t;
    int done;                   /* its chunk is rendered, not yet written */
} slot;

typedef struct render_job {
    jw *w;                      /* the report's writer */
    const pg_comparison *c;
    size_t nchunks;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next;                /* the first chunk no one has taken */
    size_t written;             /* chunks in the report so far */
    slot *s;                    /* chunk k renders into s[k % SLOTS] */
    int failed;                 /* a slot's text ran out of memory */
} render_job;

typedef struct render_role {
    render_job *j;
    int helper;
} render_role;

static void benches(jw *w, const pg_comparison *c, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        put(w, i ? ",\n" : "\n");
        bench(w, c, &c->bench[i]);
    }
}

static void render_chunk(jw *w, const render_job *j, size_t k)
{
    size_t from = k * CHUNK, to = from + CHUNK < j->c->nbench ? from + CHUNK : j->c->nbench;
    benches(w, j->c, from, to);
}

/* Takes the next chunk into its slot, rendered there (the lock held on
 * entry and on return). */
static void render_ahead(render_job *j)
{
    size_t k = j->next++;
    slot *sl = &j->s[k % SLOTS];
    pthread_mutex_unlock(&j->mu);
    sl->t.len = 0;
    sl->w = (jw){.mem = &sl->t};
    render_chunk(&sl->w, j, k);
    flush(&sl->w);
    pthread_mutex_lock(&j->mu);
    sl->done = 1;
    pthread_cond_broadcast(&j->cv);
}

/* Whether a chunk can be taken ahead: there is one, and a slot for it. */
static int ahead_free(const render_job *j)
{
    return j->next < j->nchunks && j->next < j->written + SLOTS;
}

/* The helper: the next chunk, while a slot is free for it. */
static void help(render_job *j)
{
    pthread_mutex_lock(&j->mu);
    for (;;) {
        while (j->next < j->nchunks && !ahead_free(j))
            pthread_cond_wait(&j->cv, &j->mu);
        if (j->next >= j->nchunks)
            break;
        render_ahead(j);
    }
    pthread_mutex_unlock(&j->mu);
}

/* The report's thread: every chunk in order, rendered straight into the
 * report when no one has taken it. While the helper renders the chunk due,
 * this thread renders the next free one into its slot rather than wait:
 * writing a chunk is much quicker than rendering it, and a thread that only
 * wrote left the helper to render nearly all of the report alone. */
static void write_chunks(render_job *j)
{
    pthread_mutex_lock(&j->mu);
    while (j->written < j->nchunks) {
        size_t k = j->written;
        slot *sl = &j->s[k % SLOTS];
        if (j->next == k) {
            j->next++;
            pthread_mutex_unlock(&j->mu);
            render_chunk(j->w, j, k);
        } else {
            while (!sl->done && ahead_free(j))
                render_ahead(j);
            while (!sl->done)
                pthread_cond_wait(&j->cv, &j->mu);
            if (sl->t.oom) {        /* out of memory: the report stops here, and no chunk more is taken */
                j->failed = 1;
                j->next = j->nchunks;
                pthread_cond_broadcast(&j->cv);     /* the helper may wait for a slot */
                break;
            }
            pthread_mutex_unlock(&j->mu);
            raw(j->w, sl->t.v, sl->t.len);
        }
        pthread_mutex_lock(&j->mu);
        sl->done = 0;
        j->written++;
        pthread_cond_broadcast(&j->cv);
    }
    pthread_mutex_unlock(&j->mu);
}

static int render_role_run(void *arg)
{
    render_role *r = arg;
    if (r->helper)
        help(r->j);
    else
        write_chunks(r->j);
    return 0;
}

/* The slots' texts are made here, on this thread: what the helper grows by
 * realloc stays in this thread's arena, and it makes none of its own (a
 * thread's arena and its pages were 0.5 MiB more peak memory for a
 * 10^4-benchmark report). */
static int render_benches(jw *w, const pg_comparison *c)
{
    render_job j = {.w = w, .c = c, .nchunks = (c->nbench + CHUNK - 1) / CHUNK};
    if (!(j.s = calloc(SLOTS, sizeof *j.s)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < SLOTS && rc == 0 && j.nchunks > 1; i++)     /* one chunk: no helper */
        if (!(j.s[i].t.v = malloc(j.s[i].t.cap = 64 * 1024)))
            rc = pg_error_set(PG_ENOMEM, "out of memory");
    pthread_mutex_init(&j.mu, NULL);
    pthread_cond_init(&j.cv, NULL);
    render_role mine = {&j, 0}, helper = {&j, 1};
    if (rc == 0)
        rc = pg_pair_run(render_role_run, &mine, &helper, j.nchunks > 1);
    if (rc == 0 && j.failed)
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t i = 0; i < SLOTS; i++)
        free(j.s[i].t.v);
    pthread_cond_destroy(&j.cv);
    pthread_mutex_destroy(&j.mu);
    free(j.s);
    return rc;
}

int pg_render_json(FILE *out, const pg_comparison *c)
{
    jw *w = malloc(sizeof *w);
    if (!w)
        return pg_error_set(PG_ENOMEM, "out of memory");
    w->out = out;
    w->n = 0;
    w->nkept = 0;
    put(w, "{\n  \"schema\": \"perfgate-compare/1\",\n  ");
    kstr(w, "verdict", pg_verdict_name(c->verdict));
    put(w, ",\n");
    side(w, "baseline", c->base);
    side(w, "candidate", c->cand);
    put(w, c->apart ? "  \"apart\": true,\n" : "  \"apart\": false,\n");
    put(w, c->cross_machine ? "  \"cross_machine\": true,\n  \"gates\": [" : "  \"cross_machine\": false,\n  \"gates\": [");
    for (size_t i = 0; c->gates && i < c->gates->n; i++) {
        put(w, i ? ", " : "");
        str(w, c->gates->v[i]);
    }
    put(w, "],\n  ");
    knum(w, "alpha", c->alpha);
    fnum(w, "divergence_factor", c->divergence_factor);
    fnum(w, "divergences", (double)c->ndiverged);
    put(w, c->fail_on_divergence ? ", \"fail_on_divergence\": true" : ", \"fail_on_divergence\": false");
    put(w, ",\n  \"counts\": {");
    for (int v = 0; v < 4; v++) {
        put(w, v ? ", " : "");
        knum_named(w, pg_verdict_name((pg_verdict)v), (double)c->count[v]);
    }
    put(w, "},\n  ");
    knum(w, "remeasured", (double)c->nremeasured);
    control(w, c);
    coverage(w, c);
    put(w, ",\n  \"benchmarks\": [");
    if (render_benches(w, c) < 0) {
        free(w);
        return PG_ENOMEM;
    }
    put(w, c->nbench ? "\n  ],\n" : "],\n");
    names(w, "new", c->added, c->nadded, 0);
    names(w, "vanished", c->vanished, c->nvanished, 0);
    put(w, "  \"not_gated\": [");
    for (size_t i = 0; i < c->nmissing; i++) {
        put(w, i ? ",\n    {" : "\n    {");
        kstr(w, "benchmark", c->missing[i].bench);
        fstr(w, "reason", c->missing[i].reason);
        put(w, "}");
    }
    put(w, c->nmissing ? "\n  ],\n  " : "],\n  ");
    knum(w, "gated", (double)c->ngated);
    put(w, "\n");
    put(w, "}\n");
    flush(w);
    free(w);
    if (fflush(out) != 0 || ferror(out))
        return pg_error_errno(PG_EIO, "cannot write the report");
    return 0;
}
