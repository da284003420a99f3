#!/usr/bin/env bash
# run --jobs N: the valgrind backend's exact counts of N benchmarks at once,
# the native runs one after the other as without: the same document (order,
# counts, failures, logs) as --jobs 1, nothing left behind, and a failing or
# interrupted worker said as a failure of perfgate's.
. "$(dirname "$0")/lib/common.sh"
require valgrind
cd "$T"
cat > suite.json <<JSON
{ "benchmarks": [
  { "name": "w-300k", "command": ["$PROGS/work", "300000"] },
  { "name": "w-100k", "command": ["$PROGS/work", "100000"] },
  { "name": "fails",  "command": ["$PROGS/fail3"] },
  { "name": "w-200k", "command": ["$PROGS/work", "200000"] },
  { "name": "w-50k",  "command": ["$PROGS/work", "50000"] } ] }
JSON
# What a document says that does not depend on time: names in order, the
# exact counts, the runs, the failures and where the logs went.
fixed() {
  json "$1" "[(b['name'], b['status'], b.get('runs'), {m: v['samples'] for m, v in b['metrics'].items()
             if m in ('instructions', 'cache-misses', 'branch-misses')},
             (b.get('failure') or {}).get('reason'), (b.get('failure') or {}).get('phase'),
             sorted(k for k in b if k.endswith('_log'))) for b in d['benchmarks']]"
}
for j in 1 3; do
  expect_exit 1 "--jobs $j (one benchmark fails)" "$PG" run --backend valgrind --no-store --jobs $j --format json suite.json
  cp "$T/out" j$j.json
  contains "$T/err" "perfgate: 1 of 5 benchmarks failed"
done
same "--jobs 3 gives --jobs 1's document" "$(fixed j1.json)" "$(fixed j3.json)"
check "native runs still made, after the exact ones: task-clock of w-300k" \
  [ "$(json j3.json "len(d['benchmarks'][0]['metrics']['task-clock']['samples'])")" = 5 ]
check "the failure as without --jobs" [ "$(json j3.json "d['benchmarks'][2]['failure']['phase']")" = "measured run" ]
check "nothing of the workers left in TMPDIR" sh -c '! ls "$TMPDIR" "$TMPDIR"/perfgate-out.* | grep -q "perfgate-\(vg\|jobs\)-"'

# Text output: the same tables in the same order.
expect_exit 1 "--jobs 2, text" "$PG" run --backend valgrind --no-store --no-native -j 2 suite.json
check "tables in the suite's order" [ "$(grep -oE '^(w-[0-9]+k|fails)' "$T/out" | tr '\n' ' ')" = "w-300k w-100k fails w-200k w-50k " ]

# Stored like any run; the perf backend (counts that depend on load) ignores it.
make_repo "$T/repo"
cp suite.json "$T/repo/"
(cd "$T/repo" && "$PG" run --backend valgrind --no-native -j 2 --filter 'w-' suite.json >/dev/null 2>&1)
check "a stored --jobs run: 4 benchmarks" [ "$(json "$T"/repo/.perfgate/results/*/*.json "len(d['runs'][0]['benchmarks'])")" = 4 ]
expect_exit 0 "perf backend with --jobs 2" "$PG" run --backend perf --no-store -j 2 --repeat 2 --filter 'w-' --format json suite.json
check "perf: every benchmark measured" [ "$(json "$T/out" "[b['runs'] for b in d['benchmarks']]")" = "[2, 2, 2, 2]" ]

# compare --run-missing -j: both revisions' exact counts at once, then the
# native runs interleaved as without; the comparison is --jobs 1's.
R=$T/cmp
make_repo "$R"
mkdir -p "$R/bench"
cat > "$R/bench/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define EXTRA 0
static volatile unsigned long sink;
int main(int argc, char **argv)
{
    long n = atol(argv[1]) + (argc > 2 && !strcmp(argv[2], "b") ? EXTRA : 0);
    for (long i = 0; i < n; i++)
        sink += (unsigned long)i * i;
    printf("%lu\n", sink & 1);
    return 0;
}
C
printf '{ "build": "cc -O1 %s -o bench/prog bench/prog.c", "benchmarks": [ {"name": "a", "command": ["./prog", "100000"]}, {"name": "b", "command": ["./prog", "200000", "b"]}, {"name": "c", "command": ["./prog", "30000"]} ] }' \
  "$(static_flag)" > "$R/bench/perfgate.json"
echo prog > "$R/bench/.gitignore"
git -C "$R" add -A && git -C "$R" commit -qm base
sed -i 's/#define EXTRA 0/#define EXTRA 20000/' "$R/bench/prog.c"
git -C "$R" commit -qam "b does 10% more"
cd "$R"
for j in 1 2; do
  rm -rf .perfgate && git update-ref -d refs/notes/perfgate 2>/dev/null
  expect_exit 1 "compare --run-missing -j $j" "$PG" compare HEAD~1 HEAD --run-missing --manifest bench -j $j --format json -o cmp-$j.json
done
deltas() { json "$1" "[(b['name'], [(m['name'], m['delta']) for m in b['metrics'] if m['name'] == 'instructions'], b['verdict']) for b in d['benchmarks']]"; }
check "-j 2 compares as -j 1: $(deltas cmp-1.json)" [ "$(deltas cmp-1.json)" = "$(deltas cmp-2.json)" ]
check "b regressed by its 20,000 more steps" [ "$(json cmp-2.json "[b['verdict'] for b in d['benchmarks']]")" = "['unchanged', 'regressed', 'unchanged']" ]
check "native runs of both revisions still made: 5 task-clock samples a side" \
  [ "$(json cmp-2.json "sorted({(m['baseline_samples'], m['candidate_samples']) for b in d['benchmarks'] for m in b['metrics'] if m['name'] == 'task-clock'})")" = "[(5, 5)]" ]
cd "$T"

# perfgate SIGKILLed while its workers measure: they and their valgrind
# processes die with it, and the next run sweeps what they left.
printf '{ "benchmarks": [ {"name": "a", "command": ["%s/work", "300000000"]}, {"name": "b", "command": ["%s/work", "300000000"]} ] }' \
  "$PROGS" "$PROGS" > long.json
"$PG" run --backend valgrind --no-store -j 2 long.json > /dev/null 2>&1 &
pg=$!
mine() { pgrep -f "valgrind.*$T" | wc -l; }
for _ in $(seq 600); do [ "$(mine)" -ge 2 ] && break; sleep 0.1; done
check "two valgrind processes at once" [ "$(mine)" -ge 2 ]
kill -9 $pg
wait $pg 2>/dev/null
for _ in $(seq 100); do [ "$(mine)" = 0 ] && break; sleep 0.1; done
check "no valgrind process outlives a killed perfgate" [ "$(mine)" = 0 ]
check "the killed workers left their output directories" [ -n "$(ls -d "$TMPDIR"/perfgate-out.*/perfgate-vg-* 2>/dev/null)" ]
expect_exit 0 "the next run" "$PG" run --backend valgrind --no-store --no-native -- "$PROGS/work" 10
check "it swept the workers' leftovers" sh -c '! ls "$TMPDIR" "$TMPDIR"/perfgate-out.* | grep -q "perfgate-\(vg\|jobs\)-"'

expect_exit 2 "--jobs 0" "$PG" run --jobs 0 suite.json
contains "$T/err" "--jobs"
finish
