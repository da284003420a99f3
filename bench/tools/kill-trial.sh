#!/usr/bin/env bash
# What perfgate leaves behind when it is killed, and what benchmarks that start
# daemons leave behind. Two trials, figures printed at the end (target: all 0):
#
#  kills:  KILLS times, `perfgate run --sample` (odd trials) or
#          `compare --run-missing --sample` (even trials) on a suite whose last
#          benchmark hangs after starting a setsid() daemon, SIGKILLed at a point
#          that varies from trial to trial (often while the hung benchmark runs).
#          After each kill: the benchmark processes still running once the
#          watchdog had its chance (a bounded wait), and the directories it left
#          (stacks directories no result names, checkouts, valgrind's output),
#          which the next trial's perfgate sweeps. After the last, one more
#          `perfgate run` sweeps: the leftover directories before and after it.
#  setsid: RUNS times per backend, a benchmark that leaves a daemon, once
#          exiting cleanly and once killed by --timeout: daemons still running.
#
# Usage: bench/tools/kill-trial.sh [BUILD_DIR] [KILLS] [RUNS]
# PERFGATE_NO_CGROUP=1 in the environment measures the fallback used where no
# cgroup can be made (there, a daemon outlives a SIGKILLed perfgate: expected).
set -uo pipefail
build=${1:-build}; kills=${2:-20}; runs=${3:-5}
pg=$(realpath "$build/perfgate")
progs=$(realpath "$build/tests/progs")
[ -x "$pg" ] && [ -x "$progs/daemon" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/pg-kill-trial.XXXXXX")
export TMPDIR=$dir/tmp
mkdir -p "$TMPDIR"
# Private copies, so the processes counted are this trial's and no one else's.
cp "$progs/daemon" "$dir/daemon-trial"
cp "$progs/work" "$dir/work-trial"
pids=$dir/daemon.pids

# alive: this trial's processes (benchmarks and daemons) still running, not zombies.
alive() {
  local n=0
  for p in $(pgrep -f "$dir/(daemon|work)-trial"); do
    grep -q '^State:.*Z' /proc/$p/status 2>/dev/null || n=$((n + 1))
  done
  echo $n
}
# settle: waits (bounded) for the trial's processes to go; prints how many stayed.
settle() {
  local n
  for _ in $(seq 100); do n=$(alive); [ "$n" = 0 ] && break; sleep 0.1; done
  echo "$n"
}
# reap_strays: kills the strays by pid (they are counted already), so the next trial starts clean.
reap_strays() { for p in $(pgrep -f "$dir/(daemon|work)-trial"); do kill -9 "$p" 2>/dev/null; done; }
leftovers() {
  { find "$TMPDIR" -maxdepth 1 -name 'perfgate-*' ! -name 'perfgate-logs-*'
    find "$dir/repo/.perfgate" -name .perfgate-owner 2>/dev/null; } | wc -l
}
cleanup() { reap_strays; rm -rf "$dir"; }
trap cleanup EXIT

R=$dir/repo
mkdir -p "$R/b"
git -C "$R" init -q -b main
cat > "$R/b/perfgate.json" <<JSON
{ "defaults": { "repeat": 2, "warmup": 0 },
  "benchmarks": [
    { "name": "work-a", "command": ["$dir/work-trial", "300000"] },
    { "name": "work-b", "command": ["$dir/work-trial", "100000"] },
    { "name": "hang",   "command": ["$dir/daemon-trial", "$pids", "hang"] } ] }
JSON
git -C "$R" add b
git -C "$R" -c user.email=t@example.invalid -c user.name=t commit -q -m one
echo 2 > "$R/two"; git -C "$R" add two
git -C "$R" -c user.email=t@example.invalid -c user.name=t commit -q -m two
cd "$R"

echo "kill trial: $pg, $kills kills; $(uname -r); uid $(id -u); PERFGATE_NO_CGROUP=${PERFGATE_NO_CGROUP:-unset}"
"$pg" doctor 2>/dev/null | grep "cgroup v2 per run"
strays_total=0; trials_with_strays=0; dirs_total=0
for i in $(seq "$kills"); do
  rm -f "$pids"
  if [ $((i % 2)) = 1 ]; then
    what="run --sample"
    "$pg" run --sample b/ > /dev/null 2>&1 &
  else
    what="compare --run-missing --sample"
    "$pg" compare --run-missing --sample --bench b HEAD~1 HEAD > /dev/null 2>&1 &
  fi
  p=$!
  # The kill point: a varying delay after the start, or once the hung benchmark runs.
  if [ $((i % 4)) = 0 ]; then
    sleep "0.$((i * 37 % 10))"
  else
    for _ in $(seq 600); do [ -s "$pids" ] && break; sleep 0.1; done
  fi
  kill -9 $p; wait $p 2>/dev/null
  n=$(settle)
  d=$(leftovers)
  dirs_total=$((dirs_total + d))
  printf '  kill %2d (%s, %s): %s stray processes, %s directories left\n' "$i" "$what" \
    "$([ $((i % 4)) = 0 ] && echo "after a delay" || echo "while the hung benchmark ran")" "$n" "$d"
  strays_total=$((strays_total + n)); [ "$n" = 0 ] || trials_with_strays=$((trials_with_strays + 1))
  reap_strays
done
before=$(leftovers)
"$pg" run --filter work-b b/ > /dev/null 2> "$dir/sweep.err"
after=$(leftovers)
echo "kills: $kills; stray processes: $strays_total (in $trials_with_strays of $kills kills)"
echo "leftover directories: $dirs_total left by the $kills kills (each swept by the next perfgate); $before before the last sweep, $after after it"
grep 'removed' "$dir/sweep.err"

echo "setsid trial: $runs runs per backend and ending"
daemons_total=0
for be in $("$pg" doctor 2>/dev/null | sed -n 's/^  --backend \(perf\|valgrind\)  *ok.*/\1/p'); do
  for ending in exit timeout; do
    left=0
    for _ in $(seq "$runs"); do
      rm -f "$pids"
      if [ $ending = exit ]; then
        "$pg" run --no-store --backend "$be" -r 1 -w 0 -- "$dir/daemon-trial" "$pids" > /dev/null 2>&1
      else
        "$pg" run --no-store --backend "$be" -r 1 -w 0 --timeout 5 -- "$dir/daemon-trial" "$pids" hang > /dev/null 2>&1
      fi
      n=$(settle); left=$((left + n)); reap_strays
    done
    echo "  $be, $ending: $left daemons left in $runs runs"
    daemons_total=$((daemons_total + left))
  done
done
echo "setsid: daemons left: $daemons_total"
