#!/usr/bin/env bash
# The whole test suite: builds perfgate twice (plain, and with AddressSanitizer +
# UndefinedBehaviorSanitizer) and runs ctest on each. Warnings are errors when CI=true.
# Both suites always run, and both results are reported; the exit status is
# non-zero when either failed.
# Usage: ci/test.sh [plain|sanitize|both|build-only]   (default: both)
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
which=${1:-both}

build() {   # $1 build dir, rest: cmake options
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null && cmake --build "$dir" -j"$jobs"
}
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# A leak of libgit2 1.5 itself, not perfgate's (see the file).
export LSAN_OPTIONS=suppressions=$PWD/ci/lsan.supp

status=0
results=()
suite() {   # $1 label, $2 build dir, rest: cmake options
  local label=$1 dir=$2; shift 2
  echo "== tests: $label ($dir/)"
  if ! build "$dir" "$@"; then
    results+=("$label: BUILD FAILED"); status=1; total_fail=$((total_fail + 1)); return
  fi
  [ "$which" = build-only ] && return
  local log="$dir/ctest-summary.log" rc
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  # ctest's "N% tests passed, F tests failed out of T"
  local line f t
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
  f=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line"); t=$(sed -E 's/.* failed out of ([0-9]+).*/\1/' <<<"$line")
  if [ -n "$line" ]; then total_pass=$((total_pass + t - f)); total_fail=$((total_fail + f)); fi
  if [ "$rc" = 0 ]; then
    results+=("$label: passed ($line)")
  else
    results+=("$label: FAILED (${line:-ctest exit $rc})"); status=1
    [ -n "$line" ] || total_fail=$((total_fail + 1))
  fi
}
total_pass=0 total_fail=0

case "$which" in
  plain|sanitize|both|build-only) ;;
  *) echo "usage: ci/test.sh [plain|sanitize|both|build-only]" >&2; exit 2 ;;
esac
[ "$which" = sanitize ] || suite "plain build" build
[ "$which" = plain ] || suite "AddressSanitizer + UndefinedBehaviorSanitizer build" build-asan -DPERFGATE_SANITIZE=ON
echo "== summary"
printf '  %s\n' "${results[@]}"
[ "$which" = build-only ] || echo "tests: $total_pass passed, $total_fail failed"
exit $status
