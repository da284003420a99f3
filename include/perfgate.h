/* perfgate.h — region markers: measure only the code between PERFGATE_START()
 * and PERFGATE_STOP().
 *
 *     #include <perfgate.h>      // cc $(pkg-config --cflags perfgate) ...
 *
 *     setup();                   // not counted
 *     PERFGATE_START();
 *     work();                    // counted
 *     PERFGATE_STOP();
 *     teardown();                // not counted
 *
 * A program that uses a marker carries an ELF note (.note.perfgate) by which
 * `perfgate run` knows to count only its regions (docs/markers.md):
 *   - valgrind backend: the benchmark runs under callgrind with instrumentation
 *     off at start; the markers are callgrind's START/STOP_INSTRUMENTATION client
 *     requests (a few no-op instructions when not under valgrind);
 *   - perf backend: the counters are opened disabled, and the markers ask
 *     perfgate to enable and disable them through the control channel named by
 *     PERFGATE_CTL_FD="ctl,ack" (two pipe fds perfgate hands to the child, as
 *     `perf stat --control=fd:ctl,ack`): write "enable\n" or "disable\n" to ctl,
 *     then wait for "ack\n" on ack, so the count starts and stops exactly here.
 * Outside perfgate the variable is absent and the markers do nothing: two
 * getenvs the first time, then a load and a branch, plus the client request.
 * PERFGATE_MARKERS=0 turns them off (perfgate sets it when it measures the
 * whole program: a manifest's "markers": false).
 *
 * Regions are process-wide and do not nest: START enables, STOP disables.
 * Children inherit the channel, so a region started in one counts all of them.
 * Define PERFGATE_DISABLE before including this header to compile the markers
 * out entirely (no note, no code).
 * Every function here is static inline, so the header needs no library.
 */
#ifndef PERFGATE_H
#define PERFGATE_H

#if defined(PERFGATE_DISABLE)

#define PERFGATE_START() ((void)0)
#define PERFGATE_STOP() ((void)0)

#else

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* valgrind's own header, when installed (Debian: valgrind), gives the client
 * requests; without it (or with PERFGATE_NO_VALGRIND) only the perf backend
 * sees the regions, and perfgate says so rather than count the whole program. */
#if defined(__has_include) && !defined(PERFGATE_NO_VALGRIND)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PERFGATE_HAVE_VALGRIND 1
#endif
#endif
#ifndef PERFGATE_HAVE_VALGRIND
#define PERFGATE_HAVE_VALGRIND 0
#endif

/* The note's type and descriptor (bit 0: valgrind client requests compiled in). */
#define PERFGATE_NOTE_TYPE 0x50470001
#define PERFGATE_NOTE_VALGRIND 1

#define PERFGATE_STR2_(x) #x
#define PERFGATE_STR_(x) PERFGATE_STR2_(x)

/* Emitted by every use of a marker (not by the include alone, so a program that
 * only includes the header is not taken for a marked one); copies are harmless. */
#define PERFGATE_NOTE_()                                                                      \
    __asm__ volatile(".pushsection .note.perfgate,\"a\",%note\n"                               \
                     ".balign 4\n"                                                            \
                     ".long 9\n"                                                              \
                     ".long 4\n"                                                              \
                     ".long " PERFGATE_STR_(PERFGATE_NOTE_TYPE) "\n"                          \
                     ".asciz \"perfgate\"\n"                                                  \
                     ".balign 4\n"                                                            \
                     ".long " PERFGATE_STR_(PERFGATE_HAVE_VALGRIND) "\n"                      \
                     ".popsection\n")

static inline int perfgate_is_fifo_(int fd)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* What the markers do in this process, looked up on first use. */
struct perfgate_state_ {
    int ctl, ack;       /* the channel's fds, -1 when there is none */
    int on;             /* 0: PERFGATE_MARKERS=0, perfgate counts the whole program */
};

static inline struct perfgate_state_ *perfgate_state_(void)
{
    static struct perfgate_state_ st = {-2, -2, 1};
    if (st.ctl != -2)
        return &st;
    const char *m = getenv("PERFGATE_MARKERS");
    st.on = !(m && m[0] == '0' && !m[1]);
    const char *s = getenv("PERFGATE_CTL_FD");
    char *end = NULL;
    long c = -1, a = -1;
    if (s && *s) {
        c = strtol(s, &end, 10);
        if (end && *end == ',')
            a = strtol(end + 1, &end, 10);
        if (!end || *end || c < 0 || a < 0 || c > 65535 || a > 65535 ||
            !perfgate_is_fifo_((int)c) || !perfgate_is_fifo_((int)a))
            c = a = -1;
    }
    st.ctl = (int)c;
    st.ack = (int)a;
    return &st;
}

/* Sends `cmd` ("enable\n"/"disable\n") and waits for perfgate's ack. */
static inline void perfgate_send_(const struct perfgate_state_ *st, const char *cmd, size_t len)
{
    if (st->ctl < 0)
        return;
    int saved = errno;
    ssize_t w;
    do
        w = write(st->ctl, cmd, len);
    while (w < 0 && errno == EINTR);
    if (w == (ssize_t)len) {
        char ack[4];
        size_t got = 0;
        while (got < sizeof ack) {
            ssize_t r = read(st->ack, ack + got, sizeof ack - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;      /* perfgate went away: nothing left to tell */
            got += (size_t)r;
        }
    }
    errno = saved;
}

static inline void perfgate_start(void)
{
    PERFGATE_NOTE_();
    struct perfgate_state_ *st = perfgate_state_();
    if (!st->on)
        return;
    perfgate_send_(st, "enable\n", 7);
#if PERFGATE_HAVE_VALGRIND
    CALLGRIND_START_INSTRUMENTATION;
#endif
}

static inline void perfgate_stop(void)
{
    PERFGATE_NOTE_();
    struct perfgate_state_ *st = perfgate_state_();
    if (!st->on)
        return;
#if PERFGATE_HAVE_VALGRIND
    CALLGRIND_STOP_INSTRUMENTATION;
#endif
    perfgate_send_(st, "disable\n", 8);
}
#define PERFGATE_START() perfgate_start()
#define PERFGATE_STOP() perfgate_stop()

#endif /* PERFGATE_DISABLE */
#endif /* PERFGATE_H */
