/* util/owned_dir.c — see owned_dir.h. */
#include "util/owned_dir.h"
#include "util/error.h"
#include "util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void pg_owned_init(pg_owned_dir *d)
{
    d->path[0] = '\0';
    d->lockfd = -1;
}

/* Puts the lock file into `dir` already locked: made under a private name,
 * locked, then renamed into place. O_CLOEXEC: a benchmark must not inherit
 * the lock, or an escaped child would keep the directory "owned". */
static int take_ownership(pg_owned_dir *d)
{
    char tmp[PATH_MAX + 64], lock[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s/%s.%d", d->path, PG_OWNER_FILE, (int)getpid());
    snprintf(lock, sizeof lock, "%s/%s", d->path, PG_OWNER_FILE);
    int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return pg_error_errno(PG_EIO, "cannot create %s", tmp);
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (flock(fd, LOCK_EX) < 0 || write(fd, pid, (size_t)n) != n || rename(tmp, lock) < 0) {
        int rc = pg_error_errno(PG_EIO, "cannot create %s", lock);
        unlink(tmp);
        close(fd);
        return rc;
    }
    d->lockfd = fd;
    return 0;
}

int pg_owned_mkdtemp(pg_owned_dir *d, const char *prefix)
{
    return pg_owned_mkdtemp_len(d, NULL, prefix, 0);
}

int pg_owned_mkdtemp_len(pg_owned_dir *d, int *matched, const char *prefix, size_t want)
{
    pg_owned_init(d);
    const char *tmp = getenv("TMPDIR");
    char real[PATH_MAX], pad[PATH_MAX] = "";
    if (!tmp || !*tmp)
        tmp = "/tmp";
    /* Its real path is what a program under it sees of itself. */
    int n = snprintf(d->path, sizeof d->path, "%s/%s%d-XXXXXX", realpath(tmp, real) ? real : tmp, prefix, (int)getpid());
    if (matched)
        *matched = n > 0 && (size_t)n <= want;
    if (want && n > 0 && (size_t)n < want && want - (size_t)n < sizeof pad) {
        memset(pad, 'p', want - (size_t)n);
        pad[want - (size_t)n] = '\0';
    }
    if (snprintf(d->path, sizeof d->path, "%s/%s%d-%sXXXXXX", realpath(tmp, real) ? real : tmp, prefix, (int)getpid(),
                 pad) >= (int)sizeof d->path ||
        !mkdtemp(d->path)) {
        int rc = pg_error_errno(PG_EIO, "cannot create a temporary directory in %s", tmp);
        d->path[0] = '\0';
        return rc;
    }
    int rc = take_ownership(d);
    if (rc < 0)
        pg_owned_release(d, 1);
    return rc;
}

int pg_owned_mkdir(pg_owned_dir *d, const char *path)
{
    pg_owned_init(d);
    if (snprintf(d->path, sizeof d->path, "%s", path) >= (int)sizeof d->path) {
        d->path[0] = '\0';
        return pg_error_set(PG_EINVAL, "path too long: %s", path);
    }
    int rc = pg_mkdirs(d->path);
    if (rc == 0)
        rc = take_ownership(d);
    if (rc < 0)
        d->path[0] = '\0';  /* it may hold what others made: never removed on failure */
    return rc;
}

void pg_owned_release(pg_owned_dir *d, int remove)
{
    if (d->path[0]) {
        if (remove) {
            pg_remove_tree(d->path);
        } else {
            char lock[PATH_MAX + 32];
            snprintf(lock, sizeof lock, "%s/%s", d->path, PG_OWNER_FILE);
            unlink(lock);   /* before unlocking: see owned_dir.h */
        }
    }
    if (d->lockfd >= 0)
        close(d->lockfd);
    pg_owned_init(d);
}

int pg_owned_abandoned(const char *dir, int *lockfd)
{
    char lock[PATH_MAX + 32];
    snprintf(lock, sizeof lock, "%s/%s", dir, PG_OWNER_FILE);
    int fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    struct stat held, now;
    /* Locked, and still the same file at that name: the owner did not release it
     * (it unlinks before unlocking) but died holding it. */
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &held) == 0 && lstat(lock, &now) == 0 &&
        held.st_ino == now.st_ino && held.st_dev == now.st_dev) {
        *lockfd = fd;
        return 1;
    }
    close(fd);
    return 0;
}

static int has_prefix(const char *name, const char *const *prefixes)
{
    for (; *prefixes; prefixes++)
        if (!strncmp(name, *prefixes, strlen(*prefixes)))
            return 1;
    return 0;
}

int pg_owned_sweep(const char *parent, const char *const *prefixes)
{
    DIR *dir = opendir(parent);
    if (!dir)
        return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (!has_prefix(e->d_name, prefixes))
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", parent, e->d_name) >= (int)sizeof path)
            continue;
        struct stat st;
        int fd;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && pg_owned_abandoned(path, &fd)) {
            removed += pg_remove_tree(path) == 0;
            close(fd);
        }
    }
    closedir(dir);
    return removed;
}
