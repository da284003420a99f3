#!/usr/bin/env bash
# Heap metrics from valgrind's DHAT (docs/metrics.md, "Heap metrics"):
# tests/progs/heap allocates 10 blocks of 1000 bytes (each freed before the
# next), then holds 3 of 5000 bytes at once (the peak, 15000, reached once);
# with an argument N, extra() allocates N more of 100 bytes. Its figures are
# exact: measured beside the instructions in one run (a series of DHAT's own),
# with --jobs too; a commit adding allocations in extra() is a heap regression
# of exactly that much, the function table names extra with it, and the
# differential flamegraph draws it; where DHAT cannot work the heap metrics
# are refused in one line before anything runs.
. "$(dirname "$0")/lib/common.sh"
require valgrind
HEAP=$PROGS/heap
all=instructions,heap-allocations,heap-bytes,heap-peak
mv_() { json "$1" "{b['name']: b for b in d['benchmarks']}['$2']['metrics']['$3']['samples'][0]"; }

cd "$T"
cat > one.json <<JSON
{ "benchmarks": [ { "name": "heap", "command": ["$HEAP"] } ] }
JSON
# Beside the instructions, in the same run: exact figures, DHAT named as their source.
expect_exit 0 "run --backend valgrind --metrics $all" "$PG" run --backend valgrind --no-store --format json \
  --metrics $all one.json
cp "$T/out" side.json
check "heap-allocations: 13 blocks" [ "$(mv_ side.json heap heap-allocations)" = 13 ]
check "heap-bytes: 10 x 1000 + 3 x 5000 = 25000" [ "$(mv_ side.json heap heap-bytes)" = 25000 ]
check "heap-peak: the 3 live blocks, 15000" [ "$(mv_ side.json heap heap-peak)" = 15000 ]
check "instructions beside them, from valgrind" \
  [ "$(json side.json "d['benchmarks'][0]['metrics']['instructions']['backend']")" = valgrind ]
check "heap metrics from dhat" [ "$(json side.json "d['benchmarks'][0]['metrics']['heap-bytes']['backend']")" = dhat ]
check "the run describes both backends" holds side.json "{'dhat', 'valgrind'} <= set(d['backends']) and d['backends']['dhat']['exact']"
check "one measured run: the DHAT series is not the document's runs" [ "$(json side.json "d['benchmarks'][0]['runs']")" = 1 ]
check "nothing of DHAT left in TMPDIR" sh -c '! ls "$TMPDIR" "$TMPDIR"/perfgate-out.* | grep -q "perfgate-dhat-"'
# Valgrind's own summary on stderr says the same.
valgrind --tool=dhat --dhat-out-file=/dev/null "$HEAP" 2>dh.err
contains dh.err "Total:     25,000 bytes in 13 blocks"
contains dh.err "At t-gmax: 15,000 bytes in 3 blocks"

# record --backend dhat: allocation stacks, by bytes, or by blocks with -e heap-allocations.
expect_exit 0 "record --backend dhat" "$PG" record --backend dhat --folded - -o rec.svg -- "$HEAP" 7
same "record: stacks by bytes" "$(sort "$T/out")" "$(printf 'main;churn 10000\nmain;extra 700\nmain;hold 15000')"
contains "$T/err" "perfgate record: 25700 heap-bytes in 3 distinct stacks"
check "record: the flamegraph written" grep -q '<title>extra' rec.svg
expect_exit 0 "record --backend dhat -e heap-allocations" "$PG" record --backend dhat -e heap-allocations --folded - -- "$HEAP" 7
same "record: stacks by blocks" "$(sort "$T/out")" "$(printf 'main;churn 10\nmain;extra 7\nmain;hold 3')"
expect_exit 2 "record --backend dhat -e cycles" "$PG" record --backend dhat -e cycles --folded - -- "$HEAP"
contains "$T/err" "the dhat backend weighs stacks by heap-bytes or heap-allocations, not 'cycles'"

# --jobs: the same figures for each of two benchmarks.
cat > two.json <<JSON
{ "benchmarks": [ { "name": "base", "command": ["$HEAP"] }, { "name": "more", "command": ["$HEAP", "7"] } ] }
JSON
expect_exit 0 "--jobs 2" "$PG" run --backend valgrind --no-store --format json --no-native -j 2 --metrics $all two.json
cp "$T/out" jobs.json
same "--jobs 2: heap figures of both" \
  "$(json jobs.json "[(b['name'], [b['metrics'][m]['samples'] for m in ('heap-allocations', 'heap-bytes', 'heap-peak')]) for b in d['benchmarks']]")" \
  "[('base', [[13], [25000], [15000]]), ('more', [[20], [25700], [15000]])]"

# Asked only by name: a run without heap metrics runs no DHAT.
expect_exit 0 "run without heap metrics" "$PG" run --backend valgrind --no-store --format json --no-native one.json
check "no heap metric unless asked" holds "$T/out" "'heap-bytes' not in d['benchmarks'][0]['metrics']"

# A commit that adds allocations in extra(): its heap regression, exact, and where it is.
R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
printf '{ "benchmarks": [ { "name": "heap", "command": ["%s"] } ] }\n' "$HEAP" > "$R/b/perfgate.json"
git -C "$R" add b && git -C "$R" commit -qm base
cd "$R"
expect_exit 0 "run --backend dhat --sample (base)" "$PG" run --backend dhat --sample b/
printf '{ "benchmarks": [ { "name": "heap", "command": ["%s", "7"] } ] }\n' "$HEAP" > b/perfgate.json
git commit -qam "extra: 7 more blocks"
expect_exit 0 "run --backend dhat --sample (candidate)" "$PG" run --backend dhat --sample b/
doc=$(ls .perfgate/results/$(git rev-parse HEAD)/*.json)
check "stacks weigh bytes" [ "$(json "$doc" "d['runs'][0]['benchmarks'][0]['stacks_weight']")" = bytes ]
f=.perfgate/$(json "$doc" "d['runs'][0]['benchmarks'][0]['stacks']")
check "stacks: extra's 700 bytes, churn's 10000, hold's 15000, under main" \
  sh -c "grep -qx 'main;extra 700' '$f' && grep -qx 'main;churn 10000' '$f' && grep -qx 'main;hold 15000' '$f'"
expect_exit 1 "compare --gate heap-bytes,heap-allocations: regressed" \
  "$PG" compare HEAD~1 HEAD --gate heap-bytes,heap-allocations --flamegraph "$T/fg"
tr -s ' ' < "$T/out" > cmp.txt
contains cmp.txt "heap-allocations 13 20 +7 +53.85% 0.1% regressed"
contains cmp.txt "self cost by function (bytes)"
contains cmp.txt " extra 0 700 +700 -"
contains cmp.txt "= heap-bytes (headline) 25,000 25,700 +700 +2.80%"
check "the differential flamegraph draws extra" grep -q '<title>extra' "$T/fg/heap.diff.svg"
expect_exit 1 "compare --format json" "$PG" compare HEAD~1 HEAD --gate heap-bytes --format json
check "JSON: heap-bytes delta exactly +700, deterministic" \
  holds "$T/out" "[(m['delta'], m['deterministic']) for m in d['benchmarks'][0]['metrics'] if m['name'] == 'heap-bytes'] == [(700, True)]"

# doctor, and DHAT missing: refused in one line, exit 2, nothing stored.
cd "$T"
expect_exit 0 "doctor" "$PG" doctor
check "doctor: a line for the dhat backend" grep -qE '^ *--backend dhat +ok' "$T/out"
PERFGATE_VALGRIND=/nonexistent expect_exit 0 "doctor without valgrind" "$PG" doctor
check "doctor: dhat cannot work, and why" grep -qE '^ *--backend dhat +no +PERFGATE_VALGRIND=/nonexistent' "$T/out"
cd "$R"
n=$(find .perfgate/results -name '*.json' | wc -l)
PERFGATE_VALGRIND=/nonexistent expect_exit 2 "heap metrics without DHAT" "$PG" run --backend perf --metrics instructions,heap-bytes b/
contains "$T/err" "perfgate: heap-bytes needs the dhat backend, which cannot work here: PERFGATE_VALGRIND=/nonexistent"
check "the refusal is one line" [ "$(grep -c . "$T/err" | tail -1)" -le 2 ]
lacks "$T/out" "perfgate run:" "no run header before the refusal"
check "nothing stored" [ "$(find .perfgate/results -name '*.json' | wc -l)" = "$n" ]

# DHAT's output is the benchmark's to overwrite (it runs in its process):
# a valgrind that writes a hostile one makes that benchmark fail, saying what
# is wrong, and nothing else (a fake valgrind: PERFGATE_VALGRIND).
cd "$T"
fake() {
  printf '%s' "$1" > fake.out
  cat > fakevg <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo valgrind-3.19.0; exit 0; }
for a; do case \$a in --dhat-out-file=*) out=\${a#--dhat-out-file=};; esac; done
cp "$T/fake.out" "\$(echo "\$out" | sed "s/%p/\$\$/")"
SH
  chmod +x fakevg
}
hostile() {
  fake "$2"
  PERFGATE_VALGRIND=$T/fakevg expect_exit 1 "hostile DHAT output: $1" "$PG" run --backend dhat --no-store --no-native one.json
  contains "$T/out" "$3"
  PERFGATE_VALGRIND=$T/fakevg expect_exit 2 "hostile DHAT output, stacks: $1" "$PG" record --backend dhat -e heap-allocations \
    --folded - -- "$HEAP"
  contains "$T/err" "$3"
}
pp='{"dhatFileVersion":2,"mode":"heap","ftbl":["[root]","0x1: f (a.c:1)"],"pps":['
hostile "not JSON" '{"dhatFileVersion":' "invalid JSON"
hostile "another version" '{"dhatFileVersion":3,"mode":"heap","pps":[]}' "not DHAT's heap profile of file version 2"
hostile "a negative count" "$pp"'{"tb":-5,"tbk":1,"gb":0,"fs":[1]}]}' 'without a count "tb"'
hostile "a fractional count" "$pp"'{"tb":1,"tbk":0.5,"gb":0,"fs":[1]}]}' 'without a count "tbk"'
fake "$pp"'{"tb":5,"tbk":1,"gb":5,"fs":[7]},{"tb":5,"tbk":1,"gb":5,"fs":[1]}]}'
PERFGATE_VALGRIND=$T/fakevg expect_exit 2 "a frame its table lacks (a good point after it)" "$PG" record --backend dhat --folded - -- "$HEAP"
contains "$T/err" "an allocation point names a frame its table does not have"
fake "$pp"'{"tb":5,"tbk":1,"gb":5,"fs":[1]}]}'
PERFGATE_VALGRIND=$T/fakevg expect_exit 0 "a well-formed output" "$PG" run --backend dhat --no-store --no-native --format json one.json
check "its figures read" [ "$(mv_ "$T/out" heap heap-bytes)" = 5 ]
# A frame without a symbol is named by its file, as a profile of a stripped
# library reads (perfgate's own fetch: [libgit2.so.1.5.1]), not "[unknown]".
fake '{"dhatFileVersion":2,"mode":"heap","ftbl":["[root]","0x4: ??? (in /usr/lib/libfoo.so.1)","0x5: ???","0x6: g (g.c:2)"],"pps":[{"tb":5,"tbk":1,"gb":5,"fs":[1,3]},{"tb":2,"tbk":1,"gb":0,"fs":[2]}]}'
PERFGATE_VALGRIND=$T/fakevg expect_exit 0 "frames without a symbol" "$PG" record --backend dhat --folded - -- "$HEAP"
contains "$T/out" "g;[libfoo.so.1] 5"
contains "$T/out" "[unknown] 2"

# A Google Benchmark suite: no per-iteration heap figures, refused in one line.
if [ -x "$PROGS/gb_demo" ]; then
  expect_exit 2 "heap metrics of a Google Benchmark suite" "$PG" run --backend valgrind --no-store --metrics heap-bytes "$PROGS/gb_demo"
  contains "$T/err" "heap metrics of a Google Benchmark suite cannot be measured per iteration"
  lacks "$T/out" "perfgate run:" "no run header before the gbench refusal"
fi
finish
