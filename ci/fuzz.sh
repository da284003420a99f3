#!/usr/bin/env bash
# Fuzzes every parser (tests/fuzz/fuzz_<parser>.c) with libFuzzer for a bounded
# time each, one after the other (-jobs=1: the machine is shared). Fails when a
# target crashes, leaks, trips UBSan, times out on one input or breaks one of
# its invariants; the input that did it is kept and named.
# Usage: ci/fuzz.sh [SECONDS_PER_TARGET [PARSER...]]   (default: 20 s, every parser)
# A finding, once fixed, goes to tests/fuzz/regressions/<parser>/ (ctest replays it).
# Not part of ci/test.sh: it takes the time it is given (5 x 20 s, plus the build).
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
shift $(( $# > 0 ? 1 : 0 ))
parsers=("$@")
[ ${#parsers[@]} -gt 0 ] || parsers=(manifest result folded callgrind records gbench notes stacksnote history gblist thresholds jobs)
case "$secs" in ''|*[!0-9]*) echo "usage: ci/fuzz.sh [SECONDS_PER_TARGET [PARSER...]]" >&2; exit 2 ;; esac
command -v clang-14 >/dev/null || { echo "ci/fuzz.sh: clang-14 not found (ci/install-deps.sh installs it)" >&2; exit 2; }

dir=build-fuzz
CC=clang-14 cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFGATE_FUZZ=ON >/dev/null || exit 2
# fuzz_records maps the test programs its seeds were captured from (tests/fuzz/fuzz_records.c).
cmake --build "$dir" -j"$(nproc 2>/dev/null || echo 2)" --target "${parsers[@]/#/fuzz_}" \
    prog_sample_tree prog_sample_lib pgsample >/dev/null || {
  echo "ci/fuzz.sh: build failed" >&2; exit 2; }
export PG_TEST_PROGS=$PWD/$dir/tests/progs

max_len() {   # the largest input worth trying: a little over the largest real one
  case $1 in
    records) echo 70000 ;;     # a sample carries a copy of the stack
    result|history|notes|stacksnote|jobs) echo 20000 ;;
    *) echo 8192 ;;
  esac
}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
summary=()
for p in "${parsers[@]}"; do
  seeds=tests/fuzz/corpus/$p
  [ -d "$seeds" ] || { echo "ci/fuzz.sh: no seed corpus $seeds" >&2; exit 2; }
  work=$dir/fuzz/$p/corpus art=$dir/fuzz/$p/artifacts/ log=$dir/fuzz/$p/log
  mkdir -p "$work" "$art"
  dirs=("$work" "$seeds")
  [ -d tests/fuzz/regressions/$p ] && dirs+=(tests/fuzz/regressions/$p)
  echo "== fuzz_$p: ${secs}s"
  "$dir/tests/fuzz/fuzz_$p" -max_total_time="$secs" -max_len="$(max_len "$p")" -timeout=20 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art" "${dirs[@]}" >"$log" 2>&1
  rc=$?
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  runs=$(sed -nE 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -nE 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  if [ "$rc" = 0 ]; then
    summary+=("fuzz_$p: ok, ${runs:-?} executions, ${rate:-?} exec/s, cov ${cov:-?}")
  else
    status=1
    found=$(ls -t "$art" 2>/dev/null | head -1)
    summary+=("fuzz_$p: FAILED (libFuzzer exit $rc) after ${runs:-?} executions; input: $art$found; log: $log")
    grep -E 'ERROR: |SUMMARY: |fuzz invariant failed|runtime error' "$log" | head -5 | sed 's/^/    /'
  fi
done
echo "== summary"
printf '  %s\n' "${summary[@]}"
exit $status
