#!/usr/bin/env bash
# The harness's own overhead, as ratios measured in one run (issue: perfgate run).
#   perf backend:     `perfgate run --repeat N` of one benchmark  vs  N bare runs
#   valgrind backend: `perfgate run --repeat N --backend valgrind` vs N bare
#                     `valgrind --tool=cachegrind` runs with the same options,
#                     then N bare native runs: with the valgrind backend
#                     `--repeat N` also makes N native runs (task-clock and
#                     wall-time come from them, docs/metrics.md), which the
#                     bare side must make too for like to be compared with like
#                     (without them the bare side was ~3% short of the work
#                     perfgate does for sort 200000: its native runs' CPU time)
# Both sides are timed alternately, ROUNDS times, and the medians compared, so
# drift of the machine hits both alike. Where `perf stat` counts task-clock
# (a software event: any Linux), each side's CPU time, children included, is
# compared too: on a machine other people load, wall time moves with their
# work and CPU time much less. Targets: at most 1.05 (perf), 1.02 (valgrind).
# Usage: bench/tools/harness-overhead.sh [BUILD_DIR] [N] [ROUNDS] [SORT_N] [BACKENDS]
# SORT_N sizes the benchmark (bench/sort's elements; 200000, the default, runs
# about 20 ms here, 20000 about 1 ms, 2000000 about 200 ms); BACKENDS is
# "perf vg" (the default), "perf" or "vg".
set -euo pipefail
build=${1:-build}; n=${2:-10}; rounds=${3:-5}; size=${4:-200000}; backends=${5:-perf vg}
pg=$build/perfgate
prog=("$build/bench/sort" "$size")
[ -x "$pg" ] && [ -x "${prog[0]}" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
now() { date +%s.%N; }
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
spread() { sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.3f..%.3f", lo, hi}'; }
# perfgate's options (counters/valgrind.c), --vgdb=no and --command-line-only=yes too.
vg=(valgrind --vgdb=no --command-line-only=yes --tool=cachegrind --cache-sim=yes --branch-sim=yes --I1=32768,8,64 --D1=32768,8,64
    --LL=8388608,16,64 --trace-children=yes -q --cachegrind-out-file=/dev/null --log-file=/dev/null)

# The CPU time (ms) of `$@` and all it starts, from perf stat's task-clock
# into $cpu_ms; empty when perf cannot count it.
cpu_ms=
stat_ok=$(perf stat -x, -e task-clock -- true 2>&1 >/dev/null | grep -c task-clock || true)
timed() {
  if [ "$stat_ok" = 1 ]; then
    cpu_ms=$(perf stat -x, -e task-clock -- "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}')
  else
    "$@" >/dev/null 2>&1; cpu_ms=
  fi
}

measure() {   # label, then the two commands as functions bare_$1 / pg_$1
  local b=() p=() r=() c=() bc pc
  for _ in $(seq "$rounds"); do
    t0=$(now); timed bash -c "$(declare -f "bare_$1"); $(declare -p prog vg n); bare_$1"; bc=$cpu_ms
    t1=$(now); timed bash -c "$(declare -f "pg_$1"); $(declare -p prog pg n); pg_$1"; pc=$cpu_ms
    t2=$(now)
    b+=("$(awk "BEGIN{print $t1 - $t0}")"); p+=("$(awk "BEGIN{print $t2 - $t1}")")
    r+=("$(awk "BEGIN{print ($t2 - $t1) / ($t1 - $t0)}")")
    if [ -n "$bc" ] && [ -n "$pc" ]; then c+=("$(awk "BEGIN{print $pc / $bc}")"); fi
  done
  local mb mp mr
  mb=$(printf '%s\n' "${b[@]}" | med); mp=$(printf '%s\n' "${p[@]}" | med); mr=$(printf '%s\n' "${r[@]}" | med)
  # The ratio of the medians, and the median of each round's ratio (its two
  # sides timed back to back: what drifts between rounds cancels), with the
  # smallest and largest round's.
  printf '%-9s %d runs: bare %.3f s, perfgate %.3f s, ratio %.3f, paired %.3f (%s)' "$1" "$n" "$mb" "$mp" \
    "$(awk "BEGIN{print $mp / $mb}")" "$mr" "$(printf '%s\n' "${r[@]}" | spread)"
  if [ ${#c[@]} -gt 0 ]; then
    printf ', CPU paired %.3f (%s)' "$(printf '%s\n' "${c[@]}" | med)" "$(printf '%s\n' "${c[@]}" | spread)"
  fi
  printf '\n'
}
bare_perf() { for _ in $(seq "$n"); do taskset -c 1 "${prog[@]}" >/dev/null </dev/null; done; }
pg_perf()   { "$pg" run --backend perf --no-store --repeat "$n" --warmup 0 -- "${prog[@]}" >/dev/null 2>&1; }
bare_vg()   {
  for _ in $(seq "$n"); do taskset -c 1 "${vg[@]}" "${prog[@]}" >/dev/null </dev/null; done
  for _ in $(seq "$n"); do taskset -c 1 "${prog[@]}" >/dev/null </dev/null; done
}
pg_vg()     { "$pg" run --backend valgrind --no-store --repeat "$n" --warmup 0 -- "${prog[@]}" >/dev/null 2>&1; }
case " $backends " in *" perf "*) measure perf ;; esac
case " $backends " in *" vg "*) n=$(( n / 2 > 0 ? n / 2 : 1 )) measure vg ;; esac
