/* harness/store/storecheck.h — can results be stored? Asked before anything is
 * measured, so a read-only or full store costs no measuring time.
 */
#ifndef PG_HARNESS_STORECHECK_H
#define PG_HARNESS_STORECHECK_H

/* Makes <root>/results and <root>/logs, and writes, syncs and removes a probe
 * file of a few kilobytes in results/. PG_EIO naming the directory and why
 * (read-only file system, permission denied, no space left) when it cannot.
 * A store without a .gitignore gets one that ignores all of it, so a store in
 * a work tree leaves `git status` clean; one that is there is left alone (a
 * team committing its results replaces it). */
int pg_store_check_writable(const char *root);

#endif
