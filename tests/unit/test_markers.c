/* Region markers and call counts, below the harness: the control channel's
 * protocol (commands applied in order, each acked after it was applied), the
 * marker note and symbol resolution in real ELF files, and callgrind's call
 * counts. */
#include "counters/callgrind.h"
#include "counters/control.h"
#include "counters/elfsym.h"
#include "tests/check.h"
#include "util/error.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct applied {
    int v[8];
    int n;
    int acks_before[8];     /* bytes of acks sent since the last command was applied (read here) */
    int ackfd;
} applied;

static int available(int fd)
{
    char buf[64];
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    ssize_t n = read(fd, buf, sizeof buf);
    fcntl(fd, F_SETFL, flags);
    return n > 0 ? (int)n : 0;
}

static int record(void *ctx, int on)
{
    applied *a = ctx;
    a->acks_before[a->n] = available(a->ackfd);
    a->v[a->n++] = on;
    return 0;
}

static void test_control(void)
{
    pg_control c;
    pg_control_init(&c);
    CHECK_EQ_INT(pg_control_open(&c), 0);
    int fds[2];
    CHECK_EQ_INT(pg_control_child_fds(&c, fds, 2), 2);
    char want[64];
    snprintf(want, sizeof want, "PERFGATE_CTL_FD=%d,%d", fds[0], fds[1]);
    CHECK_STR(c.env, want);
    /* The child's side, as include/perfgate.h writes it; an unknown command
     * is acked and ignored. */
    int ctl = dup(fds[0]), ack = dup(fds[1]);
    pg_control_parent_side(&c);
    CHECK(write(ctl, "enable\ndisable\nbogus\nenable\n", 28) == 28);
    applied a = {.ackfd = ack};
    CHECK_EQ_INT(pg_control_serve(&c, record, &a), 0);
    CHECK_EQ_INT(a.n, 3);
    CHECK(a.v[0] == 1 && a.v[1] == 0 && a.v[2] == 1);
    /* Each command is applied before its ack is sent: no ack before the
     * first, the first's before the second, the second's and the bogus
     * command's before the third, the third's at the end. */
    CHECK_EQ_INT(a.acks_before[0], 0);
    CHECK_EQ_INT(a.acks_before[1], 4);
    CHECK_EQ_INT(a.acks_before[2], 8);
    char buf[64] = "";
    CHECK_EQ_INT(read(ack, buf, sizeof buf - 1), 4);
    CHECK_STR(buf, "ack\n");
    CHECK_EQ_INT(c.enables, 2);
    CHECK_EQ_INT(c.disables, 1);
    /* The child gone: the channel closes, and an ack to nobody does not kill perfgate (SIGPIPE). */
    CHECK(write(ctl, "enable\n", 7) == 7);
    close(ack);
    close(ctl);
    CHECK_EQ_INT(pg_control_serve(&c, record, &a), 0);
    CHECK_EQ_INT(pg_control_fd(&c), -1);
    pg_control_close(&c);
}

static void test_elf(const char *progs)
{
    char path[PATH_MAX], file[PATH_MAX];
    unsigned flags = 0;
    snprintf(path, sizeof path, "%s/regions", progs);
    CHECK_EQ_INT(pg_elfsym_markers(path, &flags), 1);
    CHECK_EQ_INT(flags, PG_MARKER_NOTE_VALGRIND);
    snprintf(path, sizeof path, "%s/regions_novg", progs);
    CHECK_EQ_INT(pg_elfsym_markers(path, &flags), 1);
    CHECK_EQ_INT(flags, 0);
    snprintf(path, sizeof path, "%s/work", progs);
    CHECK_EQ_INT(pg_elfsym_markers(path, &flags), 0);
    CHECK_EQ_INT(pg_elfsym_markers("/nonexistent", &flags), PG_EIO);

    /* malloc comes from libc, found through the program's DT_NEEDED. */
    uint64_t off = 0;
    snprintf(path, sizeof path, "%s/regions", progs);
    CHECK_EQ_INT(pg_elfsym_resolve(file, &off, path, "malloc", NULL), 0);
    CHECK_CONTAINS(file, "libc.so");
    CHECK(off > 0);
    /* A program's own function is found in the program. */
    CHECK_EQ_INT(pg_elfsym_resolve(file, &off, path, "main", NULL), 0);
    CHECK_STR(file, path);
    /* A library found through the program's RUNPATH. */
    snprintf(path, sizeof path, "%s/sample_lib", progs);
    CHECK_EQ_INT(pg_elfsym_resolve(file, &off, path, "pgsample_entry", NULL), 0);
    CHECK_CONTAINS(file, "/libpgsample.so");
    /* A library's static function is not a symbol the loader binds. */
    CHECK_EQ_INT(pg_elfsym_resolve(file, &off, path, "lib_inner", NULL), PG_ENOTFOUND);
    CHECK_EQ_INT(pg_elfsym_resolve(file, &off, path, "no_such_function_here", NULL), PG_ENOTFOUND);
    CHECK_CONTAINS(pg_error_last(), "no function 'no_such_function_here' in ");
    /* An IFUNC's entry is its resolver: refused, with what to do instead. */
    snprintf(path, sizeof path, "%s/regions", progs);
    CHECK_EQ_INT(pg_elfsym_resolve(file, &off, path, "memcpy", NULL), PG_ENOTSUP);
    CHECK_CONTAINS(pg_error_last(), "is an IFUNC");
    CHECK_EQ_INT(pg_elfsym_resolve(file, &off, "/bin/sh", "malloc", NULL), 0);
    char which[PATH_MAX];
    CHECK_EQ_INT(pg_elfsym_which(which, "sh", "/nonexistent:/bin"), 0);
    CHECK_STR(which, "/bin/sh");
    CHECK_EQ_INT(pg_elfsym_which(which, "no-such-command-x", "/bin"), PG_ENOTFOUND);
}

static void test_callgrind_calls(void)
{
    /* Compressed names, a callee met from two callers, a recursion level. */
    const char *text =
        "events: Ir\n"
        "fn=(1) main\n"
        "1 10\n"
        "cfn=(2) malloc\n"
        "calls=3 5\n"
        "2 30\n"
        "cfn=(3) free\n"
        "calls=2 6\n"
        "3 20\n"
        "fn=(4) helper\n"
        "cfn=(2)\n"
        "calls=4 5\n"
        "4 40\n"
        "cfn=(5) malloc'2\n"
        "calls=1 5\n"
        "4 1\n"
        "cfn=(6) malloc_usable_size\n"
        "calls=7 5\n"
        "4 7\n"
        "totals: 101\n";
    const char *fns[] = {"malloc", "free", "calloc"};
    unsigned long long calls[3] = {0};
    CHECK_EQ_INT(pg_callgrind_calls(calls, fns, 3, text, strlen(text), "t.out"), 0);
    CHECK_EQ_INT(calls[0], 8);      /* 3 + 4 + 1, not malloc_usable_size's 7 */
    CHECK_EQ_INT(calls[1], 2);
    CHECK_EQ_INT(calls[2], 0);
    const char *bad = "events: Ir\nfn=(1) main\ncalls=3 5\n";
    CHECK(pg_callgrind_calls(calls, fns, 3, bad, strlen(bad), "bad.out") < 0);
    CHECK_CONTAINS(pg_error_last(), "bad.out:3: 'calls=' without a callee");
    unsigned long long t[13] = {0};
    unsigned present = 0;
    CHECK(pg_valgrind_parse_key(t, &present, "events: Ir Dr Dw\ntotals: 5 6\n", "t", "totals:") >= 0);
    CHECK_EQ_INT(present, 1u << 0 | 1u << 3 | 1u << 6);
    CHECK(t[0] == 5 && t[3] == 6 && t[6] == 0);    /* a cost left out at the end is 0 */
}

int main(void)
{
    const char *progs = getenv("PG_TEST_PROGS");
    test_control();
    if (progs)
        test_elf(progs);
    test_callgrind_calls();
    return pg_check_done();
}
