# tests/e2e/lib/regions.sh — sourced (after common.sh) by the tests of region
# markers: markers_calls.sh (include/perfgate.h) and rust_cargo_markers.sh
# (rust/perfgate-markers). Their manifests name the same benchmarks of a
# program that touches fresh pages outside and inside its region: in1, in2
# and in4 with the inside work at 1x, 2x and 4x, out5 with in2's inside work
# and 5 times its outside work.

# region_run BACKEND MANIFEST: runs every benchmark of MANIFEST once with
# BACKEND and keeps their counts for v (one python3 run reads them all).
region_run() {
  expect_exit 0 "$1: marked benchmarks run" "$PG" run --backend "$1" --no-store --repeat 1 --warmup 0 --format json "$2"
  json "$T/out" "'\\n'.join('%s %s %d' % (b['name'], m, v['samples'][0]) for b in d['benchmarks'] for m, v in b['metrics'].items())" > "$T/$1.counts"
}

# v BACKEND BENCH METRIC: the stored count of one benchmark's metric.
v() { awk -v b="$2" -v m="$3" '$1 == b && $2 == m { print $3 }' "$T/$1.counts"; }

# check_region BACKEND METRIC: the region's count grows linearly with the
# work inside (count(4x) - count(2x) == 2 * (count(2x) - count(1x))), counts
# that work, and does not change with the work outside.
check_region() {
  local b=$1 m=$2 c1 c2 c4 c5
  c1=$(v "$b" in1 "$m"); c2=$(v "$b" in2 "$m"); c4=$(v "$b" in4 "$m"); c5=$(v "$b" out5 "$m")
  echo "$b: $m in1=$c1 in2=$c2 in4=$c4 out5=$c5"
  check "$b: $m grows with the work inside ($c1 $c2 $c4)" [ $((c4 - c2)) -eq $((2 * (c2 - c1))) ]
  check "$b: $m counts the inside work ($c1 $c2)" [ $((c2 - c1)) -gt 0 ]
  check "$b: $m ignores the work outside ($c2 $c5)" [ "$c5" -eq "$c2" ]
}
