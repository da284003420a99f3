#include "harness/commands.h"

int pg_cmd_flamegraph(int argc, char **argv)
{
    (void)argc; (void)argv;
    return pg_die("'flamegraph' is not built yet");
}
