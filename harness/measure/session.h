/* harness/measure/session.h — one measuring session: the backend chosen for this
 * machine, its meter, the machine fingerprint, and run documents built with
 * them. `run` uses one session; `compare --run-missing` uses one for both
 * revisions, so both sides are measured the same way.
 */
#ifndef PG_HARNESS_SESSION_H
#define PG_HARNESS_SESSION_H

#include "counters/backend.h"
#include "harness/store/machine.h"
#include "harness/store/rundoc.h"
#include "harness/measure/runner.h"

typedef struct pg_session {
    pg_backend_kind backend;
    const pg_backend_props *props;  /* what the chosen backend's measurements are */
    pg_meter *meter;
    pg_machine machine;
    char notice[1024];          /* the fallback notice, "" when none */
    const char *events;
    int user_only;
    pg_backend_kind requested;
    pg_meter *native;           /* valgrind backend: the perf meter (software events) of the native
                                   runs, NULL when not asked for or not possible */
    int native_asked;           /* pg_session_open_native was called */
    char native_why[600];       /* why native time is not measured although asked, "" otherwise */
} pg_session;

/* Probes the machine, chooses the backend, opens the meter. */
int pg_session_open(pg_session *s, pg_backend_kind requested, const char *events, int user_only);
/* Says on stderr, once, what the user should know of the backend's choice: a
 * separate step so that a command can first refuse bad input in one line. */
void pg_session_tell(const pg_session *s);
void pg_session_close(pg_session *s);

/* With the valgrind backend: opens the perf meter of the native runs
 * (task-clock and the other software events, wall-time, max-rss), so that one
 * result has exact counts and native time. Without software perf events the
 * run goes on without native time, and says why (stderr and the document's
 * notices). Does nothing with the perf backend, whose runs are native. */
int pg_session_open_native(pg_session *s);

/* Fills `doc` (zeroed by the caller) with everything but the benchmarks and
 * "dirty" (the caller's, once its runs are done: pg_measure_here.finish);
 * `commit` NULL when the results are keyed to no commit. PG_ENOMEM. */
int pg_session_new_doc(pg_rundoc *doc, const pg_session *s, const char *commit, int cpu);

/* Records the meter's notices (and, when native time was asked for but
 * could not be measured, why) (hardware events that could not be counted) in
 * the document and on stderr, and sets end_time. PG_ENOMEM. */
int pg_session_finish_doc(const pg_session *s, pg_rundoc *doc);


#endif
