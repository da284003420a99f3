#include "harness/commands.h"

int pg_cmd_compare(int argc, char **argv)
{
    (void)argc; (void)argv;
    return pg_die("'compare' is not built yet");
}
