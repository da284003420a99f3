#include "harness/commands.h"

int pg_cmd_doctor(int argc, char **argv)
{
    (void)argc; (void)argv;
    return pg_die("'doctor' is not built yet");
}
