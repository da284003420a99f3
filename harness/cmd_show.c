#include "harness/commands.h"

int pg_cmd_show(int argc, char **argv)
{
    (void)argc; (void)argv;
    return pg_die("'show' is not built yet");
}
