/* harness/commands.h — the subcommands of the perfgate program.
 *
 * Each takes the arguments after its own name (argv[0] is the subcommand
 * name) and returns the process exit status: 0 success, 1 the measured thing
 * failed or regressed, 2 a usage or environment error. Errors are printed
 * as one line "perfgate: ..." on stderr by the command itself.
 */
#ifndef PG_HARNESS_COMMANDS_H
#define PG_HARNESS_COMMANDS_H

#include <stdio.h>

int pg_cmd_run(int argc, char **argv);
int pg_cmd_show(int argc, char **argv);
int pg_cmd_compare(int argc, char **argv);
int pg_cmd_record(int argc, char **argv);
int pg_cmd_flamegraph(int argc, char **argv);
int pg_cmd_doctor(int argc, char **argv);

/* Exit statuses shared by every command. */
enum { PG_EXIT_OK = 0, PG_EXIT_FAIL = 1, PG_EXIT_USAGE = 2 };

/* Prints "perfgate: <msg>\n" to stderr (msg printf-style, escaped for the
 * terminal: pg_text_warn) and returns PG_EXIT_USAGE, for `return pg_die("...")`
 * in a command. */
int pg_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, with pg_error_last() as the message. */
int pg_die_last(void);

/* `s` as a whole number from min to max (decimal, nothing after it): 0 and
 * *out, or -1 (no message: each option says what it wanted). */
int pg_parse_whole(long long *out, const char *s, long long min, long long max);

/* PG_EINVAL "--cpu N: this machine has CPUs 0 to M" when `cpu` is not online. */
int pg_check_cpu(int cpu);

/* Splits argv at the first "--": returns the number of arguments before it
 * (what getopt should see); rest and nrest get what follows it (NULL/0 when no "--"). */
int pg_split_dashdash(int argc, char **argv, char ***rest, int *nrest);

#endif
