/* perfgate — benchmark-regression harness. Dispatches to the subcommands. */
#include "harness/commands.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"run", pg_cmd_run, "measure benchmarks and store the results under the current commit"},
    {"compare", pg_cmd_compare, "compare two commits' results: verdicts, exit 1 on a regression"},
    {"show", pg_cmd_show, "print the results stored for a commit (default HEAD)"},
    {"record", pg_cmd_record, "sample one command's stacks and write a flamegraph"},
    {"flamegraph", pg_cmd_flamegraph, "render folded stacks (or the difference of two) as SVG"},
    {"doctor", pg_cmd_doctor, "say which backends and events work on this machine, and why not"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: perfgate [--version] [--help] <command> [<args>]\n\n"
               "perfgate runs benchmarks pinned and warmed, counts instructions, cycles, cache and\n"
               "branch misses (perf_event, or valgrind where there is no PMU), keys every result to\n"
               "its git commit, and turns two commits into regression verdicts and flamegraphs.\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nexamples:\n"
               "  perfgate run bench/                  measure every benchmark, store under HEAD\n"
               "  perfgate compare HEAD~1 HEAD         verdicts; exit 1 on a regression\n"
               "  perfgate record -o out.svg -- ./prog args\n\n"
               "'perfgate <command> --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return PG_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (argc > 2 && strcmp(cmd, "help") == 0) {
            char *hargv[] = {argv[2], "--help", NULL};
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (!strcmp(commands[i].name, argv[2]))
                    return commands[i].fn(2, hargv);
        }
        usage(stdout);
        return PG_EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) {
        printf("perfgate %s\n", PERFGATE_VERSION);
        return PG_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(commands[i].name, cmd))
            return commands[i].fn(argc - 1, argv + 1);
    pg_text_warn("'%s' is not a perfgate command; see 'perfgate --help'", cmd);
    return PG_EXIT_USAGE;
}
