#!/usr/bin/env bash
# Region markers (include/perfgate.h) and call counts (--count-calls) on both
# backends, with exact counts (docs/markers.md). tests/progs/regions.c touches
# OUTSIDE fresh pages before and after its region and INSIDE pages in it, and
# calls malloc and free MALLOCS times in it. Asserted, per backend:
#   - the region's count grows linearly with the work inside: with the inside
#     work at 1x, 2x and 4x, count(4x) - count(2x) == 2 * (count(2x) - count(1x))
#     (valgrind: instructions; perf without a PMU: page-faults, one per page);
#   - the work outside does not change it: 5x the outside work, same count;
#   - calls:malloc and calls:free are exactly MALLOCS inside a region;
#   - without markers (the whole program, libc's start-up included), twice the
#     calls adds exactly MALLOCS.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/regions.sh"
cd "$T"
R=$PROGS/regions

# Outside perfgate the markers do nothing and cost nothing noticeable.
expect_exit 0 "markers run natively" "$R" 10 100 8
contains "$T/out" "regions: 10 outside, 100 inside, 8 mallocs"
expect_exit 0 "a stray PERFGATE_CTL_FD is ignored" env PERFGATE_CTL_FD=7,9 "$R" 1 1 1
expect_exit 0 "a malformed PERFGATE_CTL_FD is ignored" env PERFGATE_CTL_FD=x "$R" 1 1 1

cat > perfgate.json <<JSON
{"defaults": {"count_calls": ["malloc", "free"]},
 "benchmarks": [
  {"name": "in1", "command": ["$R", "10", "50", "400"]},
  {"name": "in2", "command": ["$R", "10", "100", "800"]},
  {"name": "in4", "command": ["$R", "10", "200", "1600"]},
  {"name": "out5", "command": ["$R", "50", "100", "800"]},
  {"name": "whole1", "command": ["$R", "0", "0", "1000"], "markers": false},
  {"name": "whole2", "command": ["$R", "0", "0", "2000"], "markers": false}
 ]}
JSON
check_backend() {
  local b=$1 m=$2
  region_run "$b" perfgate.json
  check_region "$b" "$m"
  check "$b: calls:malloc in the region is exact" [ "$(v "$b" in2 calls:malloc)" -eq 800 ]
  check "$b: calls:free in the region is exact" [ "$(v "$b" in4 calls:free)" -eq 1600 ]
  local w1 w2
  w1=$(v "$b" whole1 calls:malloc); w2=$(v "$b" whole2 calls:malloc)
  echo "$b: whole program calls:malloc whole1=$w1 whole2=$w2"
  check "$b: without markers, 1000 more calls are 1000 more ($w1 $w2)" [ $((w2 - w1)) -eq 1000 ]
  check "$b: without markers, the whole program is counted ($w1)" [ "$w1" -ge 1000 ]
}

check_backend perf page-faults
# On a machine without a PMU the perf backend counts software events, and page
# faults are exact for this work: one per fresh page, 100 per 100 pages.
check "perf: one page fault per page touched in the region" [ $(($(v perf in4 page-faults) - $(v perf in2 page-faults))) -eq 100 ]
if command -v valgrind >/dev/null; then
  check_backend valgrind instructions
  check "valgrind: only the region is counted" [ "$(v valgrind in1 instructions)" -lt 100000 ]
  # A program built without valgrind's header cannot be measured by regions there: said, not miscounted.
  expect_exit 1 "valgrind: markers without client requests" "$PG" run --backend valgrind --no-store -- "$PROGS/regions_novg" 1 1
  contains "$T/out" "built without valgrind's <valgrind/callgrind.h>"
fi

# Call counts gate like instructions: exact, so the threshold alone decides.
for n in 1000 1040; do
  mkdir -p "gate$n"
  printf '{"benchmarks": [{"name": "allocs", "command": ["%s", "0", "0", "%s"]}]}' "$R" "$n" > "gate$n/perfgate.json"
  "$PG" run --backend perf --no-store --repeat 1 --warmup 0 --count-calls malloc --format json "gate$n" > "gate$n.json" 2>/dev/null
done
expect_exit 1 "a call count gates" "$PG" compare --gate calls:malloc gate1000.json gate1040.json
contains "$T/out" "calls:malloc"
contains "$T/out" "+40"
contains "$T/out" "regressed"

expect_exit 0 "doctor" "$PG" doctor
contains "$T/out" "uprobes (--count-calls)            ok"

# Bad requests are said clearly.
expect_exit 2 "not a function name" "$PG" run --no-store --count-calls 'mal loc;' -- "$R" 0 0 0
contains "$T/err" "--count-calls: 'loc;' is not a function name"
expect_exit 1 "a function nowhere" "$PG" run --backend perf --no-store --count-calls no_such_function -- "$R" 0 0 0
contains "$T/out" "no function 'no_such_function' in $R or the"
printf '{"benchmarks": [{"name": "x", "command": ["true"], "count_calls": 3}]}' > bad.json
expect_exit 2 "manifest count_calls of the wrong type" "$PG" run --no-store bad.json
contains "$T/err" "benchmarks[0].count_calls: expected an array of function names"
printf '{"benchmarks": [{"name": "x", "command": ["true"], "markers": "yes"}]}' > bad.json
expect_exit 2 "manifest markers of the wrong type" "$PG" run --no-store bad.json
contains "$T/err" "benchmarks[0].markers: expected true or false"
finish
