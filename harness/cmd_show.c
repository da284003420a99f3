/* harness/cmd_show.c — `perfgate show [REV]`: what is stored for a commit. */
#include "harness/commands.h"
#include "harness/gitrepo.h"
#include "harness/store.h"
#include "harness/table.h"
#include "util/error.h"
#include "util/jsonfile.h"
#include "util/text.h"

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

    cJSON *runs = NULL;
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
    if (rc < 0)
        return pg_die_last();

    if (!strcmp(format, "json")) {
        char *text = pg_json_print(runs, NULL);
        if (text)
            fputs(text, stdout);
        free(text);
        cJSON_Delete(runs);
        return PG_EXIT_OK;
    }
    const cJSON *run;
    int i = 0;
    /* Whatever a stored document says is escaped for the terminal (util/text.h). */
#define S(obj, key, buf) pg_text_escape_buf(buf, sizeof buf, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, key)), PG_TEXT_TERM)
    cJSON_ArrayForEach(run, runs) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(run, "machine");
        char b1[256], b2[256], b3[256];
        printf("%srun %s\n", i++ ? "\n" : "", S(run, "id", b1));
        printf("  commit   %s%s\n", cJSON_IsString(cJSON_GetObjectItemCaseSensitive(run, "commit")) ? S(run, "commit", b1) : "(none)",
               cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "dirty")) ? " (dirty work tree)" : "");
        printf("  machine  %s  %s, %s, %d cores\n", S(m, "id", b1), S(m, "cpu_model", b2), S(m, "kernel", b3),
               (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "cores")));
        printf("  backend  %s (%s)\n", S(run, "backend", b1), S(m, "backend_version", b2));
        printf("  started  %s\n\n", S(run, "start_time", b1));
        const cJSON *b;
        cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(run, "benchmarks"))
            pg_table_print_bench(stdout, b, verbose);
    }
#undef S
    cJSON_Delete(runs);
    return PG_EXIT_OK;
}
