#include "harness/commands.h"

int pg_cmd_run(int argc, char **argv)
{
    (void)argc; (void)argv;
    return pg_die("'run' is not built yet");
}
