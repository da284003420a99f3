/* harness/store/leftovers.c — see leftovers.h. */
#include "harness/store/leftovers.h"
#include "counters/outdir.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/owned_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Calls fn(ctx, path, name) for each subdirectory of `dir` (no dot entries). */
static int each_subdir(const char *dir, int (*fn)(void *, const char *, const char *), void *ctx)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[PATH_MAX];
        struct stat st;
        if (e->d_name[0] == '.' || snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
            lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
            continue;
        n += fn(ctx, path, e->d_name);
    }
    closedir(d);
    return n;
}

/* ---- <store>/stacks/<commit>/<machine>/<run>, <store>/logs/<commit>/<machine>/<run> ---- */

typedef struct walk {
    const char *root;
    const char *named_as;       /* how a document names the kind: "\"stacks" (relative), "/logs" (absolute) */
    const char *commit, *machine;
} walk;

/* Whether the store document of (commit, machine) names this run's directory. */
static int referenced(const walk *w, const char *run)
{
    char path[PATH_MAX], needle[PATH_MAX];
    snprintf(path, sizeof path, "%s/results/%s/%s.json", w->root, w->commit, w->machine);
    snprintf(needle, sizeof needle, "%s/%s/%s/%s/", w->named_as, w->commit, w->machine, run);
    char *text = NULL;
    size_t len;
    int rc = pg_file_read(&text, &len, path);
    if (rc < 0) {
        pg_error_clear();
        return rc != PG_ENOTFOUND;  /* unreadable is not unreferenced: when unsure, keep */
    }
    int found = strstr(text, needle) != NULL;
    free(text);
    return found;
}

static int sweep_run(void *ctx, const char *path, const char *name)
{
    int fd;
    if (!pg_owned_abandoned(path, &fd))
        return 0;
    int removed = 0;
    if (referenced(ctx, name)) {
        char lock[PATH_MAX + 32];
        snprintf(lock, sizeof lock, "%s/%s", path, PG_OWNER_FILE);
        unlink(lock);
    } else {
        removed = pg_remove_tree(path) == 0;
    }
    close(fd);
    return removed;
}

static int sweep_machine(void *ctx, const char *path, const char *name)
{
    walk *w = ctx;
    w->machine = name;
    return each_subdir(path, sweep_run, w);
}

static int sweep_commit(void *ctx, const char *path, const char *name)
{
    walk *w = ctx;
    w->commit = name;
    /* Emptied directories stay: removing one could race a run making its own below it. */
    return each_subdir(path, sweep_machine, w);
}

/* ---- <store>/results/.probe.* (storecheck.h) ---- */

/* Removing a probe still in use is harmless: its writer only writes and
 * syncs through its descriptor, and ignores its own unlink failing. */
static int sweep_probes(const char *results)
{
    DIR *d = opendir(results);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char file[PATH_MAX];
        if (!strncmp(e->d_name, ".probe.", 7) && snprintf(file, sizeof file, "%s/%s", results, e->d_name) < (int)sizeof file)
            n += unlink(file) == 0;
    }
    closedir(d);
    return n;
}

/* ---- <store>/results/<commit>/<machine>.json.tmp.* ---- */

static int sweep_partial_docs(void *ctx, const char *path, const char *name)
{
    (void)ctx;
    (void)name;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *tmp = strstr(e->d_name, ".json.tmp.");
        if (!tmp || e->d_name[0] == '.')
            continue;
        /* The writer holds .<machine>.lock while the file exists (store.c). */
        char lock[PATH_MAX], file[PATH_MAX];
        snprintf(lock, sizeof lock, "%s/.%.*s.lock", path, (int)(tmp - e->d_name), e->d_name);
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        int fd = open(lock, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            n += unlink(file) == 0;
        close(fd);
    }
    closedir(d);
    return n;
}

int pg_leftovers_sweep(const char *store_root)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    static const char *const prefixes[] = {"perfgate-rev-", "perfgate-vg-", "perfgate-cg-", "perfgate-jobs-",
                                           PG_LEFTOVERS_CALIBRATE_PREFIX, PG_LEFTOVERS_LOGS_PREFIX, NULL};
    int n = pg_owned_sweep(tmp, prefixes);
    char outs[PATH_MAX];    /* valgrind's output, in its private parent (counters/outdir.h) */
    if (pg_outdir_parent(outs, sizeof outs, 0) == 0)
        n += pg_owned_sweep(outs, pg_outdir_prefixes);
    pg_error_clear();
    int in_store = 0;
    if (store_root) {
        char dir[PATH_MAX];
        walk w = {.root = store_root, .named_as = "\"stacks"};
        snprintf(dir, sizeof dir, "%s/stacks", store_root);
        in_store += each_subdir(dir, sweep_commit, &w);
        walk wl = {.root = store_root, .named_as = "/logs"};
        snprintf(dir, sizeof dir, "%s/logs", store_root);
        in_store += each_subdir(dir, sweep_commit, &wl);
        snprintf(dir, sizeof dir, "%s/results", store_root);
        in_store += each_subdir(dir, sweep_partial_docs, NULL);
        in_store += sweep_probes(dir);
    }
    if (n + in_store) {
        fprintf(stderr, "perfgate: note: removed %d leftover%s of a perfgate that was killed (%d in %s",
                n + in_store, n + in_store == 1 ? "" : "s", n, tmp);
        if (store_root)
            fprintf(stderr, ", %d in %s", in_store, store_root);
        fputs(")\n", stderr);
    }
    return n + in_store;
}
