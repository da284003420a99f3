#include "util/fileio.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pg_file_read(char **out, size_t *len, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pg_error_errno(errno == ENOENT ? PG_ENOTFOUND : PG_EIO, "cannot read %s", path);
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) {
            close(fd);
            return pg_error_set(PG_ENOMEM, "out of memory reading %s", path);
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int rc = pg_error_errno(PG_EIO, "cannot read %s", path);
            free(buf);
            close(fd);
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
    close(fd);
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return 0;
}

int pg_file_write_atomic(const char *path, const void *data, size_t len)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof tmp)
        return pg_error_set(PG_EINVAL, "path too long: %s", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return pg_error_errno(PG_EIO, "cannot write %s", path);
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int rc = pg_error_errno(PG_EIO, "cannot write %s", path);
            close(fd);
            unlink(tmp);
            return rc;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) < 0 || fchmod(fd, 0644) < 0) {
        int rc = pg_error_errno(PG_EIO, "cannot write %s", path);
        close(fd);
        unlink(tmp);
        return rc;
    }
    close(fd);
    if (rename(tmp, path) < 0) {
        int rc = pg_error_errno(PG_EIO, "cannot write %s", path);
        unlink(tmp);
        return rc;
    }
    /* The rename is durable only once the directory entry is. */
    char dir[4096];
    pg_path_dirname(dir, sizeof dir, path);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
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
