#!/usr/bin/env bash
# Stacks in git notes (refs/notes/perfgate-stacks, docs/notes.md): clone A
# runs two commits with --sample --notes-stacks under valgrind and pushes;
# clone B, which has no local store, fetches and compares them with function
# tables and differential flamegraphs from the stacks note alone. A
# benchmark's stacks over the size limit stay in A's store, and perfgate says
# so. The notes commits say what they added (git log).
. "$(dirname "$0")/lib/common.sh"
require valgrind cc
NOTES=refs/notes/perfgate
STACKS=refs/notes/perfgate-stacks
O=$T/origin.git
git init -q --bare -b main "$O"
make_bench_repo "$T/seed" "{ \"build\": \"cc -O1 -g -fno-inline $(static_flag) -o bench/prog bench/prog.c\",
  \"benchmarks\": [ { \"name\": \"mixer\", \"command\": [\"./prog\", \"mix\"] },
                    { \"name\": \"wide\",  \"command\": [\"./prog\", \"wide\"] } ] }"
write_prog() {  # MIX_N
  cat > "$T/seed/bench/prog.c" <<C
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) static unsigned long mix(unsigned long x, long n)
{
    for (long i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
    return x;
}
#define W(k) __attribute__((noinline)) static unsigned long wide_function_number_##k(unsigned long x) { return mix(x, k + $1 / 100); }
W(0) W(1) W(2) W(3) W(4) W(5) W(6) W(7) W(8) W(9)
int main(int argc, char **argv)
{
    unsigned long x = 88172645463325252UL;
    if (argc > 1 && !strcmp(argv[1], "mix")) {
        x = mix(x, $1);
    } else {
        x = wide_function_number_0(x) + wide_function_number_1(x) + wide_function_number_2(x) + wide_function_number_3(x) +
            wide_function_number_4(x) + wide_function_number_5(x) + wide_function_number_6(x) + wide_function_number_7(x) +
            wide_function_number_8(x) + wide_function_number_9(x);
    }
    printf("%lu\n", x & 0xff);
    return 0;
}
C
}
commit() { git -C "$T/seed" add -A && git -C "$T/seed" commit -q -m "$1" && git -C "$T/seed" rev-parse HEAD; }
write_prog 100000; c0=$(commit "benchmark")
write_prog 103000; c1=$(commit "mix: 3% more iterations")
git -C "$T/seed" push -q "$O" main
clone_as "$O" "$T/A" "$T/B"

cd "$T/A"
measure() { "$PG" run --backend valgrind --no-native --repeat 1 --warmup 0 --sample "$@" bench/; }
# The size of wide's folded stacks sets a limit between the two benchmarks'.
git checkout -q "$c0"
expect_exit 2 "--notes-stacks without --sample" "$PG" run --notes-stacks bench/
contains "$T/err" "--notes-stacks puts the stacks of --sample in git notes: it needs --sample, and not --no-notes"
expect_exit 2 "compare --notes-stacks without --run-missing" "$PG" compare "$c0" "$c1" --sample --notes-stacks
contains "$T/err" "it needs --run-missing and --sample (or --flamegraph), and not --no-notes"
expect_exit 0 "run c0 without stacks in notes" measure
contains "$T/err" "logs and stacks stay in the local store"
lacks "$T/err" "$STACKS"
check "no stacks note without the opt-in" [ -z "$(git for-each-ref $STACKS)" ]
size() { wc -c < "$(ls .perfgate/stacks/"$1"/*/*/"$2".folded | tail -1)"; }
mixer_size=$(size "$c0" mixer); wide_size=$(size "$c0" wide)
check "wide has more stacks than mixer ($wide_size > $mixer_size bytes)" [ "$wide_size" -gt "$mixer_size" ]
limit=$(( (mixer_size + wide_size) / 2 ))
kib() { awk -v b="$1" 'BEGIN { printf "%.1f KiB", b / 1024 }'; }
git config perfgate.notesStacksMax $limit
expect_exit 0 "run c0 with --notes-stacks" measure --notes-stacks
contains "$T/err" "logs stay in the local store"
contains "$T/err" "notes: stacks over the $(kib $limit) limit for notes stay in the local store only: 'wide' ($(kib $wide_size))"
contains "$T/err" "notes: stacks of 1 benchmark added to $STACKS on ${c0:0:12}"
git checkout -q "$c1"
git config --unset perfgate.notesStacksMax
git config perfgate.notesStacks true
expect_exit 0 "run c1 with perfgate.notesStacks" measure
contains "$T/err" "notes: stacks of 2 benchmarks added to $STACKS on ${c1:0:12}"
check "the results note holds no folded text" [ -z "$(git notes --ref $NOTES show "$c1" | grep -F 'mix ')" ]
git notes --ref $STACKS show "$c1" > "$T/snote"
contains "$T/snote" ';mix ' "the stacks note of c1 holds mix's stacks"
stacks_tip=$(git rev-parse $STACKS)
echo changed >> README
expect_exit 0 "a dirty run with stacks in notes" measure --notes-stacks --filter mixer
contains "$T/err" "not added to $NOTES: the work tree was dirty"
check "a dirty run adds no stacks note" [ "$(git rev-parse $STACKS)" = "$stacks_tip" ]
git checkout -q README
git log --format=%s $NOTES > "$T/log"
contains "$T/log" "perfgate: run "
check "results notes log: one line per run, commit and host ($(head -1 "$T/log"))" \
  [ "$(grep -cE "^perfgate: run [^ ]+ of (${c0:0:12}|${c1:0:12}) on .* \(machine [0-9a-f]{12}, valgrind, 2 benchmarks\)$" "$T/log")" = 3 ]
git log --format=%s $STACKS > "$T/slog"
check "stacks notes log: the two runs with stacks ($(head -1 "$T/slog"))" \
  [ "$(grep -cE "^perfgate: stacks of run [^ ]+ of ${c0:0:12} on .* \(machine [0-9a-f]{12}, valgrind, 1 of 2 benchmarks\)$" "$T/slog"):$(grep -cE "^perfgate: stacks of run [^ ]+ of ${c1:0:12} on .* \(machine [0-9a-f]{12}, valgrind, 2 benchmarks\)$" "$T/slog")" = 1:1 ]
expect_exit 0 "A pushes" "$PG" push
contains "$T/out" "$NOTES -> origin (push 1)"
contains "$T/out" "$STACKS -> origin (push 1)"

# B measured c1 too (no stacks in notes), so its notes diverge from origin's:
# fetch merges them and says so in the merge commit.
cd "$T/B"
git checkout -q "$c1"
expect_exit 0 "B runs c1 (natively: cheap)" "$PG" run --backend perf --no-pin --repeat 1 --warmup 0 --store "$T/Bstore" bench/
expect_exit 0 "B fetches" "$PG" fetch
contains "$T/out" "origin notes merged into $NOTES"
contains "$T/out" "origin stacks merged into $STACKS"
check "B's merge commit says what it added" \
  [ "$(git log -1 --format=%s $NOTES)" = "perfgate: merge notes from origin: 3 runs added" ]
check "B's stacks ref is origin's (a fast-forward)" [ "$(git rev-parse $STACKS)" = "$(git -C "$O" rev-parse $STACKS)" ]

expect_exit 0 "B pushes: results, then stacks (nothing new there)" "$PG" push
contains "$T/out" "$NOTES -> origin (push 1)"
contains "$T/out" "origin already has every note of $STACKS"
check "origin's results note of c1 has A's and B's runs" \
  [ "$(git -C "$O" notes --ref $NOTES show "$c1" | grep -cE '"id":[[:space:]]*"[0-9]{4}-')" = 2 ]

# B compares A's runs: their stacks paths are A's store's, the stacks note has them.
git checkout -q main
expect_exit 1 "B compares c0 c1 from the notes" "$PG" compare "$c0" "$c1" --backend valgrind --flamegraph "$T/fg"
contains "$T/out" "mixer: self cost by function (instructions), largest changes"
check "the function table names mix" grep -qE "^    mix +[0-9,]+ +[0-9,]+ +\+[0-9,]+ " "$T/out"
check "the diff flamegraph is written" [ -s "$T/fg/mixer.diff.svg" ]
contains "$T/fg/mixer.diff.svg" ">mix<" "the diff flamegraph names mix"
check "the stacks were written under the store's notes-stacks/" \
  [ "$(find .perfgate/notes-stacks -name 'mixer.folded' | wc -l)" = 2 ]
lacks "$T/err" "mixer: no function breakdown"
# wide's stacks of c0 stayed in A's store: compare goes on without them.
check "wide regressed too" grep -qE "^wide .* regressed$" "$T/out"
contains "$T/err" "wide: no function breakdown"
lacks "$T/out" "wide: self cost by function"

# Without the stacks note (git fetch of the results ref only), as before:
# compare says it cannot read the stacks and goes on.
git clone -q "$O" "$T/C"
cd "$T/C"
git fetch -q origin "$NOTES:$NOTES"
expect_exit 1 "C compares without the stacks note" "$PG" compare "$c0" "$c1" --backend valgrind
contains "$T/err" "mixer: no function breakdown"
lacks "$T/out" "self cost by function"
check "nothing materialised without the stacks note" [ ! -e .perfgate/notes-stacks ]
finish
