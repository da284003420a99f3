#!/usr/bin/env bash
# perfgate's own gate on itself (issue 25, docs/ci.md): the tools in
# bench/tools run to the end in a short mode, so that they cannot rot unseen
# (compare-scale.sh once stopped running when the reader began refusing its
# generated documents, and nobody noticed), and the self-benchmarks of
# bench/self.c measure perfgate's hot paths with exact counts that are the
# same on every run. Nothing here judges a time: the tools print their
# figures, the test checks that they got that far.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc
B=${PG_BUILD:?}
tools=${PG_SRC:?}/bench/tools

tool() {   # DESCRIPTION, LAST-LINE PATTERN, then the command
  local d=$1 want=$2; shift 2
  expect_exit 0 "$d" "$@"
  check "$d: its summary ('$want')" grep -qE "$want" "$T/out"
}

tool "compare-scale.sh, 200 benchmarks" "perfgate compare --format json: [0-9.]+ s .*ratio" \
  bash "$tools/compare-scale.sh" "$B" 200 3 1
# (a cost over /bin/true is a difference of two medians: with every core busy
# and 2 rounds it can come out below zero)
tool "fixed-costs.sh, 2 rounds" "^fixed costs over /bin/true: show -?[0-9.]+ ms, run (-?[0-9.]+ ms|n/a), compare -?[0-9.]+ ms" \
  bash "$tools/fixed-costs.sh" "$B" 2
tool "history-scale.sh, 5 commits x 3 benchmarks" "perfgate history, 5 commits x 3 benchmarks: [0-9.]+ s" \
  bash "$tools/history-scale.sh" "$B" 5 3 1
tool "notes-scale.sh, 5 commits x 3 benchmarks" "perfgate fetch into a fresh clone, 5 notes: [0-9.]+ s" bash "$tools/notes-scale.sh" "$B" 5 3 1
tool "flamegraph-render.sh, 2000 stacks" "in process, total .* \(2000 distinct stacks" \
  env PERFGATE="$B/perfgate" bash "$tools/flamegraph-render.sh" 2000
tool "harness-overhead.sh, 2 runs" "^vg +1 runs: bare [0-9.]+ s, perfgate [0-9.]+ s, ratio" \
  bash "$tools/harness-overhead.sh" "$B" 2 1
tool "sampling-overhead.sh, one round" "^ratio end-to-end [0-9.]+, program [0-9.]+" \
  bash "$tools/sampling-overhead.sh" "$B" 1 "$B/bench/sort" 200000
tool "kill-trial.sh, 2 kills" "^setsid: daemons left: 0" bash "$tools/kill-trial.sh" "$B" 2 1
tool "rundoc-same.py, a sample, the build against itself" "^[0-9]+ documents, [0-9]+ invocations .*, 0 different$" \
  python3 "$tools/rundoc-same.py" "$B/perfgate" "$B/perfgate" "$T/same" --every 40
tool "json-longstring.sh, 1 and 2 MiB" "^time per MiB, largest over smallest \(string\): [0-9.]+" bash "$tools/json-longstring.sh" "$B" "1 2" 1
tool "drift-trials.sh, one try of each" "^bisect: named the commit of the \+10% step in [01] of 1 tries" \
  bash "$tools/drift-trials.sh" "$B" 1 all

# aa-floor.sh over a small repository of its own: two checkouts, one pair.
R=$T/aa-repo
make_repo "$R"
mkdir -p "$R/bench"
cat > "$R/bench/prog.c" <<'C'
#include <stdio.h>
int main(void) { unsigned long s = 0; for (unsigned long i = 0; i < 100000; i++) s += i * i; printf("%lu\n", s); return 0; }
C
printf '{ "build": "cc -O1 -o bench/prog bench/prog.c", "benchmarks": [ { "name": "loop", "command": ["./prog"] } ] }' \
  > "$R/bench/perfgate.json"
git -C "$R" add -A && git -C "$R" commit -qm bench
tool "aa-floor.sh, one pair" "loop" bash "$tools/aa-floor.sh" -p 1 -k 2 "$PG" "$R"

# The self-benchmarks run on their own and say what they did.
S=$B/bench/self
expect_exit 0 "self read" "$S" read 50
contains "$T/out" "50 benchmarks read"
expect_exit 0 "self compare" "$S" compare 50
contains "$T/out" "bytes of comparison"
expect_exit 0 "self flamegraph" "$S" flamegraph 500
contains "$T/out" "bytes of SVG from 500 stacks"
expect_exit 0 "self history" "$S" history 20 10
contains "$T/out" "20 series, 1 change point, "
expect_exit 2 "self with a bad size" "$S" read 0
contains "$T/err" "self: expected a size from 1 to 10000000, got '0'"
if nm "$S" 2>/dev/null | grep -q __asan_init; then
  echo "bench/self is sanitized in this build (it links the tree's libraries): its counts under valgrind are the plain build's test"
  finish
fi

# Under valgrind: perfgate's hot paths between its own markers, each an
# exact count that is the same on every run (and not the whole process:
# the generated input is outside the region). At a fifth of the sizes
# bench/ measures: the machine may be busy.
cd "$T"
sed "s#\.\./build/bench#$B/bench#" "${PG_SRC}/bench/perfgate.json" | python3 -c "
import json, sys
d = json.load(sys.stdin); d.pop('build')
d['benchmarks'] = [b for b in d['benchmarks'] if b['name'].startswith('self-')]
for b in d['benchmarks']:
    b['command'] = b['command'][:2] + [str(max(1, int(a) // 5)) for a in b['command'][2:]]
print(json.dumps(d))" > self.json
check "four self-benchmarks in bench/perfgate.json" [ "$(json self.json 'len(d["benchmarks"])')" = 4 ]
for i in 1 2; do
  expect_exit 0 "self-benchmarks, run $i" "$PG" run --backend valgrind --no-store --no-native --metrics instructions \
    --format json self.json
  cp "$T/out" self-$i.json
done
counts() { json "$1" '[b["metrics"]["instructions"]["samples"][0] for b in d["benchmarks"]]'; }
check "the same exact counts on both runs: $(counts self-1.json)" [ "$(counts self-1.json)" = "$(counts self-2.json)" ]
# self read 200 counts only the reading: a tenth of it reads 20 (within 15%:
# what does not scale is small), so the region holds the hot path alone.
small=$(sed 's/"read", "200"/"read", "20"/' self.json)
echo "$small" > self-small.json
expect_exit 0 "self read 100" "$PG" run --backend valgrind --no-store --no-native --metrics instructions \
  --filter self-read --format json self-small.json
check "the region scales with the input" python3 -c "
import json
big = json.load(open('self-1.json'))['benchmarks'][0]['metrics']['instructions']['samples'][0]
small = json.load(open('$T/out'))['benchmarks'][0]['metrics']['instructions']['samples'][0]
r = big / small
print('read 200 / read 20:', r)
assert 8.5 < r < 11.5, r"

finish
