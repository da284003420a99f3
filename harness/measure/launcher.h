/* harness/measure/launcher.h — where the launcher is (harness/measure/launch.h
 * says what it is): the program each measured run's benchmark is forked
 * from, and the watchdog perfgate starts (harness/measure/watchdog.h). */
#ifndef PG_HARNESS_LAUNCHER_H
#define PG_HARNESS_LAUNCHER_H

/* $PERFGATE_LAUNCHER, else beside perfgate's own executable (a build tree),
 * else in the libexec/perfgate/ of its installation, wherever that was put,
 * else where CMake installed it; NULL when there is none, or when
 * PERFGATE_NO_LAUNCHER is set (then a benchmark is forked by perfgate itself,
 * and its max-rss counts perfgate's memory; the watchdog is a fork too).
 * Decided once. */
const char *pg_launcher_path(void);

#endif
