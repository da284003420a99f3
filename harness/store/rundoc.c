/* harness/store/rundoc.c — building and releasing run documents. See rundoc.h;
 * the writer is rundoc_write.c, the reader rundoc_read.c. */
#include "harness/store/rundoc.h"
#include "counters/backend.h"
#include "util/array.h"
#include "util/error.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pg_rundoc_set(char **dst, const char *s)
{
    char *c = NULL;
    if (s && !(c = strdup(s)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    free(*dst);
    *dst = c;
    return 0;
}

int pg_rundoc_strings_add(pg_rundoc_strings *l, const char *s)
{
    int rc = pg_array_grow(&l->v, &l->cap, l->n, sizeof *l->v, 4);
    if (rc < 0)
        return rc;
    l->v[l->n] = NULL;
    if ((rc = pg_rundoc_set(&l->v[l->n], s)) < 0)
        return rc;
    l->n++;
    return 0;
}

static void strings_free(pg_rundoc_strings *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* A metric's name, unit and backend are a few words repeated over 10^4
 * benchmarks, three copies each (5 MB of a 10 MB document): the common ones
 * point into `words` instead, and are never freed. (Only a list of common
 * words, not a registry: any other word is copied as before.) */
static const char words[] = "count\0ns\0bytes\0perf\0valgrind\0os\0instructions\0cycles\0cache-misses\0"
                            "branch-misses\0task-clock\0wall-time\0page-faults\0context-switches\0"
                            "cpu-migrations\0max-rss\0real-time\0cpu-time\0Ir";
/* The offsets in `words` (plus one; 0: no more) of the words of each
 * length, found once: a name is compared with the two or three words of
 * its length, not with all (scanning the words with strlen was 3% of the
 * CPU time of a 10^4-benchmark compare, comparing lengths then 2%). */
#define WORDS_MAX_LEN 24
#define WORDS_PER_LEN 4
static unsigned short word_of_len[WORDS_MAX_LEN][WORDS_PER_LEN];
static pthread_once_t words_once = PTHREAD_ONCE_INIT;

static void words_index(void)
{
    for (const char *w = words; w < words + sizeof words; w += strlen(w) + 1) {
        size_t n = strlen(w), k = 0;
        while (n < WORDS_MAX_LEN && k < WORDS_PER_LEN - 1 && word_of_len[n][k])
            k++;
        if (n < WORDS_MAX_LEN && k < WORDS_PER_LEN - 1)
            word_of_len[n][k] = (unsigned short)(w - words + 1);
    }
}

static int is_word(const char *s)
{
    uintptr_t p = (uintptr_t)s, w = (uintptr_t)words;
    return p >= w && p < w + sizeof words;
}

/* Sets the unset *dst to `s`: the table's copy when it is a usual word. */
static int metric_str_set(char **dst, const char *s)
{
    if (!s)
        return pg_rundoc_set(dst, s);
    pthread_once(&words_once, words_index);
    size_t n = strlen(s);
    for (size_t k = 0; n < WORDS_MAX_LEN && word_of_len[n][k]; k++) {
        const char *w = words + word_of_len[n][k] - 1;
        if (*w == *s && !memcmp(w, s, n))
            return *dst = (char *)w, 0;
    }
    return pg_rundoc_set(dst, s);
}

static void metric_str_free(char *s)
{
    if (!is_word(s))
        free(s);
}

static void metric_free(pg_rundoc_metric *m)
{
    metric_str_free(m->name);
    metric_str_free(m->unit);
    metric_str_free(m->source);
    free(m->samples);
    free(m->running);
}

void pg_rundoc_bench_free(pg_rundoc_bench *b)
{
    free(b->name);
    for (char **a = b->command; a && *a; a++)
        free(*a);
    free(b->command);
    free(b->cwd);
    pg_thresholds_free(&b->thresholds);
    free(b->failure.reason);
    free(b->failure.phase);
    free(b->failure.stderr_tail);
    free(b->stdout_log);
    free(b->stderr_log);
    free(b->stacks);
    free(b->stacks_weight);
    free(b->stacks_note);
    free(b->stacks_error);
    free(b->reuse_key);
    free(b->exact_varies);
    free(b->reused_run);
    free(b->reused_commit);
    strings_free(&b->selected_metrics);
    for (size_t i = 0; i < b->nmetrics; i++)
        metric_free(&b->metrics[i]);
    free(b->metrics);
    memset(b, 0, sizeof *b);
}

/* `s`, cut to fit, into dst[len]: without snprintf, since gathering a
 * side asks this for each of its 10^4 series. */
static void copy_cut(char *dst, size_t len, const char *s)
{
    size_t n = strnlen(s, len - 1);
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static void props_from(pg_rundoc_props *out, const pg_backend_props *p)
{
    copy_cut(out->name, sizeof out->name, p->name);
    out->exact = p->exact;
    out->simulated = p->simulated;
    copy_cut(out->stacks_unit, sizeof out->stacks_unit, p->stacks_unit);
}

int pg_rundoc_add_backend(pg_rundoc *run, const char *name)
{
    const pg_backend_props *p = pg_backend_props_named(name);
    if (!p)
        return pg_error_set(PG_EINVAL, "no backend is named '%s'", name);
    for (size_t i = 0; i < run->nbackends; i++)
        if (!strcmp(run->backends[i].name, name))
            return 0;
    if (run->nbackends == PG_RUNDOC_MAX_BACKENDS)
        return pg_error_set(PG_EINVAL, "a run measured by more than %d backends", PG_RUNDOC_MAX_BACKENDS);
    props_from(&run->backends[run->nbackends++], p);
    return 0;
}

int pg_rundoc_backend_props(pg_rundoc_props *out, const pg_rundoc *run, const char *name)
{
    for (size_t i = 0; name && i < run->nbackends; i++)
        if (!strcmp(run->backends[i].name, name)) {
            *out = run->backends[i];
            return 1;
        }
    const pg_backend_props *p = pg_backend_props_named(name);
    if (p)
        props_from(out, p);
    return p != NULL;
}

void pg_rundoc_free(pg_rundoc *r)
{
    free(r->perfgate_version);
    free(r->id);
    free(r->commit);
    free(r->start_time);
    free(r->session);
    free(r->end_time);
    free(r->backend);
    free(r->stdin_path);
    free(r->events);
    strings_free(&r->uncontrolled);
    strings_free(&r->notices);
    for (size_t i = 0; i < r->nbench; i++)
        pg_rundoc_bench_free(&r->bench[i]);
    free(r->bench);
    memset(r, 0, sizeof *r);
}

void pg_rundoc_list_free(pg_rundoc_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        pg_rundoc_free(&l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

void pg_rundoc_list_truncate(pg_rundoc_list *l, size_t n)
{
    while (l->n > n)
        pg_rundoc_free(&l->v[--l->n]);
}

int pg_rundoc_add_bench(pg_rundoc_bench **out, pg_rundoc *r)
{
    int rc = pg_array_grow(&r->bench, &r->capbench, r->nbench, sizeof *r->bench, 8);
    if (rc < 0)
        return rc;
    pg_rundoc_bench *b = &r->bench[r->nbench++];
    memset(b, 0, sizeof *b);
    b->repeat = b->warmup = -1;
    *out = b;
    return 0;
}

const pg_rundoc_bench *pg_rundoc_bench_find(const pg_rundoc *r, const char *name)
{
    for (size_t i = 0; i < r->nbench; i++)
        if (r->bench[i].name && !strcmp(r->bench[i].name, name))
            return &r->bench[i];
    return NULL;
}

pg_rundoc_bench *pg_rundoc_find_bench(pg_rundoc *r, const char *name)
{
    /* r is the caller's to change, so its benchmark is too */
    return (pg_rundoc_bench *)pg_rundoc_bench_find(r, name);
}

const pg_rundoc_metric *pg_rundoc_metric_find(const pg_rundoc_bench *b, const char *name)
{
    for (size_t i = 0; i < b->nmetrics; i++)     /* the first byte first, as pg_bench_find_series */
        if (b->metrics[i].name[0] == name[0] && !strcmp(b->metrics[i].name, name))
            return &b->metrics[i];
    return NULL;
}

int pg_rundoc_metric_get(pg_rundoc_metric **out, pg_rundoc_bench *b, const char *name, const char *unit,
                         const char *source)
{
    pg_rundoc_metric *m = (pg_rundoc_metric *)pg_rundoc_metric_find(b, name);
    if (m) {
        *out = m;
        return 0;
    }
    int rc = pg_array_grow(&b->metrics, &b->capmetrics, b->nmetrics, sizeof *b->metrics, 8);
    if (rc < 0)
        return rc;
    m = &b->metrics[b->nmetrics];
    memset(m, 0, sizeof *m);
    if ((rc = metric_str_set(&m->name, name)) < 0 || (rc = metric_str_set(&m->unit, unit)) < 0 ||
        (rc = metric_str_set(&m->source, source)) < 0) {
        metric_free(m);
        return rc;
    }
    b->nmetrics++;
    *out = m;
    return 0;
}

/* Grows both arrays to `cap`; `running` only once it exists. */
static int metric_grow(pg_rundoc_metric *m, size_t cap)
{
    double *s = realloc(m->samples, cap * sizeof *s);
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory");
    m->samples = s;
    if (m->running) {
        double *r = realloc(m->running, cap * sizeof *r);
        if (!r)
            return pg_error_set(PG_ENOMEM, "out of memory");
        m->running = r;
    }
    m->cap = cap;
    return 0;
}

int pg_rundoc_metric_reserve(pg_rundoc_metric *m, size_t n)
{
    return m->cap >= m->n + n ? 0 : metric_grow(m, m->n + n);
}

int pg_rundoc_metric_push(pg_rundoc_metric *m, double value, double running)
{
    if (m->n == m->cap && metric_grow(m, m->cap ? 2 * m->cap : 8) < 0)
        return PG_ENOMEM;
    if (running != 1.0 && !m->running) {    /* the first sample scaled: the rest were whole */
        if (!(m->running = malloc(m->cap * sizeof *m->running)))
            return pg_error_set(PG_ENOMEM, "out of memory");
        for (size_t i = 0; i < m->n; i++)
            m->running[i] = 1.0;
    }
    m->samples[m->n] = value;
    if (m->running)
        m->running[m->n] = running;
    m->n++;
    return 0;
}

double pg_rundoc_metric_running(const pg_rundoc_metric *m, size_t i)
{
    return m->running ? m->running[i] : 1.0;
}

int pg_rundoc_merge_bench(pg_rundoc *into, pg_rundoc_bench *from)
{
    pg_rundoc_bench *ib = from->name ? pg_rundoc_find_bench(into, from->name) : NULL;
    int rc = 0;
    if (!ib) {
        pg_rundoc_bench *nb;
        if ((rc = pg_rundoc_add_bench(&nb, into)) == 0) {
            *nb = *from;
            memset(from, 0, sizeof *from);
        }
        pg_rundoc_bench_free(from);
        return rc;
    }
    ib->runs += from->runs;
    if (!ib->exact_varies) {
        ib->exact_varies = from->exact_varies;
        from->exact_varies = NULL;
    }
    for (size_t i = 0; i < from->nmetrics && rc == 0; i++) {
        const pg_rundoc_metric *fm = &from->metrics[i];
        pg_rundoc_metric *m;
        rc = pg_rundoc_metric_get(&m, ib, fm->name, fm->unit, fm->source);
        for (size_t k = 0; k < fm->n && rc == 0; k++)
            rc = pg_rundoc_metric_push(m, fm->samples[k], pg_rundoc_metric_running(fm, k));
    }
    if (rc == 0 && from->failed) {
        ib->failed = 1;
        free(ib->failure.reason);
        free(ib->failure.phase);
        free(ib->failure.stderr_tail);
        ib->failure = from->failure;
        memset(&from->failure, 0, sizeof from->failure);
    }
    pg_rundoc_bench_free(from);
    return rc;
}
