/* counters/control.h — the channel through which a marked benchmark turns
 * the perf backend's counters on and off (include/perfgate.h).
 *
 * Two pipes, as `perf stat --control=fd:ctl,ack`: the child writes "enable\n"
 * or "disable\n" to ctl and waits for "ack\n" on ack; perfgate, polling ctl,
 * applies each command before it acks, so the region starts and ends exactly
 * at the marker. The child learns the fds from PERFGATE_CTL_FD="ctl,ack".
 * Per measured run:
 *     pg_control_open -> (spawn keeps the child's ends open across exec)
 *     -> pg_control_parent_side (after fork) -> pg_control_serve while it runs
 *     -> pg_control_close
 */
#ifndef PG_COUNTERS_CONTROL_H
#define PG_COUNTERS_CONTROL_H

#include <stddef.h>

#define PG_CONTROL_ENV "PERFGATE_CTL_FD"

typedef struct pg_control {
    int ctl[2], ack[2];         /* -1 when closed; the child keeps ctl[1] and ack[0] */
    char env[64];               /* "PERFGATE_CTL_FD=<ctl>,<ack>" */
    unsigned long enables, disables;   /* commands served in this run */
} pg_control;

void pg_control_init(pg_control *c);
int pg_control_open(pg_control *c);
/* The two fds the child must keep across exec. */
size_t pg_control_child_fds(const pg_control *c, int *fds, size_t max);
/* In the parent after fork: closes the child's ends. */
void pg_control_parent_side(pg_control *c);
/* The fd to poll: ctl's read end, -1 when closed. */
int pg_control_fd(const pg_control *c);
/* Reads the commands available, calls apply(ctx, 1 or 0) for each and acks
 * it. An unknown command is acked and ignored. Negative when apply failed. */
int pg_control_serve(pg_control *c, int (*apply)(void *ctx, int on), void *ctx);
void pg_control_close(pg_control *c);

#endif
