/* harness/measure/jobs.c — see jobs.h. */
#include "harness/measure/jobs.h"
#include "util/forksafe.h"
#include "harness/measure/spawn.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Exit statuses of a worker. */
enum { WORKER_OK = 0, WORKER_FAILED = 1, WORKER_INTERRUPTED = 3 };

/* A worker's answer to the item it was handed: this head, then `len` bytes
 * (the result, or the error's message). */
typedef struct msg_head {
    uint64_t item;
    uint32_t kind;
    uint32_t len;
} msg_head;
enum { MSG_RESULT = 1, MSG_ERROR = 2, MSG_INTERRUPTED = 3 };

/* At most this many workers. */
enum { MAX_WORKERS = 256 };

int pg_jobs_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) < 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

int pg_jobs_init(pg_jobs *j, size_t n)
{
    memset(j, 0, sizeof *j);
    j->n = n;
    j->text = calloc(n ? n : 1, sizeof *j->text);
    j->len = calloc(n ? n : 1, sizeof *j->len);
    if (!j->text || !j->len) {
        pg_jobs_free(j);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    return 0;
}

const char *pg_jobs_result(size_t *len, const pg_jobs *j, size_t i)
{
    *len = i < j->n && j->text[i] ? j->len[i] : 0;
    return i < j->n ? j->text[i] : NULL;
}

void pg_jobs_free(pg_jobs *j)
{
    for (size_t i = 0; j->text && i < j->n; i++)
        free(j->text[i]);
    free(j->text);
    free(j->len);
    free(j->error);
    memset(j, 0, sizeof *j);
}

void pg_jobs_conn_free(pg_jobs_conn *c)
{
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
}

/* A complete answer `h` with its body `body`, from c: into j. */
static int take(pg_jobs *j, pg_jobs_conn *c, const msg_head *h, const unsigned char *body)
{
    char *copy = malloc((size_t)h->len + 1);
    if (!copy)
        return pg_error_set(PG_ENOMEM, "out of memory");
    memcpy(copy, body, h->len);
    copy[h->len] = '\0';
    if (h->kind == MSG_RESULT) {
        j->text[c->item] = copy;
        j->len[c->item] = h->len;
    } else if (h->kind == MSG_ERROR && (!j->error || c->item < j->error_item)) {
        free(j->error);
        j->error = copy;
        j->error_item = c->item;
    } else {
        j->interrupted |= h->kind == MSG_INTERRUPTED;
        free(copy);
    }
    c->busy = 0;
    return 1;
}

int pg_jobs_receive(pg_jobs *j, pg_jobs_conn *c, const void *bytes, size_t n)
{
    if (!c->busy && n)
        return pg_error_set(PG_EIO, "--jobs: worker %d sent %zu bytes while it had no item to answer for (refused)",
                            c->worker, n);
    if (n > c->cap - c->len) {
        size_t want = c->len + n, cap = c->cap ? c->cap : 4096;
        if (want > sizeof(msg_head) + PG_JOBS_MAX_MESSAGE)
            return pg_error_set(PG_EIO, "--jobs: worker %d sent more than one answer of at most %u MiB (refused)",
                                c->worker, PG_JOBS_MAX_MESSAGE >> 20);
        while (cap < want)
            cap *= 2;
        unsigned char *b = realloc(c->buf, cap);
        if (!b)
            return pg_error_set(PG_ENOMEM, "out of memory");
        c->buf = b, c->cap = cap;
    }
    memcpy(c->buf + c->len, bytes, n);
    c->len += n;
    if (c->len < sizeof(msg_head))
        return 0;
    msg_head h;
    memcpy(&h, c->buf, sizeof h);
    if (h.item != c->item)
        return pg_error_set(PG_EIO, "--jobs: worker %d answered for item %llu, but was handed item %zu (refused)",
                            c->worker, (unsigned long long)h.item, c->item);
    if (h.kind != MSG_RESULT && h.kind != MSG_ERROR && h.kind != MSG_INTERRUPTED)
        return pg_error_set(PG_EIO, "--jobs: worker %d sent a message of unknown kind %u (refused)", c->worker,
                            (unsigned)h.kind);
    if (h.len > PG_JOBS_MAX_MESSAGE)
        return pg_error_set(PG_EIO, "--jobs: worker %d announced an answer of %u bytes, more than %u MiB (refused)",
                            c->worker, (unsigned)h.len, PG_JOBS_MAX_MESSAGE >> 20);
    if (c->len < sizeof h + h.len)
        return 0;
    if (c->len > sizeof h + h.len)
        return pg_error_set(PG_EIO, "--jobs: worker %d sent more than its answer for item %zu (refused)", c->worker,
                            c->item);
    c->len = 0;
    return take(j, c, &h, c->buf + sizeof h);
}

/* ---- the worker ---- */

static int write_all(int fd, const void *p, size_t n)
{
    const char *b = p;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w, n -= (size_t)w;
    }
    return 0;
}

static int send_msg(int fd, size_t item, unsigned kind, const char *body, size_t len)
{
    if (len > PG_JOBS_MAX_MESSAGE) {
        kind = MSG_ERROR;
        body = "--jobs: a benchmark's result is too large to send to perfgate";
        len = strlen(body);
    }
    msg_head h = {.item = item, .kind = kind, .len = (uint32_t)len};
    return write_all(fd, &h, sizeof h) < 0 || write_all(fd, body, len) < 0 ? -1 : 0;
}

/* A worker: items from `in` until the parent closes it, each answered on
 * `out`; the first error (or an interruption) is its last answer. */
static void worker(pid_t parent, int in, int out, pg_job_fn *fn, pg_job_end_fn *end, void *ctx)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(WORKER_FAILED);       /* perfgate died before the line above */
    uint64_t item;
    ssize_t r;
    for (;;) {
        while ((r = read(in, &item, sizeof item)) < 0 && errno == EINTR)
            ;
        if (r != (ssize_t)sizeof item)
            break;
        char *text = NULL;
        size_t len = 0;
        int rc = fn(ctx, (size_t)item, &text, &len);
        if (rc < 0 || pg_spawn_interrupted()) {
            int intr = rc == PG_EINTR || pg_spawn_interrupted();
            const char *msg = intr ? "interrupted" : *pg_error_last() ? pg_error_last() : "failed without a message";
            send_msg(out, (size_t)item, intr ? MSG_INTERRUPTED : MSG_ERROR, msg, strlen(msg));
            free(text);
            end(ctx);
            _exit(intr ? WORKER_INTERRUPTED : WORKER_FAILED);
        }
        int sent = send_msg(out, (size_t)item, MSG_RESULT, text, len);
        free(text);
        if (sent < 0)
            break;
    }
    end(ctx);
    _exit(WORKER_OK);
}

/* ---- the parent ---- */

typedef struct worker_slot {
    pid_t pid;
    int to, from;               /* the item pipe's write end, the answer pipe's read end; -1 when closed */
    pg_jobs_conn c;
} worker_slot;

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Forks worker w with a pipe each way; in the child, no end of another
 * worker's pipes stays open. */
static int start_worker(worker_slot *ws, int w, pg_job_fn *fn, pg_job_end_fn *end, void *ctx)
{
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) < 0)
        return pg_error_errno(PG_EIO, "pipe");
    if (pipe2(from, O_CLOEXEC) < 0) {
        close(to[0]), close(to[1]);
        return pg_error_errno(PG_EIO, "pipe");
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        pg_forksafe_fork_end();
        for (int k = 0; k < w; k++)
            close(ws[k].to), close(ws[k].from);
        close(to[1]), close(from[0]);
        worker(parent, to[0], from[1], fn, end, ctx);
    }
    close(to[0]), close(from[1]);
    if (pid < 0) {
        close(to[1]), close(from[0]);
        return pg_error_errno(PG_EIO, "fork a worker of --jobs");
    }
    ws[w] = (worker_slot){.pid = pid, .to = to[1], .from = from[0], .c = {.worker = w + 1}};
    return 0;
}

/* The next item to worker `s`, or its pipe closed (it ends) when there is
 * none to give. */
static void hand_out(worker_slot *s, size_t *next, size_t n, int stop)
{
    if (!stop && *next < n) {
        uint64_t item = *next;
        if (write_all(s->to, &item, sizeof item) == 0) {
            s->c.item = (*next)++;
            s->c.busy = 1;
            return;
        }
    }
    close_fd(&s->to);
}

/* Reads the workers' answers until every one has ended, handing out the
 * items (none when `stop`); a violation of the protocol kills its worker
 * and is kept in *bad. */
static void serve(pg_jobs *j, worker_slot *ws, int started, int stop, int *bad, char *badmsg, size_t badlen)
{
    size_t next = 0;
    for (int w = 0; w < started; w++)
        hand_out(&ws[w], &next, j->n, stop);
    struct pollfd pfd[MAX_WORKERS];
    int idx[MAX_WORKERS];
    for (;;) {
        stop |= pg_spawn_interrupted() || j->error || j->interrupted || *bad;
        int np = 0;
        for (int w = 0; w < started; w++)
            if (ws[w].from >= 0) {
                pfd[np] = (struct pollfd){.fd = ws[w].from, .events = POLLIN};
                idx[np++] = w;
            }
        if (!np)
            return;
        if (poll(pfd, (nfds_t)np, -1) < 0) {
            if (errno == EINTR)
                continue;
            stop = 1;       /* cannot happen with valid descriptors; wait for the workers' end */
            for (int w = 0; w < started; w++)
                kill(ws[w].pid, SIGKILL), close_fd(&ws[w].from), close_fd(&ws[w].to);
            return;
        }
        for (int k = 0; k < np; k++) {
            if (!pfd[k].revents)
                continue;
            worker_slot *s = &ws[idx[k]];
            unsigned char buf[65536];
            ssize_t r = read(s->from, buf, sizeof buf);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                close_fd(&s->from);     /* it ended: if busy, pg_jobs_run says it died */
                close_fd(&s->to);
                continue;
            }
            int rc = pg_jobs_receive(j, &s->c, buf, (size_t)r);
            if (rc < 0) {
                if (!*bad)
                    snprintf(badmsg, badlen, "%s", pg_error_last());
                *bad = 1;
                kill(s->pid, SIGKILL);
                close_fd(&s->from);
                close_fd(&s->to);
                s->c.busy = 0;
            } else if (rc == 1) {
                stop |= j->error || j->interrupted || pg_spawn_interrupted();
                hand_out(s, &next, j->n, stop);
            }
        }
    }
}

static const char *how_ended(char *buf, size_t len, int st)
{
    if (WIFSIGNALED(st))
        snprintf(buf, len, "killed by signal %d", WTERMSIG(st));
    else
        snprintf(buf, len, "exit status %d", WEXITSTATUS(st));
    return buf;
}

/* A worker's failure while TMPDIR's file system is (nearly) full is that
 * file system's, whichever write of the worker's found it full first (its
 * meter's directory, valgrind's output): PG_ENOSPC naming it, with `rc`'s
 * message; else `rc` as it is. */
static int no_room(int rc)
{
    const char *tmp = getenv("TMPDIR");
    char was[1024];
    snprintf(was, sizeof was, "%s", pg_error_last());
    return pg_file_no_room(rc, tmp && *tmp ? tmp : "/tmp", was);
}

int pg_jobs_run(pg_jobs *j, size_t n, int jobs, pg_job_fn *fn, pg_job_end_fn *end, void *ctx)
{
    if (n > PG_JOBS_MAX_ITEMS)
        return pg_error_set(PG_EINVAL, "--jobs takes at most %d items at once", PG_JOBS_MAX_ITEMS);
    int rc = pg_jobs_init(j, n);
    if (rc < 0)
        return rc;
    pg_spawn_install_sigint();
    fflush(NULL);
    jobs = jobs < 1 ? 1 : jobs > MAX_WORKERS ? MAX_WORKERS : jobs;
    if ((size_t)jobs > n)
        jobs = (int)n;
    worker_slot ws[MAX_WORKERS];
    int started = 0;
    /* A worker's answer would kill the parent with SIGPIPE if it wrote to a
     * worker that died: an error of write instead. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGPIPE, &ign, &old);
    pg_forksafe_fork_begin();      /* a worker runs on: no other thread inside a library */
    for (; rc == 0 && started < jobs; started++)
        if ((rc = start_worker(ws, started, fn, end, ctx)) < 0)
            break;
    pg_forksafe_fork_end();
    int bad = 0;
    char badmsg[512] = "";
    serve(j, ws, started, rc < 0, &bad, badmsg, sizeof badmsg);
    sigaction(SIGPIPE, &old, NULL);
    int died = -1, died_st = 0;
    size_t died_item = 0;
    for (int w = 0; w < started; w++) {
        int st = 0;
        while (waitpid(ws[w].pid, &st, 0) < 0 && errno == EINTR)
            ;
        j->interrupted |= WIFEXITED(st) && WEXITSTATUS(st) == WORKER_INTERRUPTED;
        if (ws[w].c.busy && died < 0)
            died = w, died_st = st, died_item = ws[w].c.item;
        pg_jobs_conn_free(&ws[w].c);
    }
    if (rc < 0)
        return rc;
    if (j->interrupted || pg_spawn_interrupted())
        return pg_error_set(PG_EINTR, "interrupted");
    if (bad)
        return pg_error_set(PG_EIO, "%s", badmsg);
    if (j->error)
        return no_room(pg_error_set(PG_EIO, "%s", *j->error ? j->error : "a worker of --jobs failed without a message"));
    char how[64];
    if (died >= 0)
        return no_room(pg_error_set(PG_EIO, "a worker of --jobs ended without the result of item %zu (%s)", died_item,
                                    how_ended(how, sizeof how, died_st)));
    for (size_t i = 0; i < n; i++)
        if (!j->text[i])
            return no_room(pg_error_set(PG_EIO, "a worker of --jobs ended without the result of item %zu", i));
    return 0;
}
