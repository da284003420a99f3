#!/usr/bin/env bash
# A benchmark that leaves a daemon behind (a child that calls setsid(), so it
# is no longer in the benchmark's process group) leaves no process running once
# perfgate returns: after a --timeout kill and after a clean exit, with the
# valgrind backend and with the perf backend, and both with a cgroup per run
# (where perfgate may make one) and without (PERFGATE_NO_CGROUP=1: the
# subreaper sweep, as on a machine where no cgroup can be made).
. "$(dirname "$0")/lib/common.sh"

# running PID: the daemon of that pid still runs (not a zombie, not a reused pid).
running() {
  grep -q '^State:.*Z' /proc/$1/status 2>/dev/null && return 1
  { tr '\0' ' ' < /proc/$1/cmdline; } 2>/dev/null | grep -qF "$PROGS/daemon"
}
# alive PIDFILE: how many of the daemons listed in PIDFILE still run, after
# waiting (bounded, generously) for them to go.
alive() {
  local n
  for _ in $(seq 100); do
    n=0
    for p in $(cat "$1" 2>/dev/null); do
      running "$p" && n=$((n + 1))
    done
    [ $n = 0 ] && break
    sleep 0.1
  done
  echo $n
}
# The daemons a failed check leaves are killed by pid, so the suite goes on clean.
cleanup_pids() { for p in $(cat "$1" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done; }

# The backends that work here (perf needs perf_event access, valgrind needs valgrind).
"$PG" doctor > "$T/doctor" 2>&1
backends=$(sed -n 's/^  --backend \(perf\|valgrind\)  *ok.*/\1/p' "$T/doctor" | sort -r | tr '\n' ' ')
echo "backends tested: $backends"
# Where a cgroup per run can be made, the benchmark is in it from its first
# instruction (born there: clone3 into the cgroup, or moved before exec),
# through the launcher (perf) and without it (valgrind's runs). The cgroup v2
# line (0::) is the one perfgate's cgroups are in.
if grep -q '^  cgroup v2 per run  *ok' "$T/doctor"; then
  for be in $backends; do
    expect_exit 0 "$be: a benchmark that prints its cgroup" \
      "$PG" run --no-store --backend $be -r 1 -w 0 -- sh -c "cat /proc/self/cgroup >> '$T/cg-$be'"
    check "$be: every run's benchmark in a perfgate-<pid>-<n> cgroup" \
      sh -c "grep -q '^0::' '$T/cg-$be' && ! grep '^0::' '$T/cg-$be' | grep -qv '/perfgate-[0-9]*-[0-9]*\$'"
  done
fi

for mode in cgroup no-cgroup; do
  if [ $mode = no-cgroup ]; then export PERFGATE_NO_CGROUP=1; else unset PERFGATE_NO_CGROUP; fi
  for be in $backends; do
    # A clean exit that leaves the daemon running.
    pids=$T/exit-$mode-$be.pids
    expect_exit 0 "$mode $be: a benchmark that leaves a daemon" \
      "$PG" run --no-store --backend $be -r 1 -w 0 -- "$PROGS/daemon" "$pids"
    # valgrind's run, then the native one (docs/metrics.md): two daemons.
    starts=1; [ $be = valgrind ] && starts=2
    check "$mode $be: the daemon was started $starts times" [ "$(wc -l < "$pids")" = $starts ]
    n=$(alive "$pids")
    check "$mode $be: no daemon left after a clean exit ($n running)" [ "$n" = 0 ]
    cleanup_pids "$pids"

    # A timeout: the main process hangs, the daemon too. The daemon must have
    # started before the timeout for the check to say anything, and how long
    # valgrind takes to start depends on the machine: the timeout grows until it did.
    pids=$T/timeout-$mode-$be.pids
    for t in 2 8 32; do
      rm -f "$pids"
      expect_exit 1 "$mode $be: a hung benchmark that leaves a daemon, --timeout $t" \
        "$PG" run --no-store --backend $be -r 1 -w 0 --timeout $t -- "$PROGS/daemon" "$pids" hang
      [ -s "$pids" ] && break
    done
    contains "$T/err" "1 of 1 benchmarks failed"
    check "$mode $be: the daemon was started before the timeout" [ -s "$pids" ]
    n=$(alive "$pids")
    check "$mode $be: no daemon left after the timeout kill ($n running)" [ "$n" = 0 ]
    cleanup_pids "$pids"
  done
done
finish
