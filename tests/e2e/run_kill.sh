#!/usr/bin/env bash
# perfgate SIGKILLed in the middle of a run:
#  - the hung benchmark it was running dies with it (with both backends, with
#    and without a cgroup per run), and so does the daemon the benchmark left
#    when perfgate could give the run a cgroup;
#  - what the killed run left on disk (the stacks directory of `run --sample`,
#    valgrind's output directories, the temporary checkouts of
#    `compare --run-missing`, calibrate's logs) is removed by the next run, while
#    the stacks of stored runs stay.
. "$(dirname "$0")/lib/common.sh"
# A private copy: pgrep finds this test's benchmark, not another test's.
cp "$PROGS/daemon" "$T/daemon-k"
B=$T/daemon-k
PIDS=$T/daemon.pids
R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
cat > "$R/b/perfgate.json" <<JSON
{ "defaults": { "repeat": 1, "warmup": 0 },
  "benchmarks": [
    { "name": "quick", "command": ["$PROGS/work", "1000"] },
    { "name": "hang",  "command": ["$B", "$PIDS", "hang"] } ] }
JSON
git -C "$R" add b && git -C "$R" commit -q -m bench
echo change > "$R/file" && git -C "$R" add file && git -C "$R" commit -q -m change
cd "$R"

# running PID: that process still runs (not a zombie).
running() { [ -e /proc/$1 ] && ! grep -q '^State:.*Z' /proc/$1/status 2>/dev/null; }
# gone PID...: waits (bounded, generously) until none of them runs.
gone() {
  for _ in $(seq 300); do
    local n=0
    for p in "$@"; do running "$p" && n=$((n + 1)); done
    [ $n = 0 ] && return 0
    sleep 0.1
  done
  return 1
}
# started: waits (bounded) until the hung benchmark runs and its daemon wrote its pid.
started() {
  for _ in $(seq 600); do
    [ -s "$PIDS" ] && pgrep -f "$T/[d]aemon-k" >/dev/null && return 0
    sleep 0.1
  done
  return 1
}
# The benchmark's own processes: those running the private copy, but the daemon.
bench_pids() { pgrep -f "$T/[d]aemon-k" | grep -vxF -f "$PIDS"; }
kill_pids() { for p in "$@"; do kill -9 "$p" 2>/dev/null; done; }

# The backends that work here (perf needs perf_event access, valgrind needs valgrind).
"$PG" doctor > "$T/doctor" 2>&1
backends=$(sed -n 's/^  --backend \(perf\|valgrind\)  *ok.*/\1/p' "$T/doctor" | sort -r | tr '\n' ' ')
echo "backends tested: $backends"
cgroup_here=0
grep -q "cgroup v2 per run  *ok" "$T/doctor" && cgroup_here=1
[ $cgroup_here = 1 ] || echo "no cgroup can be made here: daemons that outlive a killed perfgate are not checked"

# no-launcher: the watchdog is a fork of perfgate, not the launcher exec'd
# (harness/measure/watchdog.h), and kills the same.
for mode in cgroup no-cgroup no-launcher; do
  if [ $mode = no-cgroup ]; then export PERFGATE_NO_CGROUP=1; else unset PERFGATE_NO_CGROUP; fi
  if [ $mode = no-launcher ]; then export PERFGATE_NO_LAUNCHER=1; else unset PERFGATE_NO_LAUNCHER; fi
  for be in $backends; do
    rm -f "$PIDS"
    "$PG" run --no-store --backend $be --filter hang b/ > "$T/out" 2> "$T/err" &
    pg=$!
    check "$mode $be: the hung benchmark started" started
    main=$(bench_pids)
    daemon=$(cat "$PIDS")
    check "$mode $be: the benchmark's processes are known" test -n "$main" -a -n "$daemon"
    kill -9 $pg
    wait $pg 2>/dev/null
    check "$mode $be: the hung benchmark ($main) died with perfgate" gone $main
    if [ $mode != no-cgroup ] && [ $cgroup_here = 1 ]; then
      check "$mode $be: its setsid() daemon ($daemon) died too" gone $daemon
    fi
    kill_pids $main $daemon
  done
done
unset PERFGATE_NO_CGROUP PERFGATE_NO_LAUNCHER

# kill_while_hung LABEL COMMAND...: starts the command, SIGKILLs it once it
# runs the hung benchmark, and waits until the benchmark is gone.
kill_while_hung() {
  local label=$1 pg main; shift
  rm -f "$PIDS"
  "$@" > "$T/out" 2> "$T/err" &
  pg=$!
  check "$label: the hung benchmark started" started
  main=$(bench_pids)
  kill -9 $pg
  wait $pg 2>/dev/null
  gone $main
  kill_pids $main $(cat "$PIDS")
}

# --- leftovers on disk ---
be=${backends%% *}
# An unstored run makes its logs directory at a benchmark's failure (with
# --sample, beforehand, for the stacks): killed before one, it leaves none.
check "the killed unstored runs left no logs directory" [ -z "$(ls -d "$T"/perfgate-logs-* 2>/dev/null)" ]
kill_while_hung "run --no-store --sample" "$PG" run --no-store --backend $be --sample --filter hang b/
check "the killed unstored run with --sample left its logs directory" [ -n "$(ls -d "$T"/perfgate-logs-* 2>/dev/null)" ]
# An unstored run that ends with a failed benchmark keeps its logs for the user,
# and no sweep takes them: they are no longer owned.
cat > "$T/fails.json" <<JSON
{ "defaults": { "repeat": 1, "warmup": 0 },
  "benchmarks": [ { "name": "fails", "command": ["$PROGS/crash"] } ] }
JSON
expect_exit 1 "an unstored run whose benchmark fails" "$PG" run --no-store --backend $be "$T/fails.json"
failed_logs=$(sed -n 's|.*full log: \(.*perfgate-logs-[^/]*\)/fails.stderr$|\1|p' "$T/out" | head -1)
expect_exit 0 "a complete run with --sample" "$PG" run --backend $be --sample --filter quick b/
kept=$(dirname "$(find .perfgate/stacks -name 'quick.folded' | head -1)")
check "its stacks are stored" [ -n "$kept" ]

kill_while_hung "run --sample" "$PG" run --backend $be --sample b/
check "the killed run left its stacks directory" [ -n "$(find .perfgate/stacks -name .perfgate-owner)" ]
if [ $be = valgrind ]; then
  check "the killed run left valgrind's directories" [ -n "$(ls -d "$T"/perfgate-out.*/perfgate-vg-* "$T"/perfgate-out.*/perfgate-cg-* 2>/dev/null)" ]
fi

expect_exit 0 "the next run" "$PG" run --backend $be --filter quick b/
contains "$T/err" "removed" "the next run says it removed the leftovers"
check "no unstored stacks directory is left" [ -z "$(find .perfgate/stacks -name .perfgate-owner)" ]
check "the stored run's stacks stay" [ -f "$kept/quick.folded" ]
# Every stacks directory left is one a stored result names.
for d in .perfgate/stacks/*/*/*/; do
  d=${d#.perfgate/}
  check "stacks directory $d is referenced by a result" grep -rqF "\"$d" .perfgate/results
done
check "no valgrind directory is left in TMPDIR" [ -z "$(ls -d "$T"/perfgate-out.*/perfgate-vg-* "$T"/perfgate-out.*/perfgate-cg-* 2>/dev/null)" ]

# compare --run-missing: killed while measuring the checked-out revisions.
kill_while_hung "compare --run-missing" "$PG" compare --run-missing --manifest b --backend $be HEAD~1 HEAD
ls -d "$T"/perfgate-rev-* > "$T/checkouts" 2>/dev/null
# HEAD has results (the runs above): only HEAD~1 is checked out and measured.
check "the killed compare left its checkout" [ "$(wc -l < "$T/checkouts")" = 1 ]
expect_exit 0 "the next run" "$PG" run --backend $be --filter quick b/
contains "$T/err" "removed"
check "no checkout is left" [ -z "$(ls -d "$T"/perfgate-rev-* 2>/dev/null)" ]

# calibrate: killed while measuring; its logs directory goes at the next run.
kill_while_hung "calibrate" "$PG" calibrate --backend $be --no-write --filter hang b/
check "the killed calibrate left no logs directory (none failed)" [ -z "$(ls -d "$T"/perfgate-calibrate-* 2>/dev/null)" ]
expect_exit 0 "the next run" "$PG" run --backend $be --filter quick b/
check "no calibrate directory is left" [ -z "$(ls -d "$T"/perfgate-calibrate-* 2>/dev/null)" ]
check "no owned directory is left anywhere" [ -z "$(find "$T" -name .perfgate-owner)" ]
check "no killed run's logs directory is left" [ "$(ls -d "$T"/perfgate-logs-* 2>/dev/null)" = "$failed_logs" ]
check "the failed unstored run's logs stay, swept by no run" [ -n "$failed_logs" ] && [ -d "$failed_logs" ]
finish
