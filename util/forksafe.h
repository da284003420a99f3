/* util/forksafe.h — forking a child that goes on running perfgate's code
 * while another thread is inside a library.
 *
 * fork() copies one thread. A lock another thread held at that moment (the
 * dynamic loader's, one of libgit2's) stays held in the child for ever, and
 * the child hangs on it. Children that only exec, or make system calls, are
 * safe; a --jobs worker is not: it measures, parses, allocates. So a thread
 * that runs such library code marks itself busy for the while, and a fork of
 * a worker waits until no thread is.
 */
#ifndef PG_UTIL_FORKSAFE_H
#define PG_UTIL_FORKSAFE_H

/* Around a thread's library work (any number of threads at once). */
void pg_forksafe_busy_begin(void);
void pg_forksafe_busy_end(void);

/* Around the fork()s of children that run on: waits for every busy thread
 * to end its work, and keeps new work from starting until _end. */
void pg_forksafe_fork_begin(void);
void pg_forksafe_fork_end(void);

#endif
