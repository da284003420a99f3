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
 * Outside perfgate the variable is absent and the markers do nothing: one
 * getenv the first time, then a load and a branch, plus the client request.
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

/* PERFGATE_CTL_FD="ctl,ack" into fds[0..1]; -1 each when absent or not two pipes. */
static inline void perfgate_lookup_(int fds[2])
{
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
    fds[0] = (int)c;
    fds[1] = (int)a;
}

/* Sends `cmd` ("enable\n"/"disable\n") and waits for perfgate's ack. */
static inline void perfgate_send_(const char *cmd, size_t len)
{
    static int fds[2] = {-2, -2};   /* looked up once: -2 not yet, -1 none */
    if (fds[0] == -2)
        perfgate_lookup_(fds);
    if (fds[0] < 0)
        return;
    int saved = errno;
    ssize_t w;
    do
        w = write(fds[0], cmd, len);
    while (w < 0 && errno == EINTR);
    if (w == (ssize_t)len) {
        char ack[4];
        size_t got = 0;
        while (got < sizeof ack) {
            ssize_t r = read(fds[1], ack + got, sizeof ack - got);
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
    perfgate_send_("enable\n", 7);
#if PERFGATE_HAVE_VALGRIND
    CALLGRIND_START_INSTRUMENTATION;
#endif
}

static inline void perfgate_stop(void)
{
    PERFGATE_NOTE_();
#if PERFGATE_HAVE_VALGRIND
    CALLGRIND_STOP_INSTRUMENTATION;
#endif
    perfgate_send_("disable\n", 8);
}

#define PERFGATE_START() perfgate_start()
#define PERFGATE_STOP() perfgate_stop()

#endif /* PERFGATE_DISABLE */
#endif /* PERFGATE_H */
