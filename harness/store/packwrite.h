/* harness/store/packwrite.h — objects written into a repository as one pack.
 *
 * A fetch from a local remote copies each note, tree and commit it lacks.
 * Written as loose objects, each was a file made, written, linked and
 * unlinked: for 1,000 notes 3,910 files, and a third of the fetch's CPU
 * time went to the file system finding inodes (ext4, perf record). Here
 * they go into one pack instead, as git's own fetch keeps what it receives:
 * each object whole (no delta: finding one is what made libgit2's local
 * transport slow), deflated at zlib's fastest level as libgit2 writes loose
 * objects, streamed into libgit2's indexer (git_odb_write_pack), which
 * installs the pack and its index at the commit, or nothing.
 */
#ifndef PG_STORE_PACKWRITE_H
#define PG_STORE_PACKWRITE_H

#include "harness/store/git2.h"
#include <stddef.h>

typedef struct pg_packwrite pg_packwrite;

/* A pack of exactly `count` objects for `odb`. PG_ENOTSUP without libcrypto
 * (harness/store/sha1.h), PG_ERROR from libgit2, PG_ENOMEM. */
int pg_packwrite_new(pg_packwrite **out, git_odb *odb, size_t count);
/* Adds the object of `type` holding data[0..len), under the id that
 * content has, into *id. `want` (NULL: any) is the id the content must
 * have: when it hashes to another, nothing is written and 1 is returned
 * (*id that other), before the pack sees it, so that what is said of a
 * damaged object does not hang on which object came first (the indexer
 * refuses a second copy of an object as a duplicate). Safe to call from
 * two threads at once (each deflates and hashes on its own; the pack is
 * written in turn). PG_EINVAL past `count` objects; a failure stays, and
 * commit fails too. */
int pg_packwrite_add(git_oid *id, pg_packwrite *pw, git_object_t type, const void *data, size_t len,
                     const git_oid *want);
/* Ends the pack and has libgit2 index and install it: every object is in
 * the object database from then on, none before. PG_EINVAL when fewer than
 * `count` objects were added. */
int pg_packwrite_commit(pg_packwrite *pw);
/* Frees; a pack not committed is discarded. */
void pg_packwrite_free(pg_packwrite *pw);

#endif
