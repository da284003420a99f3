#!/usr/bin/env bash
# Every mutation of tests/e2e/lib/mutate.py (each key deleted, each value
# replaced by each other type, huge and non-finite numbers, wrong schemas)
# through show and compare, on the plain and the sanitizer build.
# Usage: ci/mutate-results.sh [BUILD_DIR...]   (default: build build-asan)
set -uo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
work=$(mktemp -d "${TMPDIR:-/tmp}/pg-mutate.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 tests/e2e/lib/makedoc.py "$work/base.json" m1 valgrind 1111111111111111111111111111111111111111 -- \
  'sort:@thresholds={"instructions": "4%"}' sort:instructions=1000,1001 sort:wall-time=5.5,6.5:ns \
  'bad:!exit status 3' hash:instructions=7 hash:D1mr=3
status=0
for b in "${@:-build build-asan}"; do
  for dir in $b; do
    echo "== $dir"
    python3 tests/e2e/lib/mutate.py "$dir/perfgate" "$work/base.json" "$work/$(basename "$dir")" || status=1
  done
done
exit $status
