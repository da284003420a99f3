/* util/owned_dir.h — working directories that say whether their owner lives,
 * so what a killed perfgate left behind can be told from what a running one uses.
 *
 * An owned directory holds a lock file, PG_OWNER_FILE (the owner's pid, as text
 * for a human), on which its creator keeps an exclusive flock(2) while it uses
 * the directory. The kernel drops that lock however the owner ends, SIGKILL
 * included, so a directory whose lock can be taken was abandoned. Unlike a pid
 * check this is not fooled by pid reuse or by an owner in another pid
 * namespace sharing the directory. The lock file is put in place already
 * locked (made under another name, locked, renamed), and its owner unlinks it
 * before unlocking: a sweeper never mistakes a starting or finishing owner for
 * a dead one.
 */
#ifndef PG_UTIL_OWNED_DIR_H
#define PG_UTIL_OWNED_DIR_H

#include <limits.h>
#include <stddef.h>

#define PG_OWNER_FILE ".perfgate-owner"

typedef struct pg_owned_dir {
    char path[PATH_MAX];    /* "" when none */
    int lockfd;             /* -1 when none */
} pg_owned_dir;

/* A zeroed-out handle (path "", lockfd -1): releasing it does nothing. */
void pg_owned_init(pg_owned_dir *d);

/* A new private directory "$TMPDIR/<prefix><pid>-XXXXXX" (TMPDIR unset or
 * empty: /tmp), owned. PG_EIO naming where it could not be made. */
int pg_owned_mkdtemp(pg_owned_dir *d, const char *prefix);

/* The same, its real path `want` bytes long when it can be (the name is
 * padded; a $TMPDIR already longer cannot be): *matched (when not NULL)
 * says whether it is. A program run from a checkout there sees its own path
 * as long as it would in a work tree of that length (harness/measure/canon.h). */
int pg_owned_mkdtemp_len(pg_owned_dir *d, int *matched, const char *prefix, size_t want);

/* `path` (made with its parents when missing), owned. */
int pg_owned_mkdir(pg_owned_dir *d, const char *path);

/* Gives the directory up: with `remove` it goes, with all it holds; without,
 * only its lock file goes and what it holds stays (a finished result's stacks). */
void pg_owned_release(pg_owned_dir *d, int remove);

/* 1 when `dir` is an owned directory whose owner is gone, 0 when its owner
 * lives or it is not an owned directory (no lock file). On 1, *lockfd holds
 * the abandoned lock (so no second sweeper takes the directory too): close it
 * after dealing with the directory. */
int pg_owned_abandoned(const char *dir, int *lockfd);

/* Removes every directory "<parent>/<prefix>*" whose owner is gone, for
 * each prefix of the NULL-terminated `prefixes`; returns how many it removed.
 * A parent that cannot be read has none. The parent is read once: $TMPDIR
 * may hold thousands of entries, and every run sweeps it. */
int pg_owned_sweep(const char *parent, const char *const *prefixes);

#endif
