/* harness/cmd_show.c — `perfgate show [REV]`: what is stored for a commit. */
#include "harness/commands.h"
#include "harness/gitrepo.h"
#include "harness/store.h"
#include "harness/table.h"
#include "util/error.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate show",
    .usage = "usage: perfgate show [OPTIONS] [REV | FILE.json]\n"
             "\n"
             "Print the results stored for a commit (default HEAD): every run, on every machine.\n"
             "REV is anything git rev-parse accepts (HEAD~1, a branch, a tag, a short id).\n",
};

int pg_cmd_show(pg_ctx *ctx, int argc, char **argv)
{
    static const char *const formats[] = {"text", "json", NULL};
    int json = 0, verbose = 0, status;
    const pg_opt opts[] = {
        PG_OPT_CHOICE(0, "format", "F", "text (default) or json (the stored run documents)", &json, formats),
        PG_OPT_FLAG('v', "verbose", "show backend-specific metrics too", &verbose),
        PG_OPT_END(),
    };
    if (pg_cmd_parse(&status, ctx, &spec, opts, argc, argv))
        return status;
    if (ctx->args.nargs > 1)
        return pg_die("show takes one revision; see 'perfgate show --help'");
    const char *rev = ctx->args.nargs ? ctx->args.args[0] : "HEAD";

    cJSON *runs = NULL;
    int rc;
    struct stat st;
    if (ctx->args.nargs && stat(rev, &st) == 0 && S_ISREG(st.st_mode)) {
        rc = pg_store_load_file(&runs, rev);
    } else {
        char commit[PG_OID_HEXSZ + 1];
        rc = pg_ctx_repo(ctx);
        if (rc == 0)
            rc = pg_repo_resolve(commit, ctx->repo, rev);
        if (rc == 0)
            rc = pg_ctx_store(ctx);
        if (rc == 0) {
            rc = pg_store_load(&runs, ctx->store, commit);
            if (rc == PG_ENOTFOUND)
                pg_error_set(rc, "no results stored for %s (%.12s) in %s; run 'perfgate run' on it first", rev, commit,
                             ctx->store);
        }
    }
    if (rc < 0)
        return pg_die_last();

    if (json) {
        char *text = cJSON_Print(runs);
        puts(text);
        cJSON_free(text);
        cJSON_Delete(runs);
        return PG_EXIT_OK;
    }
    const cJSON *run;
    int i = 0;
    cJSON_ArrayForEach(run, runs) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(run, "machine");
        const char *commit = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "commit"));
        printf("%srun %s\n", i++ ? "\n" : "", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "id")));
        printf("  commit   %s%s\n", commit ? commit : "(none)",
               cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "dirty")) ? " (dirty work tree)" : "");
        printf("  machine  %s  %s, %s, %d cores\n", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "id")),
               cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "cpu_model")),
               cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "kernel")),
               (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "cores")));
        printf("  backend  %s (%s)\n", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "backend")),
               cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "backend_version")));
        printf("  started  %s\n\n", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "start_time")));
        const cJSON *b;
        cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(run, "benchmarks"))
            pg_table_print_bench(stdout, b, verbose);
    }
    cJSON_Delete(runs);
    return PG_EXIT_OK;
}
