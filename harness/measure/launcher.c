/* harness/measure/launcher.c — see launcher.h. */
#include "harness/measure/launcher.h"
#include "harness/measure/launch.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *pg_launcher_path(void)
{
    static char path[PATH_MAX];
    static int known;
    if (known)
        return path[0] ? path : NULL;
    known = 1;
    const char *no = getenv("PERFGATE_NO_LAUNCHER"), *env = getenv("PERFGATE_LAUNCHER");
    if (no && *no)
        return NULL;
    char self[PATH_MAX], dir[PATH_MAX] = ".";
    if (realpath("/proc/self/exe", self) && strrchr(self, '/'))
        snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(self, '/') - self), self);
    char cand[4][PATH_MAX + 64];
    snprintf(cand[0], sizeof cand[0], "%s", env && *env ? env : "");
    snprintf(cand[1], sizeof cand[1], "%s/" PG_LAUNCH_NAME, dir);
    snprintf(cand[2], sizeof cand[2], "%s/../libexec/perfgate/" PG_LAUNCH_NAME, dir);
    snprintf(cand[3], sizeof cand[3], "%s", PG_LIBEXECDIR "/" PG_LAUNCH_NAME);
    for (size_t i = 0; i < 4; i++)
        if (cand[i][0] && access(cand[i], X_OK) == 0 && snprintf(path, sizeof path, "%s", cand[i]) < (int)sizeof path)
            return path;
    path[0] = '\0';
    return NULL;
}
