#!/usr/bin/env bash
# perfgate compare between commits of a real repository holding a small C
# benchmark built by its manifest's "build" command, measured with the
# valgrind backend (exact counts): a change adding ~3% instructions to one
# function regresses (exit 1), a change removing work improves (exit 0), a
# comment-only change is unchanged (exit 0), with the exact deltas of the
# stored counts; then the same comparison from a fresh clone with
# --run-missing, which builds and measures both commits in temporary trees.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc

R=$T/repo
make_repo "$R"
mkdir -p "$R/bench"
# (linked statically when it can be: 32 valgrind runs start it)
cat > "$R/bench/perfgate.json" <<JSON
{ "build": "cc -O1 -g -fno-inline $(static_flag) -o bench/prog bench/prog.c",
  "benchmarks": [
    { "name": "mixer",  "command": ["./prog", "mix"] },
    { "name": "steady", "command": ["./prog", "steady"] } ] }
JSON
echo prog > "$R/bench/.gitignore"
write_prog() {  # MIX_N OTHER_N [COMMENT]
  cat > "$R/bench/prog.c" <<C
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
/* ${3:-a small benchmark} */
__attribute__((noinline)) static unsigned long mix(unsigned long x, long n)
{
    for (long i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
    return x;
}
__attribute__((noinline)) static unsigned long other(unsigned long x, long n)
{
    for (long i = 0; i < n; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    return x;
}
__attribute__((noinline)) static unsigned long third(unsigned long x, long n)
{
    for (long i = 0; i < n; i++) x += x >> 3;
    return x;
}
int main(int argc, char **argv)
{
    unsigned long x = 88172645463325252UL;
    if (argc > 1 && !strcmp(argv[1], "mix")) {
        x = mix(x, $1);
        x = other(x, $2);
        /* Which checkout ran, in order: by its directory's inode, since
         * every checkout is seen at one path (docs/metrics.md). */
        const char *log = getenv("PG_ORDER_LOG");
        struct stat st;
        FILE *f = log ? fopen(log, "a") : NULL;
        if (f && stat(".", &st) == 0)
            fprintf(f, "%lu\n", (unsigned long)st.st_ino);
        if (f)
            fclose(f);
    } else {
        x = third(x, 300000);
    }
    printf("%lu\n", x & 0xff);
    return 0;
}
C
}
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
write_prog 1000000 500000;                c0=$(commit "benchmark")
write_prog 1030000 500000;                c1=$(commit "mix: 3% more iterations")
write_prog 1030000 250000;                c2=$(commit "other: half the work")
write_prog 1030000 250000 "only a comment changed"; c3=$(commit "comment only")

cd "$R"
for c in $c0 $c1 $c2 $c3; do
  git checkout -q "$c"
  expect_exit 0 "run ${c:0:7}" "$PG" run --backend valgrind --sample bench/
done
git checkout -q main

# The stored counts, and what compare must say about them.
count() {  # COMMIT BENCH
  python3 - "$R/.perfgate/results/$1" "$2" <<'PY'
import json, glob, sys
d = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))
b = [b for b in d["runs"][0]["benchmarks"] if b["name"] == sys.argv[2]][0]
print(int(b["metrics"]["instructions"]["samples"][0]))
PY
}
i0=$(count $c0 mixer); i1=$(count $c1 mixer); i2=$(count $c2 mixer); i3=$(count $c3 mixer)
check "mix +3%: the stored counts grew ($i0 -> $i1)" python3 -c "import sys; r=$i1/$i0; sys.exit(not 1.01 < r < 1.04)"

# (a) regressed, exit 1, the exact delta.
expect_exit 1 "(a) more instructions: regressed" "$PG" compare "$c0" "$c1" --format json
cp "$T/out" a.json
check "(a) verdict regressed" [ "$(json a.json "d['verdict']")" = regressed ]
check "(a) mixer regressed" [ "$(json a.json "d['benchmarks'][0]['name'] + ' ' + d['benchmarks'][0]['verdict']")" = "mixer regressed" ]
check "(a) exact delta $((i1 - i0))" [ "$(json a.json "int(d['benchmarks'][0]['metrics'][0]['delta'])")" = $((i1 - i0)) ]
check "(a) exact baseline $i0" [ "$(json a.json "int(d['benchmarks'][0]['metrics'][0]['baseline'])")" = "$i0" ]
check "(a) steady unchanged, delta 0" [ "$(json a.json "(d['benchmarks'][1]['verdict'], d['benchmarks'][1]['metrics'][0]['delta'])")" = "('unchanged', 0)" ]
pct=$(python3 -c "print('%+.2f%%' % (100.0 * ($i1 - $i0) / $i0))")
expect_exit 1 "(a) text" "$PG" compare HEAD~3 HEAD~2
contains "$T/out" "verdict: regressed -- 1 regressed, 1 unchanged of 2 benchmarks compared"
contains "$T/out" "$pct"
contains "$T/out" "$(python3 -c "print('+{:,}'.format($i1 - $i0))")"
contains "$T/out" "HEAD~3 (${c0:0:12}) -> HEAD~2 (${c1:0:12})"

# The function table and the differential flamegraphs name the function that grew,
# with its exact instruction delta (callgrind stacks from run --sample).
check "(a) json: top function is mix, +$((i1 - i0)) exactly" [ "$(json a.json "(d['benchmarks'][0]['functions']['top'][0]['name'], int(d['benchmarks'][0]['functions']['top'][0]['delta']), d['benchmarks'][0]['functions']['unit'])")" = "('mix', $((i1 - i0)), 'instructions')" ]
expect_exit 1 "(a) --flamegraph" "$PG" compare "$c0" "$c1" --flamegraph "$T/fg"
contains "$T/out" "mixer: self cost by function (instructions), largest changes"
check "(a) text function row: mix $(python3 -c "print('+{:,}'.format($i1 - $i0))")" grep -qE "^    mix +[0-9,]+ +[0-9,]+ +$(python3 -c "print('\\+{:,}'.format($i1 - $i0))") " "$T/out"
lacks "$T/out" "steady: self cost" "no function table for an unchanged benchmark"
contains "$T/err" "2 differential flamegraphs in $T/fg"
check "(a) diff flamegraph written" [ -s "$T/fg/mixer.diff.svg" ]
check "(a) reverse diff flamegraph written" [ -s "$T/fg/mixer.diff-reverse.svg" ]
contains "$T/fg/mixer.diff.svg" ">mix<" "the diff flamegraph names mix"
contains "$T/fg/mixer.diff.svg" "reconstructed from callgrind caller contexts" "the diff flamegraph says how valgrind stacks were made"
check "(a) no flamegraph for the unchanged benchmark" [ ! -e "$T/fg/steady.diff.svg" ]
expect_exit 1 "(a) markdown" "$PG" compare "$c0" "$c1" --format markdown
contains "$T/out" "| mix | "
contains "$T/out" "| $(python3 -c "print('+{:,}'.format($i1 - $i0))") ("

# (b) improved, exit 0.
expect_exit 0 "(b) less work: improved" "$PG" compare "$c1" "$c2" --format json
cp "$T/out" b.json
check "(b) verdict improved" [ "$(json b.json "d['verdict']")" = improved ]
check "(b) exact delta $((i2 - i1))" [ "$(json b.json "int(d['benchmarks'][0]['metrics'][0]['delta'])")" = $((i2 - i1)) ]
check "(b) json: top function is other, $((i2 - i1)) exactly" [ "$(json b.json "(d['benchmarks'][0]['functions']['top'][0]['name'], int(d['benchmarks'][0]['functions']['top'][0]['delta']))")" = "('other', $((i2 - i1)))" ]
expect_exit 0 "(b) text" "$PG" compare "${c1:0:10}" "${c2:0:10}"
contains "$T/out" "verdict: improved -- 1 improved, 1 unchanged of 2 benchmarks compared"

# (c) comment only: unchanged, not one instruction different.
expect_exit 0 "(c) comment only: unchanged" "$PG" compare "$c2" "$c3" --format json
cp "$T/out" c.json
check "(c) verdict unchanged" [ "$(json c.json "d['verdict']")" = unchanged ]
check "(c) delta exactly 0 ($i2 vs $i3)" [ "$(json c.json "d['benchmarks'][0]['metrics'][0]['delta']")" = 0 ]
expect_exit 0 "(c) main~1 main" "$PG" compare main~1 main
contains "$T/out" "verdict: unchanged -- 2 unchanged of 2 benchmarks compared"

# A result file (what `show --format json` prints) against a revision.
"$PG" show "$c0" --format json > "$T/c0.json"
expect_exit 1 "a result file against a revision" "$PG" compare "$T/c0.json" "$c1"
contains "$T/out" "verdict: regressed -- 1 regressed, 1 unchanged of 2 benchmarks compared"
contains "$T/out" "$T/c0.json (${c0:0:12}) -> ${c1:0:12}"

# Store files compared directly still find their stacks (relative to the store).
f0=$(ls .perfgate/results/$c0/*.json); f1=$(ls .perfgate/results/$c1/*.json)
expect_exit 1 "two store files" "$PG" compare "$f0" "$f1"
contains "$T/out" "mixer: self cost by function (instructions)"
cd .perfgate
expect_exit 1 "two store files, relative paths" "$PG" compare "results/$c0/${f0##*/}" "results/$c1/${f1##*/}"
contains "$T/out" "mixer: self cost by function (instructions)"
cd "$R"

# No results for a revision: exit 2 and say how to get them.
git -C "$R" commit -q --allow-empty -m "not measured"
expect_exit 2 "no results stored" "$PG" compare HEAD~1 HEAD
contains "$T/err" "no results stored for HEAD ("
contains "$T/err" "perfgate run"
contains "$T/err" "--run-missing"
expect_exit 2 "unknown revision" "$PG" compare HEAD~1 no-such-branch
contains "$T/err" "no-such-branch"

# --run-missing from a fresh clone without any stored results; the temporary
# trees are removed afterwards.
git clone -q "$R" "$T/clone"
mkdir -p "$T/tmp"
cd "$T/clone"
check "the clone has no results" [ ! -e .perfgate ]
# Instructions only (no cache or branch simulation): the same exact counts.
TMPDIR=$T/tmp expect_exit 1 "--run-missing measures both and regresses" "$PG" compare "$c0" "$c1" --run-missing --sample --backend valgrind --metrics instructions --format json
cp "$T/out" rm.json
check "--run-missing: regressed" [ "$(json rm.json "d['verdict']")" = regressed ]
check "--run-missing: the same exact delta $((i1 - i0))" [ "$(json rm.json "int(d['benchmarks'][0]['metrics'][0]['delta'])")" = $((i1 - i0)) ]
contains "$T/err" "perfgate: building: cc"
check "--run-missing --sample: the function table names mix" [ "$(json rm.json "(d['benchmarks'][0]['functions']['top'][0]['name'], int(d['benchmarks'][0]['functions']['top'][0]['delta']))")" = "('mix', $((i1 - i0)))" ]
check "--run-missing: stacks stored beside the results" [ -n "$(find .perfgate/stacks/$c0 -name 'mixer.folded' 2>/dev/null)" ]
check "--run-missing: both stored in the clone" [ -d ".perfgate/results/$c0" -a -d ".perfgate/results/$c1" ]
check "--run-missing --metrics instructions: no cache or branch metric stored, the choice recorded" [ "$(json "$(ls .perfgate/results/$c1/*.json)" \
  "[(sorted(b['metrics']), b['selected_metrics']) for b in d['runs'][0]['benchmarks']]")" = \
  "[(['Ir', 'instructions', 'max-rss', 'wall-time'], ['instructions']), (['Ir', 'instructions', 'max-rss', 'wall-time'], ['instructions'])]" ]
check "--run-missing: temporary trees removed" [ -z "$(ls -A "$T/tmp" | grep perfgate-rev)" ]
check "--run-missing: build products stay out of the clone" [ ! -e bench/prog ]
# Measured once, stored: the next comparison runs nothing.
expect_exit 1 "second compare uses the stored results" "$PG" compare "$c0" "$c1" --run-missing --backend valgrind
lacks "$T/err" "building"
contains "$T/out" "verdict: regressed"
# Both revisions measured: their runs interleave round by round and benchmark
# by benchmark, each pair's order drawn anew (A B or B A).
PG_ORDER_LOG=$T/order TMPDIR=$T/tmp expect_exit 0 "--run-missing --repeat 2: comment-only change unchanged" \
  "$PG" compare "$c2" "$c3" --run-missing --backend valgrind --repeat 2 --metrics instructions,task-clock \
  --pass-env PG_ORDER_LOG
contains "$T/out" "verdict: unchanged -- 2 unchanged of 2 benchmarks compared"
# Each round of a revision is its valgrind run and its native runs (round 0
# with the native warmup, 3 runs; round 1, 2 runs; task-clock asks for them):
# 5 runs of mixer a revision, each round one revision's runs beside the other's.
check "interleaved: each round A then B, or B then A ($(tr '\n' ' ' < "$T/order"))" python3 -c "
import sys; l = open(sys.argv[1]).read().split()
chunks = [l[0:3], l[3:6], l[6:8], l[8:10]]
one = lambda c: len(set(c)) == 1
sys.exit(not (len(l) == 10 and all(map(one, chunks)) and chunks[0][0] != chunks[1][0] and chunks[2][0] != chunks[3][0]
              and {chunks[0][0], chunks[1][0]} == {chunks[2][0], chunks[3][0]}))" "$T/order"

# A revision whose build fails: exit 2, nothing left behind.
git checkout -q -b broken
sed -i 's/cc -O1/cc -O1 -DNOPE -include no-such-header.h/' bench/perfgate.json
git commit -q -am "broken build"
TMPDIR=$T/tmp expect_exit 2 "a failing build" "$PG" compare "$c0" HEAD --run-missing --backend valgrind
contains "$T/err" "build command failed"
check "failing build: temporary trees removed" [ -z "$(ls -A "$T/tmp" | grep perfgate-rev)" ]

finish
