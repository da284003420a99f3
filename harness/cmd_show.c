/* harness/cmd_show.c — `perfgate show [REV]`: what is stored for a commit. */
#include "harness/commands.h"
#include "harness/gitrepo.h"
#include "harness/store.h"
#include "harness/table.h"
#include "util/error.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: perfgate show [OPTIONS] [REV | FILE.json]\n"
    "\n"
    "Print the results stored for a commit (default HEAD): every run, on every machine.\n"
    "REV is anything git rev-parse accepts (HEAD~1, a branch, a tag, a short id).\n"
    "\n"
    "      --store DIR   result store (default: .perfgate/ at the work tree root)\n"
    "      --format F    text (default) or json (the stored run documents)\n"
    "  -v, --verbose     show backend-specific metrics too\n"
    "  -h, --help        this text\n";

int pg_cmd_show(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"store", required_argument, 0, 's'}, {"format", required_argument, 0, 'f'},
        {"verbose", no_argument, 0, 'v'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    const char *store_opt = NULL, *format = "text";
    int verbose = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":vh", longopts, NULL)) != -1) {
        switch (c) {
        case 's': store_opt = optarg; break;
        case 'f':
            format = optarg;
            if (strcmp(format, "text") && strcmp(format, "json"))
                return pg_die("--format: expected text or json, got '%s'", optarg);
            break;
        case 'v': verbose = 1; break;
        case 'h': fputs(usage_text, stdout); return PG_EXIT_OK;
        case ':': return pg_die("option '%s' needs a value; see 'perfgate show --help'", argv[optind - 1]);
        default: return pg_die("unknown option '%s'; see 'perfgate show --help'", argv[optind - 1]);
        }
    }
    if (argc - optind > 1)
        return pg_die("show takes one revision; see 'perfgate show --help'");
    const char *rev = optind < argc ? argv[optind] : "HEAD";

    pg_rundoc_list runs = {0};
    int rc;
    struct stat st;
    if (optind < argc && stat(rev, &st) == 0 && S_ISREG(st.st_mode)) {
        rc = pg_store_load_file(&runs, rev);
    } else {
        char cwd[PATH_MAX], root[PATH_MAX], commit[PG_OID_HEXSZ + 1];
        pg_repo *repo = NULL;
        if (!getcwd(cwd, sizeof cwd))
            return pg_die("cannot determine the current directory");
        rc = pg_repo_open(&repo, cwd);
        if (rc == 0)
            rc = pg_repo_resolve(commit, repo, rev);
        if (rc == 0)
            rc = pg_store_root(root, sizeof root, store_opt, pg_repo_workdir(repo));
        if (rc == 0) {
            rc = pg_store_load(&runs, root, commit);
            if (rc == PG_ENOTFOUND)
                pg_error_set(rc, "no results stored for %s (%.12s) in %s; run 'perfgate run' on it first", rev, commit, root);
        }
        pg_repo_free(repo);
    }
    if (rc < 0) {
        pg_rundoc_list_free(&runs);
        return pg_die_last();
    }

    if (!strcmp(format, "json")) {
        char *text;
        rc = pg_rundoc_list_write(&text, &runs);
        pg_rundoc_list_free(&runs);
        if (rc < 0)
            return pg_die_last();
        fputs(text, stdout);
        free(text);
        return PG_EXIT_OK;
    }
    for (size_t i = 0; i < runs.n; i++) {
        const pg_rundoc *run = &runs.v[i];
        const pg_machine *m = &run->machine;
        printf("%srun %s\n", i ? "\n" : "", run->id ? run->id : "(no id)");
        printf("  commit   %s%s\n", run->commit ? run->commit : "(none)", run->dirty ? " (dirty work tree)" : "");
        printf("  machine  %s  %s, %s, %d cores\n", m->id, m->cpu_model, m->kernel, m->cores);
        printf("  backend  %s (%s)\n", run->backend, m->backend_version);
        printf("  started  %s\n\n", run->start_time ? run->start_time : "(unknown)");
        for (size_t b = 0; b < run->nbench; b++)
            pg_table_print_bench(stdout, &run->bench[b], verbose);
    }
    pg_rundoc_list_free(&runs);
    return PG_EXIT_OK;
}
