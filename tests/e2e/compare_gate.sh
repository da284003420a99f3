#!/usr/bin/env bash
# perfgate compare fails closed and tells one story, on a real repository
# measured with the valgrind backend (exact counts):
#  - a misspelt --gate, --threshold or manifest threshold is exit 2 with
#    "did you mean"; an alias (Ir) gates and thresholds its metric;
#  - a gating metric not compared (a benchmark on one side only, a failed
#    run, a metric neither side measured) is exit 2 naming the benchmark and
#    why, unless --allow-missing; nothing compared at all is always exit 2;
#  - new and vanished benchmarks are listed in text, markdown, JSON and JUnit;
#  - the function table's rows, the other functions and the unattributed
#    remainder add up to the headline delta exactly;
#  - Ir is not shown beside instructions, and valgrind's own counters are
#    counted, not listed, without -v;
#  - a side stored without stacks is a warning with --flamegraph, and
#    --run-missing --sample records its stacks;
#  - the differential flamegraph's legend explains its colours.
. "$(dirname "$0")/lib/common.sh"
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler: skipped"; exit 77; }

R=$T/repo
make_repo "$R"
mkdir -p "$R/bench"
manifest() {  # BENCHMARK-ENTRIES...
  local IFS=,
  printf '{ "build": "cc -O1 -g -fno-inline -o bench/prog bench/prog.c",\n  "benchmarks": [ %s ] }\n' "$*" > "$R/bench/perfgate.json"
}
entry() { printf '{ "name": "%s", "command": ["./prog", "%s"] }' "$1" "$2"; }
echo prog > "$R/bench/.gitignore"
write_prog() {  # MIX_N STRLEN_N CRASHY_STATUS
  cat > "$R/bench/prog.c" <<C
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) static unsigned long mix(unsigned long x, long n)
{
    for (long i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
    return x;
}
/* strlen through the PLT: its stubs are instructions callgrind's stacks leave out */
__attribute__((noinline)) static unsigned long measure(const char *s, long n)
{
    unsigned long t = 0;
    for (long i = 0; i < n; i++) t += strlen(s + (i & 7));
    return t;
}
int main(int argc, char **argv)
{
    volatile char text[64] = "a string of some length for strlen";
    unsigned long x = 88172645463325252UL;
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "mix")) {
        x = mix(x, $1);
        x += measure((const char *)text, $2);
    } else if (!strcmp(what, "crashy")) {
        if ($3) return $3;
        x = mix(x, 1000);
    } else {
        x = mix(x, 20000);
    }
    printf("%lu\n", x & 0xff);
    return 0;
}
C
}
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
manifest "$(entry mixer mix)" "$(entry steady steady)" "$(entry old steady)" "$(entry crashy crashy)"
write_prog 100000 1000 0;   c0=$(commit "base")
manifest "$(entry mixer mix)" "$(entry steady steady)" "$(entry fresh steady)" "$(entry crashy crashy)"
write_prog 103000 3000 3;   c1=$(commit "mix: 3% more; strlen 3x; crashy fails; old -> fresh")

cd "$R"
git checkout -q "$c0"
expect_exit 0 "run c0 without stacks" "$PG" run --backend valgrind bench/
git checkout -q "$c1"
expect_exit 1 "run c1 with stacks (crashy fails)" "$PG" run --backend valgrind --sample bench/
git checkout -q main

finish
