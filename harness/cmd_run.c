/* harness/cmd_run.c — `perfgate run`: measure, store under the current commit, print. */
#include "counters/backend.h"
#include "counters/probe.h"
#include "harness/bench.h"
#include "harness/commands.h"
#include "harness/gitrepo.h"
#include "harness/leftovers.h"
#include "harness/machine.h"
#include "harness/runner.h"
#include "harness/session.h"
#include "harness/stacks.h"
#include "harness/store.h"
#include "harness/storecheck.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: perfgate run [OPTIONS] [PATH...] [-- CMD [ARG...]]\n"
    "\n"
    "Measure benchmarks and store the results under the current git commit.\n"
    "PATH is a directory (its perfgate.json manifest, else every executable file in it),\n"
    "a manifest file, or an executable. With no PATH and no CMD: bench/.\n"
    "\n"
    "  -r, --repeat N       measured runs per benchmark (default: 5 perf, 1 valgrind)\n"
    "  -w, --warmup N       unmeasured runs first (default: 1 perf, 0 valgrind)\n"
    "      --cpu N          pin benchmarks to CPU N (default: chosen, and named)\n"
    "      --no-pin         do not pin\n"
    "  -e, --events LIST    perf events, comma-separated libpfm4 names\n"
    "                       (default instructions,cycles,cache-misses,branch-misses)\n"
    "      --backend B      auto (default), perf or valgrind\n"
    "      --all-events     count kernel-mode too (default: user space only)\n"
    "      --timeout SEC    kill a benchmark's process group after SEC seconds\n"
    "      --sample[=HZ]    also sample stacks (default 997 Hz) and store them\n"
    "      --filter REGEX   only benchmarks whose name matches (extended regex)\n"
    "      --store DIR      result store (default: .perfgate/ at the work tree root,\n"
    "                       or $PERFGATE_STORE)\n"
    "      --no-store       measure and print, store nothing\n"
    "      --no-build       do not run the manifest's build command first\n"
    "      --format F       text (default) or json (the run document, on stdout)\n"
    "  -v, --verbose        show backend-specific metrics too\n"
    "  -h, --help           this text\n"
    "\n"
    "Exit status: 0 every benchmark ran, 1 one failed (crash, timeout, non-zero exit),\n"
    "2 usage or environment error, 130 interrupted (nothing stored).\n";

static int parse_uint(int *out, const char *opt, const char *s, int min)
{
    long long v;
    if (pg_parse_whole(&v, s, min, INT_MAX) < 0)
        return pg_error_set(PG_EINVAL, "%s: expected a whole number >= %d, got '%s'", opt, min, s);
    *out = (int)v;
    return 0;
}

int pg_cmd_run(int argc, char **argv)
{
    enum { O_CPU = 256, O_NOPIN, O_BACKEND, O_TIMEOUT, O_SAMPLE, O_FILTER, O_STORE, O_FORMAT,
           O_NOSTORE, O_NOBUILD, O_ALLEV };
    static const struct option longopts[] = {
        {"repeat", required_argument, 0, 'r'}, {"warmup", required_argument, 0, 'w'},
        {"cpu", required_argument, 0, O_CPU}, {"no-pin", no_argument, 0, O_NOPIN},
        {"events", required_argument, 0, 'e'}, {"backend", required_argument, 0, O_BACKEND},
        {"timeout", required_argument, 0, O_TIMEOUT}, {"sample", optional_argument, 0, O_SAMPLE},
        {"filter", required_argument, 0, O_FILTER}, {"store", required_argument, 0, O_STORE},
        {"format", required_argument, 0, O_FORMAT}, {"no-store", no_argument, 0, O_NOSTORE},
        {"no-build", no_argument, 0, O_NOBUILD}, {"all-events", no_argument, 0, O_ALLEV},
        {"verbose", no_argument, 0, 'v'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    char **cmd;
    int ncmd;
    int nopt = pg_split_dashdash(argc, argv, &cmd, &ncmd);
    pg_run_opts ro = {.repeat = -1, .warmup = -1, .cpu = -1, .round = -1, .sample_freq = 997};
    const char *events = NULL, *filter = NULL, *store_opt = NULL, *format = "text";
    pg_backend_kind backend = PG_BACKEND_AUTO;
    int no_store = 0, no_build = 0, user_only = 1, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(nopt, argv, ":r:w:e:vh", longopts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 'r': rc = parse_uint(&ro.repeat, "--repeat", optarg, 1); break;
        case 'w': rc = parse_uint(&ro.warmup, "--warmup", optarg, 0); break;
        case O_CPU: rc = parse_uint(&ro.cpu, "--cpu", optarg, 0); break;
        case O_NOPIN: ro.cpu = -2; break;
        case 'e': events = optarg; break;
        case O_BACKEND: rc = pg_backend_parse(&backend, optarg); break;
        case O_TIMEOUT: {
            char *end;
            ro.timeout = strtod(optarg, &end);
            if (*end || end == optarg || !(ro.timeout > 0))
                rc = pg_error_set(PG_EINVAL, "--timeout: expected a number of seconds > 0, got '%s'", optarg);
            break;
        }
        case O_SAMPLE: {
            ro.sample = 1;
            int hz = 0;
            if (optarg && (rc = parse_uint(&hz, "--sample", optarg, 1)) == 0)
                ro.sample_freq = (unsigned long)hz;
            break;
        }
        case O_FILTER: filter = optarg; break;
        case O_STORE: store_opt = optarg; break;
        case O_FORMAT:
            format = optarg;
            if (strcmp(format, "text") && strcmp(format, "json"))
                rc = pg_error_set(PG_EINVAL, "--format: expected text or json, got '%s'", optarg);
            break;
        case O_NOSTORE: no_store = 1; break;
        case O_NOBUILD: no_build = 1; break;
        case O_ALLEV: user_only = 0; break;
        case 'v': ro.verbose = 1; break;
        case 'h': fputs(usage_text, stdout); return PG_EXIT_OK;
        case ':': return pg_die("option '%s' needs a value; see 'perfgate run --help'", argv[optind - 1]);
        default: return pg_die("unknown option '%s'; see 'perfgate run --help'", argv[optind - 1]);
        }
        if (rc < 0)
            return pg_die_last();
    }
    int json = !strcmp(format, "json");

    /* What to run. */
    pg_benchset set;
    pg_benchset_init(&set);
    int rc = 0;
    for (int i = optind; i < nopt && rc == 0; i++)
        rc = pg_bench_discover(&set, argv[i]);
    if (rc == 0 && ncmd > 0)
        rc = pg_bench_add_command(&set, cmd, ncmd);
    if (rc == 0 && optind == nopt && ncmd == 0)
        rc = pg_bench_discover(&set, "bench");
    if (rc == 0 && filter) {
        rc = pg_benchset_filter(&set, filter);
        if (rc == 0 && set.n == 0)
            rc = pg_error_set(PG_ENOTFOUND, "--filter '%s' matches no benchmark", filter);
    }
    if (argc > 1 && nopt < argc && ncmd == 0 && rc == 0)
        rc = pg_error_set(PG_EINVAL, "nothing after '--': give the command to run");
    if (rc < 0) {
        pg_benchset_free(&set);
        return pg_die_last();
    }

    /* Everything below is released at `out`. */
    pg_session sess = {0};
    pg_repo *repo = NULL;
    cJSON *doc = NULL;
    pg_stacks *stacks = NULL;
    char logdir[PATH_MAX + 16] = "", stacks_dir[PATH_MAX * 2] = "";
    int status = PG_EXIT_OK, have_store = 0, nfailed = 0;

    /* How to measure: first, so a bad event name fails before a long build,
     * and while libgit2 initialises on the other core (joined at `out`). */
    pg_repo_init_async();
    if (pg_session_open(&sess, backend, events, user_only) < 0) {
        status = pg_die_last();
        goto out;
    }
    /* Where results go. */
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    char commit[PG_OID_HEXSZ + 1] = "";
    int dirty = 0, have_commit = 0;
    if (pg_repo_open(&repo, cwd) == 0)
        have_commit = pg_repo_head(commit, &dirty, repo) == 0;
    const char *workdir = repo ? pg_repo_workdir(repo) : NULL;
    char root[PATH_MAX] = "";
    have_store = !no_store && pg_store_root(root, sizeof root, store_opt, workdir) == 0;
    if (!have_commit && !no_store)
        fprintf(stderr, "perfgate: note: %s: results are keyed to no commit%s\n",
                repo ? "the repository has no commit yet" : "not in a git repository",
                have_store ? "" : " and not stored (give --store DIR to keep them)");

    if (set.build && !no_build) {
        char mdir[PATH_MAX];
        pg_path_dirname(mdir, sizeof mdir, set.build_manifest);
        if (pg_session_build(set.build, workdir ? workdir : mdir) < 0) {
            status = pg_die_last();
            goto out;
        }
    }

    if (ro.cpu == -1) {
        ro.cpu = pg_runner_pick_cpu();
    } else if (ro.cpu >= 0 && pg_check_cpu(ro.cpu) < 0) {
        status = pg_die_last();
        goto out;
    }

    /* Logs go to the store, or else to a temporary directory kept only for a failure's logs. */
    if (have_store) {
        snprintf(logdir, sizeof logdir, "%s/logs", root);
        if (pg_store_check_writable(root) < 0) {
            /* An unwritable store is an environment error before anything runs. */
            status = pg_die_last();
            goto out;
        }
    } else if (pg_mkdtemp(logdir, sizeof logdir, "perfgate-logs-") < 0) {
        status = pg_die_last();
        goto out;
    }
    pg_leftovers_sweep(have_store ? root : NULL);
    ro.log_dir = logdir;
    ro.progress = isatty(2);
    ro.out = json ? NULL : stdout;

    if (!json) {
        printf("perfgate run: %zu benchmark%s, backend %s, ", set.n, set.n == 1 ? "" : "s", pg_backend_name(sess.backend));
        if (ro.cpu >= 0)
            printf("pinned to CPU %d", ro.cpu);
        else
            printf("not pinned");
        if (have_commit)
            printf(", commit %.12s%s\n\n", commit, dirty ? " (dirty work tree)" : "");
        else
            printf(", no commit\n\n");
        fflush(stdout);
    }
    doc = pg_session_new_doc(&sess, have_commit ? commit : NULL, dirty, ro.cpu);
    cJSON *benchmarks = cJSON_GetObjectItemCaseSensitive(doc, "benchmarks");

    /* Stacks are written beside the store document, in a directory of this
     * run's own, removed again at `out` when the run is not stored. */
    if (ro.sample) {
        int src;
        if (have_store) {
            src = pg_stacks_new_in_store(&stacks, stacks_dir, sizeof stacks_dir, sess.backend, ro.sample_freq, root,
                                         have_commit ? commit : NULL, sess.machine.id,
                                         cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "id")));
        } else {
            snprintf(stacks_dir, sizeof stacks_dir, "%s/stacks", logdir);
            src = pg_stacks_new(&stacks, sess.backend, ro.sample_freq, stacks_dir, stacks_dir);
        }
        if (src < 0) {
            status = pg_die_last();
            goto out;
        }
        ro.stacks = stacks;
    }

    rc = pg_runner_run(benchmarks, &nfailed, &set, sess.meter, &ro);
    pg_session_finish_doc(&sess, doc);
    if (rc == PG_EINTR) {
        fprintf(stderr, "\nperfgate: interrupted; nothing was stored\n");
        status = 130;
        goto out;
    }
    if (rc < 0) {
        status = pg_die_last();
        goto out;
    }
    if (have_store) {
        char path[PATH_MAX + 64];
        if (pg_store_append(path, sizeof path, root, have_commit ? commit : NULL, sess.machine.id, doc) < 0) {
            status = pg_die_last();
            goto out;
        }
        pg_stacks_keep(stacks);
        if (!json) {
            printf("stored: %s\n", path);
            if (stacks_dir[0] && !access(stacks_dir, F_OK))
                printf("stacks: %s/\n", stacks_dir);
        }
    } else if (ro.sample && !json) {
        printf("stacks (not stored): %s/\n", stacks_dir);
    }
    if (json) {
        char *text = cJSON_Print(doc);
        puts(text);
        cJSON_free(text);
    }
    if (nfailed) {
        fprintf(stderr, "perfgate: %d of %zu benchmarks failed\n", nfailed, set.n);
        status = PG_EXIT_FAIL;
    }

out:
    pg_repo_init_wait();
    pg_stacks_free(stacks);     /* with its directory in the store, unless the run was stored */
    if (!have_store && logdir[0] && !nfailed && !ro.sample)
        pg_remove_tree(logdir);         /* temporary, worth keeping only for a failure's logs */
    cJSON_Delete(doc);
    pg_session_close(&sess);
    pg_benchset_free(&set);
    pg_repo_free(repo);
    return status;
}
