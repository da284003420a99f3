/* counters/control.c — see control.h. */
#include "counters/control.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void pg_control_init(pg_control *c)
{
    memset(c, 0, sizeof *c);
    c->ctl[0] = c->ctl[1] = c->ack[0] = c->ack[1] = -1;
}

int pg_control_open(pg_control *c)
{
    pg_control_close(c);
    if (pipe2(c->ctl, O_CLOEXEC) < 0 || pipe2(c->ack, O_CLOEXEC) < 0) {
        int err = errno;
        pg_control_close(c);
        errno = err;
        return pg_error_errno(PG_ERROR, "cannot create the region control pipes");
    }
    fcntl(c->ctl[0], F_SETFL, O_NONBLOCK);
    /* Acks a program never reads (commands written by a process that does
     * not wait) must not block perfgate once the pipe is full: dropped. */
    fcntl(c->ack[1], F_SETFL, O_NONBLOCK);
    snprintf(c->env, sizeof c->env, "%s=%d,%d", PG_CONTROL_ENV, c->ctl[1], c->ack[0]);
    return 0;
}

size_t pg_control_child_fds(const pg_control *c, int *fds, size_t max)
{
    if (c->ctl[1] < 0 || max < 2)
        return 0;
    fds[0] = c->ctl[1];
    fds[1] = c->ack[0];
    return 2;
}

void pg_control_parent_side(pg_control *c)
{
    close_fd(&c->ctl[1]);
    close_fd(&c->ack[0]);
}

int pg_control_fd(const pg_control *c) { return c->ctl[0]; }

/* "ack\n" to the child; a child killed meanwhile must not take perfgate with
 * it by SIGPIPE: the signal is blocked for the write and a pending one taken. */
static void send_ack(pg_control *c)
{
    ssize_t w = pg_write_nosigpipe(c->ack[1], "ack\n", 4);
    if (w != 4 && !(w < 0 && errno == EAGAIN))
        close_fd(&c->ack[1]);
}

int pg_control_serve(pg_control *c, int (*apply)(void *ctx, int on), void *ctx)
{
    char buf[256];
    int rc = 0;
    for (;;) {
        if (c->ctl[0] < 0)
            return rc;
        ssize_t n = read(c->ctl[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (n < 0 && errno != EAGAIN)) {
            close_fd(&c->ctl[0]);   /* every writer is gone */
            return rc;
        }
        if (n < 0)
            return rc;
        /* Commands are whole lines written at once (shorter than PIPE_BUF), so
         * a read never splits one; each ends in '\n'. */
        for (char *p = buf, *end = buf + n; p < end;) {
            char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
            int on = len == 6 && !memcmp(p, "enable", 6) ? 1 : len == 7 && !memcmp(p, "disable", 7) ? 0 : -1;
            if (on >= 0 && rc == 0) {
                rc = apply(ctx, on);
                if (on)
                    c->enables++;
                else
                    c->disables++;
            }
            if (c->ack[1] >= 0)
                send_ack(c);
            p += len + (nl != NULL);
        }
    }
}

void pg_control_close(pg_control *c)
{
    close_fd(&c->ctl[0]);
    close_fd(&c->ctl[1]);
    close_fd(&c->ack[0]);
    close_fd(&c->ack[1]);
}
