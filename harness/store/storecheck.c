/* harness/store/storecheck.c — see storecheck.h. */
#include "harness/store/storecheck.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pg_store_check_writable(const char *root)
{
    char dir[PATH_MAX], probe[PATH_MAX + 32];
    const char *const subdirs[] = {"results", "logs"};
    for (int i = 0; i < 2; i++) {
        snprintf(dir, sizeof dir, "%s/%s", root, subdirs[i]);
        int rc = pg_mkdirs(dir);
        if (rc < 0)
            return pg_error_wrap(rc, "cannot store results in %s", root);
    }
    snprintf(dir, sizeof dir, "%s/results", root);
    snprintf(probe, sizeof probe, "%s/.probe.XXXXXX", dir);
    int fd = mkstemp(probe);
    if (fd < 0)
        return pg_error_errno(PG_EIO, "cannot store results in %s: cannot create a file in %s", root, dir);
    /* A few pages, synced: a store with no room left fails here, not after the measuring. */
    static const char page[4096];
    int rc = 0;
    for (int i = 0; i < 4 && rc == 0; i++) {
        ssize_t w = write(fd, page, sizeof page);
        if (w >= 0 && w < (ssize_t)sizeof page)
            errno = ENOSPC;     /* a short write sets no errno: the file system is full */
        if (w != (ssize_t)sizeof page)
            rc = pg_error_errno(PG_EIO, "cannot store results in %s: cannot write in %s", root, dir);
    }
    if (rc == 0 && fsync(fd) < 0)
        rc = pg_error_errno(PG_EIO, "cannot store results in %s: cannot write in %s", root, dir);
    close(fd);
    unlink(probe);
    /* Only a nicety: a store whose results can be written is usable without it. */
    static const char ignore[] = "# written by perfgate: the result store stays out of git (docs/result-schema.md)\n*\n";
    snprintf(probe, sizeof probe, "%s/.gitignore", root);
    if (rc == 0 && access(probe, F_OK) < 0 && pg_file_write_atomic(probe, ignore, sizeof ignore - 1) < 0)
        pg_error_clear();
    return rc;
}
