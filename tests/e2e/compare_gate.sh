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
require valgrind cc

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
manifest "$(entry mixer mix)" "$(entry old steady)" "$(entry crashy crashy)"
write_prog 100000 1000 0;   c0=$(commit "base")
manifest "$(entry mixer mix)" "$(entry fresh steady)" "$(entry crashy crashy)"
write_prog 103000 3000 3;   c1=$(commit "mix: 3% more; strlen 3x; crashy fails; old -> fresh")

cd "$R"
git checkout -q "$c0"
expect_exit 0 "run c0 without stacks" "$PG" run --backend valgrind bench/
git checkout -q "$c1"
expect_exit 1 "run c1 with stacks (crashy fails)" "$PG" run --backend valgrind --sample bench/
git checkout -q main

# --- Fail closed: names ------------------------------------------------------
expect_exit 2 "misspelt --gate" "$PG" compare "$c0" "$c1" --gate instruction
contains "$T/err" "perfgate: --gate: unknown metric 'instruction' (did you mean 'instructions'?)"
check "misspelt --gate: one line" [ "$(wc -l < "$T/err")" = 1 ]
check "misspelt --gate: no report" [ ! -s "$T/out" ]
expect_exit 2 "misspelt --threshold" "$PG" compare "$c0" "$c1" --threshold instrctions=0.5%
contains "$T/err" "perfgate: --threshold: unknown metric 'instrctions' (did you mean 'instructions'?)"
expect_exit 2 "misspelt valgrind counter" "$PG" compare "$c0" "$c1" --allow-missing --gate D1mw,d1mx
contains "$T/err" "unknown metric 'd1mx' (did you mean 'D1mr'?)"
# A manifest's misspelt threshold: refused before anything is measured.
cp bench/perfgate.json "$T/manifest.saved"
sed -i 's/"name": "fresh",/"name": "fresh", "thresholds": { "intructions": "2%" },/' bench/perfgate.json
expect_exit 2 "misspelt manifest threshold" "$PG" run --backend valgrind bench/
contains "$T/err" "thresholds: unknown metric 'intructions' (did you mean 'instructions'?)"
cp "$T/manifest.saved" bench/perfgate.json
# An alias gates and thresholds the metric it names: Ir is instructions.
expect_exit 0 "--gate Ir --threshold Ir=40%: instructions under 40%" "$PG" compare "$c0" "$c1" --allow-missing --gate Ir --threshold Ir=40%
contains "$T/out" "gating on instructions"
check "Ir's threshold is instructions' (40%)" grep -qE "^mixer +instructions +[0-9,]+ +[0-9,]+ +\+[0-9,]+ +\+[0-9.]+% +40% +unchanged" "$T/out"

# --- Fail closed: gating metrics not compared --------------------------------
# fresh is new, old vanished, crashy failed in the candidate.
expect_exit 2 "a gating metric not compared" "$PG" compare "$c0" "$c1"
contains "$T/err" "perfgate: gating metric instructions not compared for 3 benchmarks: crashy (failed in the candidate: exit status 3), fresh (not in the baseline), old (not in the candidate); pass --allow-missing to decide on what was compared"
check "not compared: one line on stderr" [ "$(grep -c . "$T/err")" = 1 ]
contains "$T/out" "not gated (3): no gating metric compared for crashy (failed in the candidate: exit status 3), fresh (not in the baseline), old (not in the candidate)"
expect_exit 2 "a gate neither side measured (valgrind has no cycles)" "$PG" compare "$c0" "$c1" --gate cycles --allow-missing
contains "$T/err" "no gating metric (cycles) was compared for any benchmark of $c0 and $c1: mixer (cycles measured on neither side)"
expect_exit 0 "everything compared: exit 0" "$PG" compare "$c0" "$c0"
# --allow-missing: reported, and the gate decides on what was compared.
for f in text markdown json junit; do
  expect_exit 1 "--allow-missing --format $f: mixer regressed" "$PG" compare "$c0" "$c1" --allow-missing --format $f
  cp "$T/out" "$T/report.$f"
done
contains "$T/err" "warning: not gated (--allow-missing): 3 benchmarks: crashy (failed in the candidate: exit status 3), fresh (not in the baseline), old (not in the candidate)"
# New and removed benchmarks in every format.
contains "$T/report.text" "new benchmarks, not in the baseline (1): fresh"
contains "$T/report.text" "vanished benchmarks, not in the candidate (1): old"
contains "$T/report.text" "verdict: regressed -- 1 regressed, 1 inconclusive of 2 benchmarks compared; 1 new; 1 vanished"
contains "$T/report.markdown" "**New benchmarks, not in the baseline (1):** fresh"
contains "$T/report.markdown" "**Vanished benchmarks, not in the candidate (1):** old"
contains "$T/report.markdown" "**Not gated (3):** crashy (failed in the candidate: exit status 3), fresh (not in the baseline), old (not in the candidate)"
check "json: new, vanished, not gated" [ "$(json "$T/report.json" "(d['new'], d['vanished'], [m['benchmark'] for m in d['not_gated']], d['gated'])")" = "(['fresh'], ['old'], ['crashy', 'fresh', 'old'], 1)" ]
contains "$T/report.junit" '<testcase name="fresh" classname="perfgate.benchmarks">'
contains "$T/report.junit" '<skipped message="new benchmark: not in the baseline"/>'
contains "$T/report.junit" '<testcase name="old" classname="perfgate.benchmarks">'
contains "$T/report.junit" '<skipped message="vanished benchmark: not in the candidate"/>'
check "junit is well-formed XML" python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$T/report.junit"

# --- One number, one story ---------------------------------------------------
# Ir is instructions: not listed beside it; valgrind's own counters are
# counted without -v and listed with it.
lacks "$T/report.text" " Ir " "text: Ir not shown beside instructions"
check "json: no Ir beside instructions" [ "$(json "$T/report.json" "[m['name'] for b in d['benchmarks'] for m in b['metrics'] if m['name'] in ('Ir', 'instructions')].count('Ir')")" = 0 ]
lacks "$T/report.text" "Dr " "text without -v: valgrind's Dr not listed"
check "text: valgrind's own counters counted" grep -qE "^ +\(\+[0-9]+ more valgrind metrics changed: -v shows them\)" "$T/report.text"
expect_exit 1 "-v" "$PG" compare "$c0" "$c1" --allow-missing -v
check "-v lists Dr" grep -qE "^ +Dr +" "$T/out"
lacks "$T/out" " Ir " "-v: still no Ir"

# A side stored without stacks (c0 ran without --sample) is said loudly.
expect_exit 1 "--flamegraph, baseline without stacks" "$PG" compare "$c0" "$c1" --allow-missing --flamegraph "$T/fg0"
contains "$T/err" "warning: the baseline (${c0:0:12}) was stored without stacks for 2 benchmarks (mixer, crashy): no function table or differential flamegraph for them; fix: add --run-missing"
check "no flamegraph without stacks" [ ! -e "$T/fg0/mixer.diff.svg" ]
# --run-missing records them: c0 is measured again, with stacks.
expect_exit 1 "--run-missing --sample records the baseline's stacks" "$PG" compare "$c0" "$c1" --allow-missing --run-missing --sample --backend valgrind --format json --flamegraph "$T/fg"
cp "$T/out" story.json
contains "$T/err" "measuring ${c0:0:12}"
lacks "$T/err" "stored without stacks"
check "stacks stored for c0" [ -n "$(find .perfgate/stacks/$c0 -name mixer.folded)" ]
# The function table adds up: rows + other functions + unattributed = headline, exactly.
check "rows + other + unattributed = headline delta" python3 - story.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = [b for b in d["benchmarks"] if b["name"] == "mixer"][0]
f = b["functions"]
h = [m for m in b["metrics"] if m["name"] == "instructions"][0]
total = sum(r["delta"] for r in f["top"]) + f["other"]["delta"] + f["unattributed"]["delta"]
base = sum(r["baseline"] for r in f["top"]) + f["other"]["baseline"] + f["unattributed"]["baseline"]
# The counting run (cachegrind) and the stacks' run (callgrind) start up a little
# differently (glibc reads the tool's CPU cache data and tunables): a few hundred
# instructions on each side, the same on both, so its delta may be 0.
ok = total == h["delta"] == f["headline"]["delta"] and base == h["baseline"] and f["unattributed"]["baseline"] > 0
print(total, h["delta"], f["unattributed"], file=sys.stderr)
sys.exit(not ok)
PY
expect_exit 1 "text function table" "$PG" compare "$c0" "$c1" --allow-missing
contains "$T/out" "(headline's run minus the stacks' run: measured apart)"
# The total row is the headline row of the metric table, to the instruction.
hd=$(sed -nE 's/^mixer +instructions +[0-9,]+ +[0-9,]+ +([-+][0-9,]+) .*/\1/p' "$T/out")
check "text: the total row is the headline (${hd:-none})" grep -qE "^    = instructions \(headline\) +[0-9,]+ +[0-9,]+ +\\${hd:-none} " "$T/out"
# The differential flamegraph explains its colours.
check "diff flamegraph written" [ -s "$T/fg/mixer.diff.svg" ]
check "the legend explains the colour scale" grep -qE "colour: change of self cost; red grew, blue shrank; full colour at ±[0-9,]+ instructions \(the largest change\), paler in proportion; white: less than [0-9,]+ \(0.1% of the total\)" "$T/fg/mixer.diff.svg"

finish
