/* A hostile benchmark, for tests/e2e/run_jobs_hostile.sh.
 *
 *   jobs_hostile forge TMPDIR STORE   rewrites what perfgate keeps where a
 *       benchmark can reach it: in TMPDIR's perfgate-jobs-* directory (where
 *       a --jobs worker used to leave each result for the parent), item 1's
 *       instructions become 1 and item 0 is renamed to "b"; in STORE ("-":
 *       none), every stored result document gets garbage appended, and a
 *       file is made beside them. What it managed is said on stderr; it
 *       exits 0 either way.
 *   jobs_hostile fill DIR             writes DIR/fill until the file system
 *       is full (at most 256 MiB) and leaves it there.
 *   jobs_hostile waitfull DIR         returns once DIR/fill is there and
 *       DIR's file system has less than 64 KiB left (at most a minute): a
 *       sibling of `fill` under --jobs whose output is then written on the
 *       full file system, whatever order the two end in.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static void put(const char *path, const char *text)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.forged", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    if (rename(tmp, path) == 0)
        fprintf(stderr, "forged %s\n", path);
}

/* `text` with its first `from` replaced by `to` (into out). */
static void replace(char *out, size_t len, const char *text, const char *from, size_t from_len, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) {
        snprintf(out, len, "%s", text);
        return;
    }
    snprintf(out, len, "%.*s%s%s", (int)(at - text), text, to, at + from_len);
}

static void forge_jobs(const char *tmpdir)
{
    DIR *d = opendir(tmpdir);
    char dir[4096] = "";
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "perfgate-jobs-", 14))
            snprintf(dir, sizeof dir, "%s/%s", tmpdir, e->d_name);
    if (d)
        closedir(d);
    if (!dir[0]) {
        fprintf(stderr, "no perfgate-jobs-* directory in %s\n", tmpdir);
        return;
    }
    char p0[4200], p1[4200];
    snprintf(p0, sizeof p0, "%s/0.json", dir);
    snprintf(p1, sizeof p1, "%s/1.json", dir);
    /* The siblings' results appear when they end (at most a minute). */
    for (int i = 0; i < 1200 && (access(p0, F_OK) || access(p1, F_OK)); i++)
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    char *t0 = slurp(p0), *t1 = slurp(p1);
    static char out[1 << 21];
    if (t1) {
        const char *m = strstr(t1, "\"instructions\"");
        const char *s = m ? strstr(m, "\"samples\":") : NULL;
        const char *open = s ? strchr(s, '[') : NULL, *close = open ? strchr(open, ']') : NULL;
        if (close) {
            snprintf(out, sizeof out, "%.*s1%s", (int)(open + 1 - t1), t1, close);
            put(p1, out);
        }
    }
    if (t0) {
        replace(out, sizeof out, t0, "\"name\":\t\"a\"", 11, "\"name\":\t\"b\"");
        put(p0, out);
    }
    free(t0);
    free(t1);
}

static void forge_store(const char *store)
{
    char results[4096];
    snprintf(results, sizeof results, "%s/results", store);
    DIR *d = opendir(results);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", results, e->d_name);
        DIR *s = opendir(sub);
        struct dirent *f;
        while (s && (f = readdir(s))) {
            size_t l = strlen(f->d_name);
            if (l < 5 || strcmp(f->d_name + l - 5, ".json"))
                continue;
            char doc[4700];
            snprintf(doc, sizeof doc, "%s/%s", sub, f->d_name);
            int fd = open(doc, O_WRONLY | O_APPEND);
            if (fd >= 0 && write(fd, "garbage", 7) == 7)
                fprintf(stderr, "appended to %s\n", doc);
            else
                fprintf(stderr, "cannot write %s: %s\n", doc, strerror(errno));
            if (fd >= 0)
                close(fd);
        }
        if (s)
            closedir(s);
    }
    if (d)
        closedir(d);
    char made[4200];
    snprintf(made, sizeof made, "%s/forged", results);
    int fd = open(made, O_WRONLY | O_CREAT, 0644);
    fprintf(stderr, fd >= 0 ? "made %s\n" : "cannot make %s\n", made);
    if (fd >= 0)
        close(fd);
}

static void fill(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/fill", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    static char block[65536];
    for (int i = 0; fd >= 0 && i < 4096 && write(fd, block, sizeof block) == (ssize_t)sizeof block; i++)
        ;
    if (fd >= 0)
        close(fd);
}

static void wait_full(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/fill", dir);
    for (int i = 0; i < 1200; i++) {
        struct statvfs st;
        if (access(path, F_OK) == 0 && statvfs(dir, &st) == 0 && (unsigned long long)st.f_bavail * st.f_frsize < 65536)
            return;
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "forge")) {
        if (strcmp(argv[3], "-"))
            forge_store(argv[3]);
        forge_jobs(argv[2]);
    } else if (argc == 3 && !strcmp(argv[1], "fill")) {
        fill(argv[2]);
    } else if (argc == 3 && !strcmp(argv[1], "waitfull")) {
        wait_full(argv[2]);
    } else {
        fprintf(stderr, "usage: jobs_hostile forge TMPDIR STORE | fill DIR | waitfull DIR\n");
        return 2;
    }
    return 0;
}
