/* Fuzz target: `perfgate history` over any set of runs. The input is a
 * result document (a store or note document, an array of runs); its runs
 * are dealt to commits in order (a run whose "commit" differs from the
 * previous one's starts a new commit, as the runs of a first-parent line
 * would come), collected into sides per machine and backend as the command
 * does (harness/store/results.h), analyzed and written as the page, whole
 * and as the data files a split page loads. Any combination of runs,
 * backends and sample counts must be analyzed without reading or writing
 * out of bounds; every finding points at a point; every figure the page
 * reads is finite (a percentage of 0 excepted: NAN, written as null); and
 * the page's data and every data file are JSON that parses, with no number
 * that reads back as infinite. */
#include "tests/fuzz/fuzz.h"
#include "harness/store/results.h"
#include "harness/store/rundoc.h"
#include "report/history.h"

#include <cjson/cJSON.h>
#include <math.h>

static void check_finite(const pg_history *h)
{
    for (size_t i = 0; i < h->ns; i++) {
        const pg_hist_series *s = &h->s[i];
        PG_FUZZ_ASSERT(s->lane < h->nlanes && s->chunk < h->nchunks);
        PG_FUZZ_ASSERT(isfinite(s->threshold) && isfinite(s->floor) && isfinite(s->spread_pct));
        PG_FUZZ_ASSERT(isfinite(s->mode_gap_pct) && isfinite(s->mode_share) && isfinite(s->mode_low) &&
                       isfinite(s->mode_high));
        for (size_t k = 0; k < s->np; k++) {
            const pg_hist_point *p = &s->p[k];
            PG_FUZZ_ASSERT(p->commit < h->ncommits && p->n > 0);
            PG_FUZZ_ASSERT(isfinite(p->median) && isfinite(p->q1) && isfinite(p->q3) && isfinite(p->min) &&
                           isfinite(p->max));
            PG_FUZZ_ASSERT(!isinf(p->step_pct) && !isinf(p->step_delta));
        }
        for (size_t k = 0; k < s->ncp; k++) {
            const pg_hist_change *c = &s->cp[k];
            PG_FUZZ_ASSERT(c->at > 0 && c->at < s->np);
            PG_FUZZ_ASSERT(isfinite(c->before) && isfinite(c->after) && isfinite(c->delta) && isfinite(c->q));
            PG_FUZZ_ASSERT(isfinite(c->pct) || (isnan(c->pct) && c->before == 0));
        }
    }
}

/* Every number of a parsed JSON value is finite: a browser reads a
 * number that rounds past DBL_MAX as Infinity. */
static void check_numbers(const cJSON *j)
{
    if (cJSON_IsNumber(j))
        PG_FUZZ_ASSERT(isfinite(j->valuedouble));
    for (const cJSON *c = j->child; c; c = c->next)
        check_numbers(c);
}

/* The JSON between `from` (after its first occurrence) and `to` parses,
 * every number finite. */
static void check_json(const char *text, const char *from, const char *to)
{
    const char *a = strstr(text, from);
    PG_FUZZ_ASSERT(a != NULL);
    a += strlen(from);
    const char *z = strstr(a, to);
    PG_FUZZ_ASSERT(z != NULL);
    cJSON *j = cJSON_ParseWithLength(a, (size_t)(z - a));
    if (!j)
        fprintf(stderr, "fuzz: the page's data does not parse: %.*s\n", (int)(z - a > 400 ? 400 : z - a), a);
    PG_FUZZ_ASSERT(j != NULL);
    check_numbers(j);
    cJSON_Delete(j);
}

static void check_page(const pg_history *h)
{
    for (int split = 0; split < 2; split++) {
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        PG_FUZZ_ASSERT(mem != NULL);
        pg_hist_page page = {.title = "fuzz", .range = "HEAD", .generated = "now", .data_dir = split ? "h_files/data" : NULL};
        int rc = pg_history_render_html(mem, h, &page);
        fclose(mem);
        pg_fuzz_check_error(rc);
        if (rc == 0)
            check_json(text, "id=\"perfgate-data\">", "</script>");
        free(text);
    }
    for (size_t k = 0; k < h->nchunks; k++) {
        char *text = NULL, head[64];
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        PG_FUZZ_ASSERT(mem != NULL);
        int rc = pg_history_render_chunk(mem, h, k);
        fclose(mem);
        pg_fuzz_check_error(rc);
        snprintf(head, sizeof head, "perfgateChunk(%zu,", k);
        PG_FUZZ_ASSERT(rc < 0 || !strncmp(text, head, strlen(head)));
        if (rc == 0)
            check_json(text, head, ");\n");
        free(text);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_rundoc_list runs = {0};
    int rc = pg_rundoc_parse(&runs, (const char *)data, size, "fuzz.json");
    pg_fuzz_check_error(rc);
    pg_history h = {0};
    for (size_t i = 0; rc == 0 && i < runs.n;) {
        /* one commit: the runs from i that name the same commit */
        const char *c = runs.v[i].commit ? runs.v[i].commit : "";
        size_t j = i + 1;
        while (j < runs.n && !strcmp(runs.v[j].commit ? runs.v[j].commit : "", c))
            j++;
        char id[41];
        snprintf(id, sizeof id, "%040zu", i);
        pg_rundoc_list one = {.v = runs.v + i, .n = j - i, .cap = j - i};
        rc = pg_history_add_commit(&h, id, "subject", 1700000000 + (long long)i);
        if (rc == 0)
            rc = pg_results_history_add(&h, &one, id, NULL, NULL, NULL);
        /* a load from the run's position: commits measured under different loads */
        if (rc == 0)
            pg_history_set_load(&h, runs.v[i].machine.id, (double)(i % 4));
        pg_fuzz_check_error(rc);
        i = j;
    }
    if (rc == 0 && (rc = pg_history_analyze(&h, NULL)) == 0) {
        check_finite(&h);
        check_page(&h);
    }
    pg_fuzz_check_error(rc);
    pg_history_free(&h);
    pg_rundoc_list_free(&runs);
    return 0;
}
