/* counters/outdir.c — see outdir.h. */
#include "counters/outdir.h"
#include "util/error.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const pg_outdir_prefixes[] = {PG_OUTDIR_COUNTS, PG_OUTDIR_STACKS, PG_OUTDIR_HEAP, NULL};

int pg_outdir_parent(char *out, size_t len, int make)
{
    const char *tmp = getenv("TMPDIR");
    char real[PATH_MAX];
    if (!tmp || !*tmp)
        tmp = "/tmp";
    /* Its real path: the one the namespace covers, and a command names. */
    if (snprintf(out, len, "%s/" PG_OUTDIR_PARENT "%u", realpath(tmp, real) ? real : tmp, (unsigned)geteuid()) >=
        (int)len)
        return pg_error_set(PG_EIO, "TMPDIR is too long: %s", tmp);
    if (make && mkdir(out, 0700) < 0 && errno != EEXIST)
        return pg_error_errno(PG_EIO, "cannot create %s", out);
    struct stat st;
    if (lstat(out, &st) < 0)
        return pg_error_errno(PG_EIO, "cannot %s %s", make ? "create" : "read", out);
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return pg_error_set(PG_EIO, "%s is %s: perfgate keeps valgrind's output in it, which must be a directory of this user's; "
                            "remove it, or set TMPDIR", out, S_ISLNK(st.st_mode) ? "a symbolic link"
                            : !S_ISDIR(st.st_mode) ? "not a directory" : "another user's");
    /* Another process of the user's may have made it with a wider umask. */
    if ((st.st_mode & 07777) != 0700 && chmod(out, 0700) < 0)
        return pg_error_errno(PG_EIO, "cannot make %s private", out);
    return 0;
}

int pg_outdir_make(pg_owned_dir *d, const char *prefix)
{
    char parent[PATH_MAX], path[PATH_MAX];
    pg_owned_init(d);
    int rc = pg_outdir_parent(parent, sizeof parent, 1);
    if (rc < 0)
        return rc;
    if (snprintf(path, sizeof path, "%s/%s%d-XXXXXX", parent, prefix, (int)getpid()) >= (int)sizeof path ||
        !mkdtemp(path))
        return pg_error_errno(PG_EIO, "cannot create a temporary directory in %s", parent);
    /* Made here, so removed here should taking it fail. */
    if ((rc = pg_owned_mkdir(d, path)) < 0)
        rmdir(path);
    return rc;
}
