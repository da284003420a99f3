#!/usr/bin/env bash
# The harness's own overhead, as ratios measured in one run (issue: perfgate run).
#   perf backend:     `perfgate run --repeat N` of one benchmark  vs  N bare runs
#   valgrind backend: `perfgate run --repeat N --backend valgrind` vs N bare
#                     `valgrind --tool=cachegrind` runs with the same options
# Both sides are timed alternately, ROUNDS times, and the medians compared, so
# drift of the machine hits both alike. Targets: at most 1.05 each.
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
vg=(valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --I1=32768,8,64 --D1=32768,8,64
    --LL=8388608,16,64 --trace-children=yes -q --cachegrind-out-file=/dev/null --log-file=/dev/null)

measure() {   # label, then the two commands as functions bare_$1 / pg_$1
  local b=() p=() r=()
  for _ in $(seq "$rounds"); do
    t0=$(now); "bare_$1"; t1=$(now); "pg_$1"; t2=$(now)
    b+=("$(awk "BEGIN{print $t1 - $t0}")"); p+=("$(awk "BEGIN{print $t2 - $t1}")")
    r+=("$(awk "BEGIN{print ($t2 - $t1) / ($t1 - $t0)}")")
  done
  local mb mp mr
  mb=$(printf '%s\n' "${b[@]}" | med); mp=$(printf '%s\n' "${p[@]}" | med); mr=$(printf '%s\n' "${r[@]}" | med)
  # The ratio of the medians, and the median of each round's ratio (its two
  # sides timed back to back: what drifts between rounds cancels).
  printf '%-9s %d runs: bare %.3f s, perfgate %.3f s, ratio %.3f, paired %.3f\n' "$1" "$n" "$mb" "$mp" \
    "$(awk "BEGIN{print $mp / $mb}")" "$mr"
}
bare_perf() { for _ in $(seq "$n"); do taskset -c 1 "${prog[@]}" >/dev/null </dev/null; done; }
pg_perf()   { "$pg" run --backend perf --no-store --repeat "$n" --warmup 0 -- "${prog[@]}" >/dev/null 2>&1; }
bare_vg()   { for _ in $(seq "$n"); do taskset -c 1 "${vg[@]}" "${prog[@]}" >/dev/null </dev/null; done; }
pg_vg()     { "$pg" run --backend valgrind --no-store --repeat "$n" --warmup 0 -- "${prog[@]}" >/dev/null 2>&1; }
case " $backends " in *" perf "*) measure perf ;; esac
case " $backends " in *" vg "*) n=$(( n / 2 > 0 ? n / 2 : 1 )) measure vg ;; esac
