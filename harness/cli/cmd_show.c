/* harness/cli/cmd_show.c — `perfgate show [REV]`: what is stored for a commit. */
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/store/gitrepo.h"
#include "harness/store/notes.h"
#include "harness/store/results.h"
#include "harness/store/store.h"
#include "harness/measure/table.h"
#include "util/error.h"
#include "util/jsonfile.h"
#include "util/text.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The runs of `rev`: a result file, or a revision's (the store, then its note). */
static int load_runs(pg_rundoc_list *runs, pg_ctx *ctx, const char *rev)
{
    struct stat st;
    if (ctx->args.nargs && stat(rev, &st) == 0 && S_ISREG(st.st_mode))
        return pg_store_load_file(runs, rev);
    char commit[PG_OID_HEXSZ + 1];
    int rc = pg_ctx_repo(ctx);
    if (rc == 0)
        rc = pg_repo_resolve(commit, ctx->repo, rev);
    if (rc == 0 && pg_ctx_store(ctx) < 0)
        ctx->store[0] = '\0';      /* no store: the notes alone */
    if (rc == 0) {
        rc = pg_results_load(runs, ctx->store, ctx->repo, commit);
        if (rc == PG_ENOTFOUND)
            pg_error_set(rc, "no results stored for %s (%.12s) in %s or in %s; run 'perfgate run' on it first "
                         "(or 'perfgate fetch' another clone's)", rev, commit, ctx->store, PG_NOTES_REF);
    }
    return rc;
}

/* Each run's head and its benchmarks' tables. Whatever a stored document
 * says is escaped for the terminal (util/text.h). */
static void print_runs(const pg_rundoc_list *runs, int verbose)
{
#define S(str, buf) pg_text_escape_buf(buf, sizeof buf, str, PG_TEXT_TERM)
    for (size_t i = 0; i < runs->n; i++) {
        const pg_rundoc *run = &runs->v[i];
        const pg_machine *m = &run->machine;
        char b1[256], b2[256], b3[256];
        printf("%srun %s\n", i ? "\n" : "", run->id ? S(run->id, b1) : "(no id)");
        printf("  commit   %s%s\n", run->commit ? S(run->commit, b1) : "(none)", run->dirty ? " (dirty work tree)" : "");
        printf("  machine  %s  %s, %s, %d cores\n", S(m->id, b1), S(m->cpu_model, b2), S(m->kernel, b3), m->cores);
        printf("  backend  %s (%s)\n", S(run->backend, b1), S(m->backend_version, b2));
        printf("  started  %s\n\n", run->start_time ? S(run->start_time, b1) : "(unknown)");
        for (size_t b = 0; b < run->nbench; b++)
            pg_table_print_bench(stdout, run, &run->bench[b], verbose);
    }
#undef S
}

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
    pg_rundoc_list runs = {0};
    int rc = load_runs(&runs, ctx, ctx->args.nargs ? ctx->args.args[0] : "HEAD");
    char *text = NULL;
    if (rc == 0) {
        pg_results_check_exact(&runs);
        if (json)
            rc = pg_rundoc_list_write(&text, &runs);
        else
            print_runs(&runs, verbose);
    }
    pg_rundoc_list_free(&runs);
    if (rc < 0)
        return pg_die_last();
    if (text)
        fputs(text, stdout);
    free(text);
    return PG_EXIT_OK;
}
