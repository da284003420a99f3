/* perfgate — benchmark-regression harness. Dispatches to the subcommands. */
#include "harness/cli/commands.h"
#include "counters/backend.h"
#include "util/pair.h"
#include "util/suggest.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: perfgate [--version] [--help] <command> [<args>]\n\n"
               "perfgate runs benchmarks pinned and warmed, counts instructions, cycles, cache and\n"
               "branch misses (perf_event, or valgrind where there is no PMU), keys every result to\n"
               "its git commit, and turns two commits into regression verdicts and flamegraphs.\n\n"
               "commands:\n");
    for (size_t i = 0; i < pg_ncommands; i++)
        fprintf(f, "  %-11s %s\n", pg_commands[i].name, pg_commands[i].summary);
    fprintf(f, "\nexamples:\n"
               "  perfgate run bench/                  measure every benchmark, store under HEAD\n"
               "  perfgate compare HEAD~1 HEAD         verdicts; exit 1 on a regression\n"
               "  perfgate record -o out.svg -- ./prog args\n\n"
               "'perfgate <command> --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
    pg_pair_serial(pg_backend_hosted());    /* measured by itself: the same exact count on every run */
    if (argc < 2) {
        usage(stderr);
        return PG_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (argc > 2 && strcmp(cmd, "help") == 0) {
            char *hargv[] = {argv[2], "--help", NULL};
            const pg_command *c = pg_command_find(argv[2]);
            if (c)
                return pg_command_exec(c, 2, hargv);
        }
        usage(stdout);
        return PG_EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) {
        printf("perfgate %s\n", PERFGATE_VERSION);
        return PG_EXIT_OK;
    }
    const pg_command *c = pg_command_find(cmd);
    if (c)
        return pg_command_exec(c, argc - 1, argv + 1);
    pg_suggest s;
    pg_suggest_init(&s, cmd);
    for (size_t i = 0; i < pg_ncommands; i++)
        pg_suggest_offer(&s, pg_commands[i].name);
    const char *near = pg_suggest_best(&s);
    if (near)
        pg_text_warn("'%s' is not a perfgate command (did you mean '%s'?); see 'perfgate --help'", cmd, near);
    else
        pg_text_warn("'%s' is not a perfgate command; see 'perfgate --help'", cmd);
    return PG_EXIT_USAGE;
}
