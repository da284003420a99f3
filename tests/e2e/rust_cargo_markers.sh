#!/usr/bin/env bash
# The Rust markers crate (rust/perfgate-markers: start()/stop(), no
# dependencies, no build script) counts a region with both backends, as
# include/perfgate.h does for C (tests/e2e/markers_calls.sh). Its example
# `regions OUTSIDE INSIDE` touches OUTSIDE fresh pages before and after its
# region and INSIDE pages in it; it is named in the manifest as a cargo
# example target, so perfgate builds it offline. Asserted, per backend:
#   - the region's count grows linearly with the work inside: with the inside
#     work at 1x, 2x and 4x, count(4x) - count(2x) == 2 * (count(2x) - count(1x))
#     (valgrind: instructions; perf without a PMU: page-faults, one per page);
#   - the work outside does not change it;
#   - "markers": false counts the whole program (the outside pages too).
# Also: the crate's own tests pass offline, the program carries the note, and
# natively (outside perfgate, a stray PERFGATE_CTL_FD) the markers do nothing.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/rust.sh"
. "$(dirname "$0")/lib/regions.sh"
require valgrind
unset RUSTFLAGS CARGO_BUILD_TARGET CARGO_TARGET_DIR

C=$T/perfgate-markers
mkdir "$C"
cp -r "$PG_SRC/rust/perfgate-markers/Cargo.toml" "$PG_SRC/rust/perfgate-markers/Cargo.lock" \
  "$PG_SRC/rust/perfgate-markers/src" "$PG_SRC/rust/perfgate-markers/examples" "$C/"
cd "$C"
expect_exit 0 "the crate's tests pass offline" cargo test --offline --locked --quiet
cat > perfgate.json <<'JSON'
{ "benchmarks": [
  { "name": "in1", "cargo": { "example": "regions" }, "args": ["10", "100"] },
  { "name": "in2", "cargo": { "example": "regions" }, "args": ["10", "200"] },
  { "name": "in4", "cargo": { "example": "regions" }, "args": ["10", "400"] },
  { "name": "out5", "cargo": { "example": "regions" }, "args": ["50", "200"] },
  { "name": "whole", "cargo": { "example": "regions" }, "args": ["50", "200"], "markers": false } ] }
JSON
check_backend() {
  local b=$1 m=$2
  region_run "$b" perfgate.json
  check_region "$b" "$m"
  local out5 whole
  out5=$(v "$b" out5 "$m"); whole=$(v "$b" whole "$m")
  check "$b: markers false counts the whole program ($whole > $out5)" [ "$whole" -gt "$out5" ]
}

check_backend valgrind instructions
contains "$T/err" "building: cargo build --offline --message-format=json-render-diagnostics --package perfgate-markers --profile release --example regions"
check "one cargo build for the five entries of one target" [ "$(grep -c 'building: cargo build' "$T/err")" = 1 ]
check_backend perf page-faults
# Without a PMU the perf backend counts software events: one page fault per
# fresh page, 200 in the region of 200 pages, whatever is outside it.
check "perf: 200 page faults in a region of 200 pages" [ "$(v perf in2 page-faults)" -eq 200 ]
check "perf: 400 page faults in a region of 400 pages" [ "$(v perf in4 page-faults)" -eq 400 ]

exe=target/release/examples/regions
check "the program carries the perfgate note" sh -c "readelf -n $exe | grep -q 'perfgate .*0x50470001'"
expect_exit 0 "natively the markers do nothing" "$exe" 1 2
contains "$T/out" "regions: 1 outside, 2 inside"
expect_exit 0 "a stray PERFGATE_CTL_FD is ignored" env PERFGATE_CTL_FD=7,9 "$exe" 1 1
expect_exit 0 "a malformed PERFGATE_CTL_FD is ignored" env PERFGATE_CTL_FD=x "$exe" 1 1

finish
