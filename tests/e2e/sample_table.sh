#!/usr/bin/env bash
# compare --sample's function table with the valgrind backend adds up to its
# headline, and its last row says what it is. The headline is the counting
# runs' (cachegrind's) instructions, the rows the stacks' run's (callgrind's,
# which holds every instruction of its run: code without a symbol is
# [unknown], not left out). What the two differ by is what two runs counted
# apart, measured, not code the stacks miss ("PLT stubs, ld.so" was the
# label, and false). Two programs, each grown by a commit:
#   - repcopy (tests/progs/repcopy.c): all rep movsb/rep stosb. Both tools
#     count each iteration of a repeated string instruction (checked here by
#     hand), so copy()'s row is the headline's delta to the instruction;
#   - rtable (tests/rust/rtable.rs, rustc -O -g): hot() grows; tally()'s std
#     HashMap is seeded anew each run, so its count moves from run to run and
#     the runs' difference row takes what the two runs counted apart.
. "$(dirname "$0")/lib/common.sh"
require valgrind cg_annotate callgrind_annotate
command -v rustc >/dev/null || PATH=${HOME:-/nonexistent}/.cargo/bin:$PATH
require rustc
LABEL="(headline's run minus the stacks' run: measured apart)"

R=$T/repo
make_repo "$R"
cp "${PG_SRC:?}/tests/progs/repcopy.c" "$R/"
cp "${PG_SRC:?}/tests/rust/rtable.rs" "$R/"
printf 'repcopy\nrtable\n.perfgate\n' > "$R/.gitignore"
mkdir "$R/bench"
cat > "$R/bench/perfgate.json" <<'JSON'
{ "build": "cc -O2 -g -o repcopy repcopy.c && rustc -O -g -o rtable rtable.rs",
  "benchmarks": [ { "name": "repcopy", "command": ["../repcopy"] },
                  { "name": "rtable", "command": ["../rtable"] } ] }
JSON
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
c0=$(commit "two programs")
sed -i 's/^#define ROUNDS 40$/#define ROUNDS 50/' "$R/repcopy.c"
sed -i 's/^const ROUNDS: u64 = 40;$/const ROUNDS: u64 = 44;/' "$R/rtable.rs"
check "the changes are made" grep -q '^const ROUNDS: u64 = 44;$' "$R/rtable.rs"
c1=$(commit "more rounds")

cd "$R"
for c in $c0 $c1; do
  git checkout -q "$c"
  expect_exit 0 "run ${c:0:7}" "$PG" run --backend valgrind --sample --no-native --metrics instructions bench/
  cp repcopy "$T/repcopy-$c"; cp rtable "$T/rtable-$c"
done
git checkout -q main

# By hand: the instructions inside one function, by callgrind alone.
fn_ir() {  # PROGRAM FUNCTION
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="$2" "$1" 2>&1 >/dev/null |
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'
}
# ... and cachegrind's count of copy(): its rep movsb counted as callgrind counts it.
cg_fn() {  # PROGRAM FUNCTION
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$T/cg.out" "$1" >/dev/null 2>&1
  cg_annotate --auto=no --threshold=0 "$T/cg.out" 2>/dev/null | sed -nE "s/^ *([0-9,]+) .*:$2\$/\1/p" | tr -d , | head -1
}
copy0=$(fn_ir "$T/repcopy-$c0" copy); copy1=$(fn_ir "$T/repcopy-$c1" copy)
check "rep movsb: cachegrind counts copy() as callgrind does ($copy1)" [ "$(cg_fn "$T/repcopy-$c1" copy)" = "$copy1" ]
hot0=$(fn_ir "$T/rtable-$c0" rtable::hot); hot1=$(fn_ir "$T/rtable-$c1" rtable::hot)
check "callgrind: copy grew ($copy0 -> $copy1), hot grew ($hot0 -> $hot1)" [ "$copy1" -gt "$copy0" -a "$hot1" -gt "$hot0" ]

expect_exit 1 "compare: regressed" "$PG" compare "$c0" "$c1" --format json
cp "$T/out" cmp.json
# Every benchmark's table: rows + other + the runs' difference = the headline, to the instruction.
check "each table adds up to its headline, its last row labelled what it is" python3 - cmp.json "$LABEL" <<'PY'
import json, sys
d, label = json.load(open(sys.argv[1])), sys.argv[2]
ok = True
for b in d["benchmarks"]:
    f = b["functions"]
    h = [m for m in b["metrics"] if m["name"] == "instructions"][0]
    for k, hk in (("baseline", "baseline"), ("candidate", "candidate"), ("delta", "delta")):
        s = sum(r[k] for r in f["top"]) + f["other"][k] + f["unattributed"][k]
        if s != h[hk] or f["headline"][k] != h[hk]:
            ok = False
            print("%s %s: rows add up to %s, headline %s" % (b["name"], k, s, h[hk]), file=sys.stderr)
    if f["unattributed"]["reason"] != label:
        ok = False
        print("%s: last row %r" % (b["name"], f["unattributed"]["reason"]), file=sys.stderr)
sys.exit(not ok)
PY
row() {  # BENCH FIELD
  json cmp.json "[b for b in d['benchmarks'] if b['name'] == '$1'][0]$2"
}
check "repcopy: copy is the top row, +$((copy1 - copy0)) exactly" \
  [ "$(row repcopy "['functions']['top'][0]['name'], int([b for b in d['benchmarks'] if b['name'] == 'repcopy'][0]['functions']['top'][0]['delta'])")" = "('copy', $((copy1 - copy0)))" ]
check "repcopy: copy's row is the headline's delta: the two runs differ by the same on both sides" \
  [ "$(row repcopy "['functions']['unattributed']['delta']")" = 0 ]
check "rtable: rtable::hot is the top row, +$((hot1 - hot0)) exactly" \
  [ "$(row rtable "['functions']['top'][0]['name'], int([b for b in d['benchmarks'] if b['name'] == 'rtable'][0]['functions']['top'][0]['delta'])")" = "('rtable::hot', $((hot1 - hot0)))" ]

expect_exit 1 "compare: text" "$PG" compare "$c0" "$c1"
contains "$T/out" "$LABEL"
lacks "$T/out" "PLT stubs"
finish
