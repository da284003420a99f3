#include "util/fileio.h"
#include "util/error.h"
#include "util/hash.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <ftw.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int pg_fd_read(char **out, size_t *len, int fd, const char *name)
{
    /* A regular file's size is known: one buffer, no doubling (a 10 MB
     * result document was read through eight reallocs and copies). */
    struct stat st;
    size_t cap = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 2
                     ? (size_t)st.st_size + 1 : 65536, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf)
            return pg_error_set(PG_ENOMEM, "out of memory reading %s", name);
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int rc = pg_error_errno(PG_EIO, "cannot read %s", name);
            free(buf);
            return rc;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return 0;
}

int pg_file_id_of(pg_file_id *out, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return -1;
    *out = (pg_file_id){.dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
                        .mtime_sec = st.st_mtim.tv_sec, .mtime_nsec = st.st_mtim.tv_nsec,
                        .ctime_sec = st.st_ctim.tv_sec, .ctime_nsec = st.st_ctim.tv_nsec};
    return 0;
}

int pg_file_id_eq(const pg_file_id *a, const pg_file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_sec == b->mtime_sec &&
           a->mtime_nsec == b->mtime_nsec && a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec;
}

int pg_file_read(char **out, size_t *len, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pg_error_errno(errno == ENOENT ? PG_ENOTFOUND : PG_EIO, "cannot read %s", path);
    int rc = pg_fd_read(out, len, fd, path);
    close(fd);
    return rc;
}

int pg_atomic_file_open(pg_atomic_file *af, const char *path)
{
    af->f = NULL;
    if (snprintf(af->path, sizeof af->path, "%s", path) >= (int)sizeof af->path ||
        snprintf(af->tmp, sizeof af->tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof af->tmp)
        return pg_error_set(PG_EINVAL, "path too long: %s", path);
    int fd = mkstemp(af->tmp);
    if (fd < 0)
        return pg_error_errno(PG_EIO, "cannot write %s", path);
    if (!(af->f = fdopen(fd, "w"))) {
        int rc = pg_error_errno(PG_EIO, "cannot write %s", path);
        close(fd);
        unlink(af->tmp);
        return rc;
    }
    return 0;
}

void pg_atomic_file_abort(pg_atomic_file *af)
{
    if (af->f)
        fclose(af->f);
    af->f = NULL;
    unlink(af->tmp);
}

int pg_atomic_file_commit(pg_atomic_file *af, int durable)
{
    int bad = ferror(af->f) || fflush(af->f) != 0 || (durable && fsync(fileno(af->f)) < 0) ||
              fchmod(fileno(af->f), 0644) < 0;
    int saved = errno;
    if (fclose(af->f) != 0 && !bad)
        bad = 1, saved = errno;
    af->f = NULL;
    if (bad || rename(af->tmp, af->path) < 0) {
        errno = bad ? saved : errno;
        int rc = pg_error_errno(PG_EIO, "cannot write %s", af->path);
        unlink(af->tmp);
        return rc;
    }
    if (!durable)
        return 0;
    /* The rename is durable only once the directory entry is. */
    char dir[4096];
    pg_path_dirname(dir, sizeof dir, af->path);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

static int write_atomic(const char *path, const void *data, size_t len, int durable)
{
    pg_atomic_file af;
    int rc = pg_atomic_file_open(&af, path);
    if (rc < 0)
        return rc;
    fwrite(data, 1, len, af.f);     /* an error stays in the stream: commit sees it */
    return pg_atomic_file_commit(&af, durable);
}

int pg_file_write_atomic(const char *path, const void *data, size_t len)
{
    return write_atomic(path, data, len, 1);
}

int pg_file_write_atomic_nosync(const char *path, const void *data, size_t len)
{
    return write_atomic(path, data, len, 0);
}

int pg_mkdirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return pg_error_set(PG_EINVAL, "path too long: %s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                return pg_error_errno(PG_EIO, "cannot create directory %s", buf);
            struct stat st;
            if (stat(buf, &st) < 0 || !S_ISDIR(st.st_mode))
                return pg_error_set(PG_EIO, "cannot create directory %s: a file of that name is in the way", buf);
            *p = c;
            if (!c)
                break;
        }
    }
    return 0;
}

void pg_path_dirname(char *out, size_t len, const char *path)
{
    snprintf(out, len, "%s", path);
    char *slash = strrchr(out, '/');
    if (slash)
        *(slash == out ? slash + 1 : slash) = '\0';
    else
        snprintf(out, len, ".");
}

int pg_mkdtemp(char *out, size_t len, const char *prefix)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    snprintf(out, len, "%s/%sXXXXXX", tmp, prefix);
    if (!mkdtemp(out)) {
        int rc = pg_error_errno(PG_EIO, "cannot create a temporary directory in %s", tmp);
        out[0] = '\0';
        return rc;
    }
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP || flag == FTW_D)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

int pg_remove_tree(const char *path)
{
    if (access(path, F_OK) != 0)
        return 0;
    if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
        return pg_error_errno(PG_EIO, "cannot remove %s", path);
    return 0;
}

static int safe_char(unsigned char ch)
{
    return isalnum(ch) || ch == '.' || ch == '-' || ch == '_';
}

void pg_path_safe_name(char out[PG_SAFE_NAME_SIZE], const char *name)
{
    size_t len = strlen(name);
    int clean = len > 0 && len <= PG_SAFE_NAME_MAX && name[0] != '.';
    for (size_t i = 0; clean && i < len; i++)
        clean = safe_char((unsigned char)name[i]);
    if (clean) {
        memcpy(out, name, len + 1);
        return;
    }
    enum { HASH = 13 };     /* "~" and 12 hex digits */
    size_t o = 0;
    for (; o < len && o < PG_SAFE_NAME_MAX - HASH; o++)
        out[o] = safe_char((unsigned char)name[o]) ? name[o] : '_';
    if (o == 0 || out[0] == '.')
        out[o ? 0 : o++] = '_';     /* no hidden or empty names */
    snprintf(out + o, HASH + 1, "~%012llx", pg_hash64(name) & 0xffffffffffffULL);
}

ssize_t pg_write_nosigpipe(int fd, const void *buf, size_t n)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t w = write(fd, buf, n);
    int err = errno;
    if (w < 0 && err == EPIPE) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = err;
    return w;
}

int pg_file_no_room(int rc, const char *dir, const char *what)
{
    struct statvfs st;
    if (rc == PG_ENOSPC || statvfs(dir, &st) < 0)
        return rc;
    unsigned long long avail = (unsigned long long)st.f_bavail * st.f_frsize;
    if (avail >= (1u << 20) && !(st.f_files && st.f_favail == 0))
        return rc;
    return pg_error_set(PG_ENOSPC, "no space left on device in %s (%llu KiB free): %s; free some, or set TMPDIR "
                        "to a larger file system", dir, avail >> 10, what);
}
