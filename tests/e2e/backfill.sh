#!/usr/bin/env bash
# perfgate backfill A..B on a repository of 9 commits (a range of 8 after the
# first), each built by the manifest and measured with valgrind (exact
# instruction counts, --jobs 2: its two benchmarks at once):
#  - killed (SIGKILL) while the 5th commit builds, with 4 stored: nothing of
#    the 5th is stored or left behind, and the same command again measures
#    exactly the 4 missing ones; `history` then has all 8; a third time
#    measures nothing;
#  - Ctrl-C (SIGINT) in the same place: exit 130, the commits before it
#    stored, the summary and how to resume said;
#  - --part 1/2 and 2/2 (in a fresh clone) measure disjoint parts whose union
#    is the range; --every 3 keeps the newest and every 3rd before it;
#  - a commit that does not build is FAILED (exit 1) and the others are
#    measured; bad ranges, revisions and options are exit 2.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc git
R=$T/repo
GATE=$T/gate       # the 5th commit's build waits until this file exists
make_bench_repo "$R" '{ "build": "sh bench/build.sh",
  "benchmarks": [ { "name": "small", "command": ["./prog", "1"] },
                  { "name": "large", "command": ["./prog", "3"] } ] }'
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
c=()
for i in 0 1 2 3 4 5 6 7 8; do
  wait_line=
  [ $i = 5 ] && wait_line="touch '$T/building5'; while [ ! -e '$GATE' ]; do sleep 0.05; done"
  printf '%s\ncc -O1 %s -o bench/prog bench/prog.c\n' "$wait_line" "$(static_flag)" > "$R/bench/build.sh"
  printf '#include <stdlib.h>\nint main(int c, char **v) { volatile long x = 0; for (long i = 0; i < %d * atol(v[1]); i++) x += i; return 0; }\n' \
    $((1000 * (i + 1))) > "$R/bench/prog.c"
  c[$i]=$(commit "commit $i")
done
cd "$R"
BF=("$PG" backfill --backend valgrind --no-native --metrics instructions -j 2)
# commits with a result document (a lock file alone is not one)
stored() { ls .perfgate/results/*/*.json 2>/dev/null | wc -l; }
# until_ COND...: waits (bounded, generously) until the command succeeds.
until_() { for _ in $(seq 1200); do "$@" && return 0; sleep 0.05; done; return 1; }

# SIGKILL while the 5th commit of the range (c5) builds: 4 are stored.
"${BF[@]}" "${c[0]}..${c[8]}" > "$T/out1" 2> "$T/err1" &
pid=$!
check "the 5th commit's build started" until_ test -e "$T/building5"
kill -9 $pid
wait $pid 2>/dev/null
check "4 commits stored when killed ($(stored))" [ "$(stored)" = 4 ]
for i in 1 2 3 4; do contains "$T/out1" "[$i/8]     ${c[$i]:0:12} measured  commit $i"; done
lacks "$T/out1" "${c[5]:0:12}" "the commit being built is not said to be measured"
check "c5 has no results" [ -z "$(ls ".perfgate/results/${c[5]}"/*.json 2>/dev/null)" ]
check "the killed backfill's checkout is still there (for the next run to sweep)" \
  [ -n "$(ls -d "$T"/perfgate-rev-* 2>/dev/null)" ]

# The same command again: only the 4 missing are measured.
touch "$GATE"
expect_exit 0 "resumed" "${BF[@]}" "${c[0]}..${c[8]}"
cat "$T/out"
contains "$T/out" "backfill: 8 commits, backend valgrind"
for i in 1 2 3 4; do contains "$T/out" "[$i/8]     ${c[$i]:0:12} already stored  commit $i"; done
for i in 5 6 7 8; do contains "$T/out" "[$i/8]     ${c[$i]:0:12} measured  commit $i"; done
contains "$T/out" "backfill: 4 measured, 4 already stored, 0 failed"
check "4 builds, one per commit measured ($(grep -c 'building:' "$T/err"))" [ "$(grep -c 'building:' "$T/err")" = 4 ]
check "8 commits stored ($(stored))" [ "$(stored)" = 8 ]
check "no checkout is left" [ -z "$(ls -d "$T"/perfgate-rev-* 2>/dev/null)" ]
check "no temporary file in the store" [ -z "$(find .perfgate -name '*.tmp*' -o -name '.*tmp*')" ]
# Each commit's exact counts: small is 1/3 of large's loop, and every commit's loop is longer.
for i in 1 8; do
  "$PG" show "${c[$i]}" --format json > "$T/show$i.json"
  check "c$i: one run, both benchmarks, jobs=2 measured them" \
    holds "$T/show$i.json" "len(d) == 1 and sorted(b['name'] for b in d[0]['benchmarks']) == ['large', 'small']"
done
expect_exit 0 "history over the range" "$PG" history "${c[0]}..${c[8]}" -o "$T/h.html"
contains "$T/out" "history: 8 commits, 8 with results"
expect_exit 0 "a third time" "${BF[@]}" "${c[0]}..${c[8]}"
contains "$T/out" "backfill: 0 measured, 8 already stored, 0 failed"
lacks "$T/err" "building:"

# Ctrl-C in the same place, in a fresh clone (notes are not cloned).
clone_as "$R" "$T/int"
cd "$T/int"
rm -f "$GATE" "$T/building5"
"${BF[@]}" "${c[0]}..${c[8]}" > "$T/out2" 2> "$T/err2" &
pid=$!
check "SIGINT: the 5th commit's build started" until_ test -e "$T/building5"
kill -INT $pid
wait $pid
rc=$?
check "interrupted backfill exits 130 (got $rc)" [ $rc = 130 ]
contains "$T/out2" "backfill: 4 measured, 0 already stored, 0 failed; interrupted"
contains "$T/err2" "interrupted: 4 commits measured and stored before it; ${c[5]:0:12} was not (run the same command again"
check "SIGINT: 4 commits stored ($(stored))" [ "$(stored)" = 4 ]
check "SIGINT: no checkout is left" [ -z "$(ls -d "$T"/perfgate-rev-* 2>/dev/null)" ]
touch "$GATE"

# --part: two jobs, disjoint halves whose union is the range.
clone_as "$R" "$T/split"
cd "$T/split"
expect_exit 0 "--part 1/2" "${BF[@]}" "${c[0]}..${c[8]}" --part 1/2
contains "$T/out" "backfill: 4 commits of 8 (part 1/2)"
cp "$T/out" "$T/p1"
expect_exit 0 "--part 2/2" "${BF[@]}" "${c[0]}..${c[8]}" --part 2/2
cp "$T/out" "$T/p2"
contains "$T/p2" "backfill: 4 measured, 0 already stored, 0 failed" "part 2 measured none of part 1's"
measured() { sed -n 's/^\[[0-9]*\/[0-9]*\] *\([0-9a-f]*\) measured .*/\1/p' "$@" | sort; }
same "the parts' union is the range" "$(measured "$T/p1" "$T/p2" | tr '\n' ' ')" \
  "$(for i in 1 2 3 4 5 6 7 8; do echo "${c[$i]:0:12}"; done | sort | tr '\n' ' ')"
check "the parts are disjoint" [ -z "$(comm -12 <(measured "$T/p1") <(measured "$T/p2"))" ]
check "8 stored in the clone ($(stored))" [ "$(stored)" = 8 ]
# --every 3: the newest, and every 3rd before it; -n measures nothing.
expect_exit 0 "--every 3 --dry-run" "${BF[@]}" "${c[0]}..${c[8]}" --every 3 -n
contains "$T/out" "backfill: 3 commits of 8 (every 3)"
same "--every 3 keeps c2, c5, c8" "$(grep -o '^\[[0-9/]*\] *[0-9a-f]*' "$T/out" | awk '{print $2}' | tr '\n' ' ')" \
  "${c[2]:0:12} ${c[5]:0:12} ${c[8]:0:12} "
contains "$T/out" "backfill: 0 to measure, 3 already stored"

# A commit that does not build: FAILED, the others measured, exit 1.
cd "$R"
echo 'int main(void) { return syntax error; }' > bench/prog.c
c[9]=$(commit "broken")
printf '#include <stdlib.h>\nint main(int c, char **v) { return atoi(v[1]) == 3; }\n' > bench/prog.c
c[10]=$(commit "fixed, but large fails")
expect_exit 1 "a commit that does not build" "${BF[@]}" "${c[8]}.."
contains "$T/out" "[1/2]     ${c[9]:0:12} FAILED: revision ${c[9]:0:12}: the manifest's build command failed (exit status 1): "
contains "$T/out" "[2/2]     ${c[10]:0:12} measured, 1 benchmark run FAILED  fixed, but large fails"
contains "$T/out" "backfill: 1 measured, 0 already stored, 1 failed"

# Bad input: exit 2, one line naming it, nothing measured.
expect_exit 2 "no operand" "$PG" backfill
contains "$T/err" "backfill takes a range A..B or revisions (got none)"
expect_exit 2 "backwards range" "${BF[@]}" "${c[8]}..${c[1]}"
contains "$T/err" "the first commit must be a first-parent ancestor of the second"
expect_exit 2 "unknown revision" "${BF[@]}" no-such-branch
contains "$T/err" "unknown revision 'no-such-branch'"
expect_exit 2 "bad --part" "${BF[@]}" HEAD --part 3/2
contains "$T/err" "--part '3/2': expected I/N with 1 <= I <= N, like 2/4"
finish
