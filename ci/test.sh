#!/usr/bin/env bash
# The whole test suite: builds perfgate twice (plain, and with AddressSanitizer +
# UndefinedBehaviorSanitizer) and runs ctest on each. Warnings are errors when CI=true.
# Usage: ci/test.sh [plain|sanitize]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
which=${1:-both}

run_suite() {   # $1 build dir, rest: cmake options
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  ctest --test-dir "$dir" --output-on-failure -j"$jobs"
}

if [ "$which" = plain ] || [ "$which" = both ]; then
  echo "== tests: plain build (build/)"
  run_suite build
fi
if [ "$which" = sanitize ] || [ "$which" = both ]; then
  echo "== tests: AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite build-asan -DPERFGATE_SANITIZE=ON
fi
