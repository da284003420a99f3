/* util/pair.h — two pieces of independent work, on two cores. */
#ifndef PG_UTIL_PAIR_H
#define PG_UTIL_PAIR_H

typedef int (*pg_pair_fn)(void *arg);

/* Runs fn(a) on this thread and fn(b) on a thread of its own when `parallel`
 * (and a thread can be made); else fn(b) after fn(a), unless that failed.
 * Returns 0, or the first failure's code, a's before b's, with its message as
 * this thread's last error (util/error.h: errors are per thread). fn must be
 * safe to run beside itself, and free what it keeps per thread before it
 * returns. */
int pg_pair_run(pg_pair_fn fn, void *a, void *b, int parallel);

/* With `on`, pg_pair_run runs its two pieces one after the other from then
 * on. Set once at start, before any thread, where perfgate itself runs
 * under a simulator that runs one thread at a time (counters/backend.h,
 * pg_backend_hosted): a second thread gains nothing there, and where the two
 * meet would move the exact count of perfgate's own code from run to run
 * (bench/self). */
void pg_pair_serial(int on);

#endif
