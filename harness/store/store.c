/* harness/store/store.c — see store.h. */
#include "harness/store/store.h"
#include "harness/store/storecheck.h"
#include "util/error.h"
#include "util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int pg_store_root(char *out, size_t len, const char *option, const char *workdir)
{
    const char *env = getenv("PERFGATE_STORE");
    if (option && *option)
        snprintf(out, len, "%s", option);
    else if (env && *env)
        snprintf(out, len, "%s", env);
    else if (workdir)
        snprintf(out, len, "%s%s.perfgate", workdir, workdir[strlen(workdir) - 1] == '/' ? "" : "/");
    else
        return pg_error_set(PG_ENOTFOUND, "no result store: not in a git work tree and neither --store nor PERFGATE_STORE given");
    return 0;
}

void pg_store_run_path(char *rel, size_t len, const char *kind, const char *commit, const char *machine_id,
                       const char *run_id)
{
    int n = snprintf(rel, len, "%s/%s/%s/", kind, commit ? commit : PG_NO_COMMIT, machine_id);
    if (n < 0 || (size_t)n >= len)
        return;
    for (const char *p = run_id; *p && (size_t)n + 1 < len; p++)
        rel[n++] = *p == ':' ? '-' : *p;
    rel[n] = '\0';
}

int pg_store_logs_open(pg_owned_dir *d, const char *root, const char *commit, const char *machine_id,
                       const char *run_id)
{
    char rel[PATH_MAX], dir[PATH_MAX * 2];
    pg_store_run_path(rel, sizeof rel, "logs", commit, machine_id, run_id);
    snprintf(dir, sizeof dir, "%s/%s", root, rel);
    return pg_owned_mkdir(d, dir);
}

typedef struct paths {
    char dir[4096], doc[4200], lock[4200];
} paths;

static void paths_of(paths *p, const char *root, const char *commit, const char *machine_id)
{
    snprintf(p->dir, sizeof p->dir, "%s/results/%s", root, commit ? commit : PG_NO_COMMIT);
    snprintf(p->doc, sizeof p->doc, "%s/%s.json", p->dir, machine_id);
    snprintf(p->lock, sizeof p->lock, "%s/.%s.lock", p->dir, machine_id);
}

/* Makes the directory and takes the document's lock (`how`: LOCK_EX or
 * LOCK_SH); returns the lock's descriptor. */
static int lock_doc(const paths *p, int how)
{
    int rc = pg_mkdirs(p->dir);
    if (rc < 0)
        return pg_error_wrap(rc, "cannot store results");
    int fd = open(p->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return pg_error_errno(PG_EIO, "cannot store results: cannot create %s", p->lock);
    if (flock(fd, how) < 0) {
        rc = pg_error_errno(PG_EIO, "cannot lock %s", p->lock);
        close(fd);
        return rc;
    }
    return fd;
}

/* The document's current text, NULL when there is none yet. */
static int read_doc(char **text, size_t *len, const char *path)
{
    *text = NULL;
    *len = 0;
    int rc = pg_file_read(text, len, path);
    if (rc == PG_ENOTFOUND) {
        pg_error_clear();
        return 0;
    }
    return rc;
}

int pg_store_check(const char *root, const char *commit, const char *machine_id)
{
    /* Writable with room to spare (harness/storecheck.h), then the document
     * the run will be appended to must be one this perfgate can extend. */
    int rc = pg_store_check_writable(root);
    if (rc < 0)
        return rc;
    paths p;
    paths_of(&p, root, commit, machine_id);
    int lfd = lock_doc(&p, LOCK_SH);
    if (lfd < 0)
        return lfd;
    char *text;
    size_t len;
    if ((rc = read_doc(&text, &len, p.doc)) == 0 && text)
        rc = pg_storedoc_check(text, len, p.doc);
    free(text);
    close(lfd);
    return rc;
}

int pg_store_append(char *path_out, size_t path_len, const char *root, const char *commit,
                    const char *machine_id, const pg_rundoc *run)
{
    paths p;
    paths_of(&p, root, commit, machine_id);
    int lfd = lock_doc(&p, LOCK_EX);
    if (lfd < 0)
        return lfd;
    char *old, *text = NULL;
    size_t len;
    int rc = read_doc(&old, &len, p.doc);
    if (rc == 0)
        rc = pg_storedoc_append(&text, old, len, p.doc, commit, machine_id, run);
    if (rc == 0 && (rc = pg_file_write_atomic(p.doc, text, strlen(text))) < 0)
        pg_error_wrap(rc, "cannot store results");
    free(old);
    free(text);
    close(lfd);     /* releases the lock */
    if (rc == 0 && path_out)
        snprintf(path_out, path_len, "%s", p.doc);
    return rc;
}

int pg_store_load_file(pg_rundoc_list *runs, const char *path)
{
    int rc = pg_rundoc_read_file(runs, path);
    if (rc == PG_EINVAL && strstr(pg_error_last(), ": invalid JSON"))
        pg_error_wrap(rc, "corrupt result file (move it away or delete it)");
    return rc;
}

int pg_store_load(pg_rundoc_list *runs, const char *root, const char *commit)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/results/%s", root, commit);
    /* Sorted names: the same store always loads in the same order. */
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0 && (errno == ENOENT || errno == ENOTDIR))
        return pg_error_set(PG_ENOTFOUND, "no results stored for %.12s in %s", commit, root);
    if (n < 0)
        return pg_error_errno(PG_EIO, "cannot list %s", dir);
    size_t before = runs->n;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        size_t l = strlen(nm);
        if (rc == 0 && nm[0] != '.' && l > 5 && strcmp(nm + l - 5, ".json") == 0) {
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", dir, nm);
            rc = pg_store_load_file(runs, path);
        }
        free(names[i]);
    }
    free(names);
    if (rc == 0 && runs->n == before)
        rc = pg_error_set(PG_ENOTFOUND, "no results stored for %.12s in %s", commit, root);
    if (rc < 0)
        pg_rundoc_list_truncate(runs, before);
    return rc;
}
