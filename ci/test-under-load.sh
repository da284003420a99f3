#!/usr/bin/env bash
# The suite must not depend on an idle machine: builds both configurations once
# (ci/test.sh's), then runs ctest on each ROUNDS times in a row while a
# CPU-bound process spins on every core. Stops at the first failing round.
# Usage: ci/test-under-load.sh [ROUNDS]   (default 20)
# PERFGATE_LOAD_JOBS sets ctest's parallelism (default: one test per core). More
# tests than cores gives each test less of a core still, and the rounds more of
# the machine against the hogs, so a long loop ends sooner.
# Prints one line per round and a closing "N passed, N failed" line of rounds.
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
jobs=$(nproc 2>/dev/null || echo 2)
ctest_jobs=${PERFGATE_LOAD_JOBS:-$jobs}

bash ci/test.sh build-only || exit 2

hogs=()
for _ in $(seq "$jobs"); do
  ( trap 'exit 0' TERM; while :; do :; done ) &
  hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null; wait 2>/dev/null' EXIT
echo "== $jobs CPU-bound processes running: ${hogs[*]}; ctest -j$ctest_jobs"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/ci/lsan.supp   # as ci/test.sh: libgit2 1.5's own leak
passed=0 failed=0
for r in $(seq "$rounds"); do
  for dir in build build-asan; do
    start=$(date +%s)
    if ctest --test-dir "$dir" -j"$ctest_jobs" --output-on-failure >"$dir/load-round.log" 2>&1; then
      passed=$((passed + 1)); echo "round $r $dir: passed ($(( $(date +%s) - start )) s)"
    else
      failed=$((failed + 1)); echo "round $r $dir: FAILED ($(( $(date +%s) - start )) s); log:"
      grep -E "FAIL|Failed|\*\*\*" "$dir/load-round.log" | head -40
      echo "$passed passed, $failed failed"
      exit 1
    fi
  done
done
echo "$passed passed, $failed failed"
