/* util/forksafe.c — see forksafe.h. */
#include "util/forksafe.h"

#include <pthread.h>

/* Readers are the busy threads, the writer the forking one. */
static pthread_rwlock_t busy = PTHREAD_RWLOCK_INITIALIZER;

void pg_forksafe_busy_begin(void) { pthread_rwlock_rdlock(&busy); }
void pg_forksafe_busy_end(void) { pthread_rwlock_unlock(&busy); }
void pg_forksafe_fork_begin(void) { pthread_rwlock_wrlock(&busy); }
void pg_forksafe_fork_end(void) { pthread_rwlock_unlock(&busy); }
