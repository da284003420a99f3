/* harness/store/worktree.c — see worktree.h. */
#include "harness/store/worktree.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *dir, const char *name)
{
    char p[4300];
    struct stat st;
    return snprintf(p, sizeof p, "%s/%s", dir, name) < (int)sizeof p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *dir, const char *name)
{
    char p[4300];
    struct stat st;
    return snprintf(p, sizeof p, "%s/%s", dir, name) < (int)sizeof p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* What libgit2 takes for a repository directory (is_valid_repository_path). */
static int looks_like_repo(const char *dir)
{
    return is_dir(dir, "objects") && is_dir(dir, "refs") && is_file(dir, "HEAD");
}

/* Whether the config may move or remove the work tree (core.worktree,
 * core.bare): read loosely, since a false alarm only asks libgit2. */
static int config_moves_worktree(const char *gitdir)
{
    char p[4300], buf[16384];
    if (snprintf(p, sizeof p, "%s/config", gitdir) >= (int)sizeof p)
        return 1;
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;       /* no config: nothing moves it */
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0 || n == (ssize_t)sizeof buf - 1)
        return 1;       /* unreadable, or too long to read whole here */
    buf[n] = '\0';
    for (char *c = buf; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
    if (strstr(buf, "worktree") || strstr(buf, "include"))
        return 1;
    for (char *b = strstr(buf, "bare"); b; b = strstr(b + 4, "bare")) {
        char *v = b + 4;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v != '=')
            continue;
        for (v++; *v == ' ' || *v == '\t';)
            v++;
        if (strncmp(v, "false", 5) && strncmp(v, "no", 2) && strncmp(v, "off", 3) && *v != '0')
            return 1;
    }
    return 0;
}

int pg_worktree_find(char *out, size_t len, const char *path)
{
    char dir[4096];
    struct stat here, st;
    if (path[0] != '/' || snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir || stat(dir, &here) < 0)
        return PG_WORKTREE_ASK_GIT;
    for (;;) {
        size_t l = strlen(dir);
        while (l > 1 && dir[l - 1] == '/')
            dir[--l] = '\0';
        if (stat(dir, &st) < 0)
            return PG_WORKTREE_ASK_GIT;
        if (st.st_dev != here.st_dev)
            return PG_WORKTREE_NONE;        /* libgit2 does not cross file systems either */
        if (looks_like_repo(dir))
            return PG_WORKTREE_ASK_GIT;     /* bare, or inside a .git directory */
        char git[4200];
        snprintf(git, sizeof git, "%s/.git", dir);
        if (lstat(git, &st) == 0) {
            if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || !looks_like_repo(git) || config_moves_worktree(git))
                return PG_WORKTREE_ASK_GIT;
            return snprintf(out, len, "%s%s", dir, l > 1 ? "/" : "") < (int)len ? PG_WORKTREE_FOUND
                                                                                 : PG_WORKTREE_ASK_GIT;
        }
        if (l <= 1)
            return PG_WORKTREE_NONE;
        char *slash = strrchr(dir, '/');
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
}
