#include "harness/commands.h"

int pg_cmd_record(int argc, char **argv)
{
    (void)argc; (void)argv;
    return pg_die("'record' is not built yet");
}
