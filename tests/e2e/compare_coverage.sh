#!/usr/bin/env bash
# compare's coverage of the change: a commit changes three functions of a
# benchmark's program (hot, which the benchmark runs; cold, which no
# benchmark runs; helper, inlined into main) and a source file no benchmark
# builds. compare --run-missing --sample names cold as not covered with its
# file and line, hot as run by the benchmark with its exact delta there, and
# helper where it was inlined, in every format; --require-coverage exits 1.
# What cannot be mapped is said, never guessed: a baseline that is not an
# ancestor, a program without line tables, a function table that was
# tampered with.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc
R=$T/repo
make_bench_repo "$R" '{ "build": "cc -g -O1 '"$(static_flag)"' -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "hot", "command": ["./prog", "3000"] } ] }'
cat > "$R/bench/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static volatile unsigned long sink;

__attribute__((noinline)) static void hot(long n)
{
    for (long i = 0; i < n; i++)
        sink += (unsigned long)i * i;
}

static inline void helper(long n)
{
    for (long i = 0; i < n; i++)
        sink ^= (unsigned long)i;
}

__attribute__((noinline)) static void cold(long n)
{
    for (long i = 0; i < n; i++)
        sink += 3;
}

int main(int argc, char **argv)
{
    long n = atol(argv[1]);
    if (argc > 2 && !strcmp(argv[2], "cold"))
        cold(n);
    else
        hot(n);
    helper(n);
    printf("%lu\n", sink & 1);
    return 0;
}
C
git -C "$R" add -A && git -C "$R" commit -q -m bench
# hot: more work per iteration (line 9); cold (line 21); helper (line 15).
cp "$R/bench/prog.c" "$T/before.c"
sed -i 's/sink += (unsigned long)i \* i;/sink += (unsigned long)i * i + (i \& 1);/; s/sink += 3;/sink += 4;/; s/sink ^= (unsigned long)i;/sink ^= (unsigned long)i + 1;/' "$R/bench/prog.c"
mkdir -p "$R/src" && echo 'int unused(void) { return 1; }' > "$R/src/extra.c"
git -C "$R" add -A && git -C "$R" commit -q -m "change hot, cold and helper; add src/extra.c"
cd "$R"

expect_exit 1 "compare --run-missing --sample (hot regressed)" "$PG" compare HEAD~1 HEAD --run-missing --sample --backend valgrind --no-native
cp "$T/out" text.out
contains text.out "coverage of the change: 1 of 3 changed functions not covered by any benchmark"
contains text.out "  not covered: cold (bench/prog.c:21), 1 line changed"
contains text.out "  covered: hot (bench/prog.c:9), 1 line changed; run by hot (+"
contains text.out "  covered: helper (bench/prog.c:15), 1 line changed; inlined into main; run by hot ("
contains text.out "  changed, in no benchmark's function table: src/extra.c"
lacks text.out "covered: main"

expect_exit 1 "json" "$PG" compare HEAD~1 HEAD --format json -o cmp.json
check "coverage.uncovered: cold, its file and line" \
  [ "$(json cmp.json "[(f['function'], f['file'], f['line'], f['lines']) for f in d['coverage']['uncovered']]")" = "[('cold', 'bench/prog.c', 21, 1)]" ]
check "coverage.changed: every changed function, by line" \
  [ "$(json cmp.json "[(f['function'], [b['name'] for b in f['benchmarks']]) for f in d['coverage']['changed']]")" = "[('hot', ['hot']), ('helper', ['hot']), ('cold', [])]" ]
# Each function's delta is the exact self-cost change of its frames in the
# benchmark's callgrind stacks: hot's own, helper's that of main, where it was
# inlined. Checked against callgrind_annotate on the two programs built here.
cov() { json cmp.json "[b['delta'] for f in d['coverage']['changed'] if f['function'] == '$1' for b in f['benchmarks']][0]"; }
self_ir() {  # PROGRAM FUNCTION: its self instructions, as callgrind_annotate says
  valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" "$1" 3000 >/dev/null 2>&1
  callgrind_annotate "$T/cg.out" | awk -v f=":$2 " '$0 ~ f {gsub(",", "", $1); print $1; exit}'
}
cc -g -O1 $(static_flag) -o "$T/p1" "$T/before.c" && cc -g -O1 $(static_flag) -o "$T/p2" bench/prog.c
for f in hot main; do
  d=$(( $(self_ir "$T/p2" $f) - $(self_ir "$T/p1" $f) ))
  [ $f = main ] && g=helper || g=hot
  check "$g's delta ($(cov $g)) is callgrind_annotate's for $f ($d)" [ "$(printf %.0f "$(cov $g)")" = "$d" ]
done
check "hot did more work: 3000 iterations, at least 3000 instructions more" [ "$(printf %.0f "$(cov hot)")" -ge 3000 ]
check "verdict not covered, not required" [ "$(json cmp.json "(d['coverage']['verdict'], d['coverage']['required'])")" = "('not covered', False)" ]

expect_exit 1 "--require-coverage" "$PG" compare HEAD~1 HEAD --require-coverage -t instructions=50%
contains "$T/out" "verdict: unchanged -- "
contains "$T/out" "1 of 3 changed functions not covered by any benchmark (--require-coverage: failing)"
expect_exit 0 "without it, the same comparison passes" "$PG" compare HEAD~1 HEAD -t instructions=50%

expect_exit 1 "markdown" "$PG" compare HEAD~1 HEAD --format markdown
contains "$T/out" "- not covered: cold (bench/prog.c:21), 1 line changed"
contains "$T/out" "<details><summary>Changed functions a benchmark runs</summary>"
expect_exit 1 "junit, required" "$PG" compare HEAD~1 HEAD --format junit --require-coverage -t instructions=50%
contains "$T/out" '<testcase name="cold (bench/prog.c:21)" classname="perfgate.coverage">'
contains "$T/out" '<failure type="not covered" message="not covered: cold (bench/prog.c:21), 1 line changed"/>'
python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$T/out" && ok || bad "junit is not XML"

# A baseline that is not an ancestor: no mapping, said; required: unknown, exit 1.
expect_exit 1 "HEAD against HEAD~1, required" "$PG" compare HEAD HEAD~1 --require-coverage -t instructions=50%
contains "$T/out" "coverage of the change: coverage unknown (--require-coverage: failing)"
contains "$T/out" "is not an ancestor of the candidate"

# A function table tampered with in the store: not used, said; the rest maps.
tab=$(ls .perfgate/stacks/$(git rev-parse HEAD)/*/*/hot.funclines.json)
cp "$tab" tab.orig
python3 - "$tab" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['functions'][0]['first'] = -5
json.dump(d, open(sys.argv[1], 'w'))
PY
expect_exit 1 "a tampered table" "$PG" compare HEAD~1 HEAD --require-coverage -t instructions=50%
contains "$T/out" "hot: its function table was not used: "
contains "$T/out" "lines that are not first <= last, whole and positive"
contains "$T/out" "coverage unknown"
printf '{"funclines": 1, "functions": [{"name": "x", "file": "a", "first": 1, "last": 2, "in": [], "in": []}]}' > "$tab"
expect_exit 1 "a table with a key twice" "$PG" compare HEAD~1 HEAD --require-coverage -t instructions=50%
contains "$T/out" "hot: its function table was not used: "
cp tab.orig "$tab"
expect_exit 1 "restored" "$PG" compare HEAD~1 HEAD --require-coverage -t instructions=50%
contains "$T/out" "not covered: cold"

# A program without line tables: its benchmark's code is not known, so a
# function the others do not run is not called "not covered".
make_bench_repo "$T/nog" '{ "build": "cc -g -O1 '"$(static_flag)"' -o bench/prog bench/prog.c && cc -O1 '"$(static_flag)"' -o bench/nodebug bench/prog.c",
  "benchmarks": [ { "name": "hot", "command": ["./prog", "3000"] },
                  { "name": "nog", "command": ["./nodebug", "100", "cold"] } ] }' 'prog
nodebug'
cp "$R/bench/prog.c" "$T/nog/bench/" && git -C "$T/nog" add -A && git -C "$T/nog" commit -q -m bench
sed -i 's/sink += 4;/sink += 5;/' "$T/nog/bench/prog.c" && git -C "$T/nog" commit -q -am cold
cd "$T/nog"
expect_exit 1 "a benchmark without line tables, required" "$PG" compare HEAD~1 HEAD --run-missing --sample --backend valgrind --no-native --require-coverage
contains "$T/out" "coverage of the change: 1 of 1 changed function run by no benchmark with a function table, and 1 benchmark without one: coverage unknown (--require-coverage: failing)"
contains "$T/out" "nog: its program has no DWARF (built without -g, or stripped)"
cd "$R"

# A change to no function (documentation): said, and it passes the gate.
echo "more" >> README && git commit -qam docs
expect_exit 0 "a documentation change, required" "$PG" compare HEAD~1 HEAD --run-missing --sample --backend valgrind --no-native --require-coverage
contains "$T/out" "coverage of the change: no function of the benchmarks' programs changed"
# Two result files with stacks: compared as files, no change to map, no section;
# asked for, unknown.
"$PG" run --backend valgrind --no-native --no-store --sample --format json bench > run.json 2>/dev/null
json run.json "d['benchmarks'][0]['stacks']" > /dev/null && ok || bad "a run document with stacks"
expect_exit 0 "two result files with stacks" "$PG" compare run.json run.json
lacks "$T/out" "coverage"
expect_exit 1 "two result files, required" "$PG" compare run.json run.json --require-coverage
contains "$T/out" "run.json and run.json are not both revisions of this repository (a result file is compared as a file): there is no change to map"
git reset -q --hard HEAD~1

# The table agrees with the line table readelf sees: cold's lines in the program.
check "the table's span of cold holds its changed line" \
  [ "$(json "$tab" "[(f['first'], f['last']) for f in d['functions'] if f['name'] == 'cold']")" = "[(18, 22)]" ]
finish
