#!/usr/bin/env bash
# Exact counts that do not repeat (docs/metrics.md, "Counts that do not
# repeat"): a benchmark that times itself with clock_gettime, prints the
# elapsed time with %f and does a little more work when the clock's
# microseconds say so, as real benchmark programs' counts wobble by what
# they print and read. perfgate notices that its native runs print different
# things, measures its exact count up to 5 times instead of once, and decides
# against the spread: a docs-only commit is unchanged (exit 0), +2% work
# regressed (exit 1), bisect names that commit. Beside it, a program whose
# output repeats keeps its one valgrind run. Two stored runs of one commit
# whose counts differ are pooled, not refused.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc
R=$T/repo
make_bench_repo "$R" '{ "build": "cc -O1 -fno-inline '"$(static_flag)"' -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "timed",  "command": ["./prog", "timed"] },
                  { "name": "steady", "command": ["./prog", "steady"] } ] }'
write_prog() {  # WORK
  cat > "$R/bench/prog.c" <<C
#include <stdio.h>
#include <string.h>
#include <time.h>
static double ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
__attribute__((noinline)) static unsigned long mix(unsigned long x, long n)
{
    for (long i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
    return x;
}
int main(int argc, char **argv)
{
    unsigned long x = 88172645463325252UL;
    if (argc > 1 && !strcmp(argv[1], "steady")) { printf("%lu\n", mix(x, 20000) & 0xff); return 0; }
    double t0 = ms();
    x = mix(x, $1);
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    x = mix(x, t.tv_nsec % 2048);    /* the clock decides a little of the work (0.3% at most) */
    printf("%lu in %.6f ms\n", x & 0xff, ms() - t0);
    return 0;
}
C
}
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
c=()
write_prog 600000; c[0]=$(commit "benchmark")
for i in 1 2 3 4 5; do
  case $i in
    3) write_prog 612000; c[$i]=$(commit "timed: 2% more work") ;;
    *) echo "change $i" >> "$R/README"; c[$i]=$(commit "docs: change $i") ;;
  esac
done
cd "$R"
git checkout -q "${c[0]}"
RUN=("$PG" run --backend valgrind --native-repeat 2 --metrics instructions,task-clock)

expect_exit 0 "run the first commit" "${RUN[@]}" bench/
doc=(.perfgate/results/"${c[0]}"/*.json)
check "the timed benchmark ran 2 to 5 times under valgrind, the steady one once" \
  holds "${doc[0]}" '2 <= d["runs"][0]["benchmarks"][0]["runs"] <= 5 and d["runs"][0]["benchmarks"][1]["runs"] == 1'
check "as many counts as runs" \
  holds "${doc[0]}" 'all(len(b["metrics"]["instructions"]["samples"]) == b["runs"] for b in d["runs"][0]["benchmarks"])' 
check "and says why" holds "${doc[0]}" 'd["runs"][0]["benchmarks"][0]["exact_varies"].startswith("its output differs from run to run")'
check "they do not all repeat" \
  [ "$(json "${doc[0]}" 'len(set(d["runs"][0]["benchmarks"][0]["metrics"]["instructions"]["samples"]))')" != 1 ]
expect_exit 0 "run it again: two stored runs" "${RUN[@]}" bench/
expect_exit 0 "show pools them, and says so once" "$PG" show HEAD
contains "$T/err" "timed does not repeat its exact instructions (spread "
check "one line for the benchmark" [ "$(grep -c 'does not repeat' "$T/err")" = 1 ]
git checkout -q main

expect_exit 0 "a docs-only commit is unchanged" "$PG" compare "${c[0]}" "${c[1]}" --run-missing --backend valgrind \
  --native-repeat 2 --metrics instructions,task-clock --format json -o "$T/cmp.json"
check "verdict unchanged" [ "$(json "$T/cmp.json" 'd["verdict"]')" = unchanged ]
check "the timed benchmark's instructions have a spread" \
  holds "$T/cmp.json" '[m for m in d["benchmarks"][0]["metrics"] if m["name"]=="instructions"][0]["spread"] > 0'
check "the steady one's delta is exactly 0" \
  [ "$(json "$T/cmp.json" '[m["delta"] for m in d["benchmarks"][1]["metrics"] if m["name"]=="instructions"]')" = "[0]" ]

expect_exit 1 "2% more work regressed" "$PG" compare "${c[2]}" "${c[3]}" --run-missing --backend valgrind \
  --native-repeat 2 --metrics instructions,task-clock
contains "$T/out" "verdict: regressed -- 1 regressed, 1 unchanged of 2 benchmarks compared"

expect_exit 0 "bisect names the slow commit" "$PG" bisect "${c[0]}" "${c[5]}" --benchmark timed --backend valgrind \
  --metrics instructions,task-clock
contains "$T/out" "first regressing commit: ${c[3]} timed: 2% more work"
contains "$T/out" "timed does not repeat its instructions: they vary by "

finish
