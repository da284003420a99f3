/* Fuzz target: `perfgate history` over any set of runs. The input is a
 * result document (a store or note document, an array of runs); its runs
 * are dealt to commits in order (a run whose "commit" differs from the
 * previous one's starts a new commit, as the runs of a first-parent line
 * would come), collected into sides per machine and backend as the command
 * does (harness/store/results.h), analyzed and written as the page. Any
 * combination of runs, backends and sample counts must be analyzed without
 * reading or writing out of bounds, and every finding points at a point. */
#include "tests/fuzz/fuzz.h"
#include "harness/store/results.h"
#include "harness/store/rundoc.h"
#include "report/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull)
        PG_FUZZ_ASSERT((devnull = fopen("/dev/null", "w")) != NULL);
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
        pg_fuzz_check_error(rc);
        i = j;
    }
    if (rc == 0 && (rc = pg_history_analyze(&h, NULL)) == 0) {
        for (size_t s = 0; s < h.ns; s++) {
            PG_FUZZ_ASSERT(h.s[s].lane < h.nlanes);
            for (size_t k = 0; k < h.s[s].np; k++)
                PG_FUZZ_ASSERT(h.s[s].p[k].commit < h.ncommits && h.s[s].p[k].n > 0);
            for (size_t k = 0; k < h.s[s].ncp; k++)
                PG_FUZZ_ASSERT(h.s[s].cp[k].at > 0 && h.s[s].cp[k].at < h.s[s].np);
        }
        pg_hist_page page = {.title = "fuzz", .range = "HEAD", .generated = "now"};
        rc = pg_history_render_html(devnull, &h, &page);
    }
    pg_fuzz_check_error(rc);
    pg_history_free(&h);
    pg_rundoc_list_free(&runs);
    return 0;
}
