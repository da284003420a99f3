#!/usr/bin/env bash
# Counts beside time: with the valgrind backend `run` also measures each
# benchmark natively (task-clock, wall-time), and `compare` says when the
# gating count and the native time disagree. A real repository whose second
# commit replaces a cache-missing pointer chase with a longer scan of a block
# the cache keeps: instructions go up (+140%, exact) while the time falls
# about tenfold (the chase waits for memory at every step). Nothing here
# asserts a time: only that six native runs a side separate (any ordering
# where most fast runs beat most slow ones is significant), which a tenfold
# gap keeps true on a busy machine; the rule itself is unit-tested on fixed
# samples (tests/unit/test_divergence.c). Only the chase touches the 64 MiB:
# when both did, whether the kernel had huge pages to give (not when the
# suite's load fragments memory) decided 16,384 page faults of the scan's
# time, and some scans took as long as chases (ci/test-under-load.sh: the
# divergence not significant, Mann-Whitney p=0.065 for 6 against 6 runs).
. "$(dirname "$0")/lib/common.sh"
require valgrind cc

R=$T/repo
make_bench_repo "$R" '{ "build": "cc -O1 -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "walk", "command": ["./prog"] } ] }'
write_prog() {  # LOOP
  cat > "$R/bench/prog.c" <<C
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#define N (8UL << 20)   /* 64 MiB: beyond the last-level cache */
int main(void)
{
    /* Huge pages where the kernel gives them: 32 page faults, not 16,384. */
    unsigned long *a = aligned_alloc(2UL << 20, N * sizeof *a), x = 88172645463325252UL, s = 0;
    if (!a)
        return 1;
    madvise(a, N * sizeof *a, MADV_HUGEPAGE);
    $1
    printf("%lu\n", (x ^ s) & 0xff);
    return 0;
}
C
}
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
# Each address depends on the value loaded before: one cache miss at a time.
write_prog 'for (unsigned long i = 0; i < N; i += 512) a[i] = i;     /* every page its own */
    for (long k = 0; k < 400000; k++) x = x * 6364136223846793005UL + 1442695040888963407UL + a[(x >> 29) & (N - 1)];'
c0=$(commit "pointer chase")
# More instructions, all in a 32 KiB block (the rest of the array untouched).
write_prog 'for (unsigned long k = 0; k < 4096; k++) a[k] = k;
    for (unsigned long k = 0; k < 1000000; k++) s += a[k & 4095] ^ k;'
c1=$(commit "sequential scan")

cd "$R"
for c in $c0 $c1; do
  git checkout -q "$c"
  expect_exit 0 "run ${c:0:7}" "$PG" run --backend valgrind --repeat 1 --warmup 0 --native-repeat 6 bench/
done
git checkout -q main
contains "$T/out" "task-clock" "run's table shows the native task-clock"

doc() { ls "$R/.perfgate/results/$1/"*.json; }
d0=$(doc "$c0"); d1=$(doc "$c1")
check "stored: settings.native true" [ "$(json "$d0" "d['runs'][0]['settings']['native']")" = True ]
check "stored: one exact instructions sample, by valgrind" \
  [ "$(json "$d0" "(lambda m: (m['backend'], len(m['samples'])))(d['runs'][0]['benchmarks'][0]['metrics']['instructions'])")" = "('valgrind', 1)" ]
check "stored: six native task-clock samples, by perf" \
  [ "$(json "$d0" "(lambda m: (m['backend'], m['unit'], len(m['samples'])))(d['runs'][0]['benchmarks'][0]['metrics']['task-clock'])")" = "('perf', 'ns', 6)" ]
check "stored: wall-time is the native one" \
  [ "$(json "$d0" "(lambda m: (m['backend'], len(m['samples'])))(d['runs'][0]['benchmarks'][0]['metrics']['wall-time'])")" = "('perf', 6)" ]
check "stored: runs counts valgrind's run" [ "$(json "$d0" "d['runs'][0]['benchmarks'][0]['runs']")" = 1 ]

# Instructions up: regressed (exit 1), and the divergence said in every format.
expect_exit 1 "chase -> scan: instructions regressed" "$PG" compare "$c0" "$c1" --allow-apart --format json
cp "$T/out" div.json
check "json: divergence opposite, instructions up, task-clock down, significant" \
  [ "$(json div.json "(lambda v: (v['kind'], v['count']['name'], v['count']['delta_pct'] > 100, v['time']['name'], v['time']['backend'], v['time']['delta_pct'] < -50, v['p_adjusted'] < 0.05, v['p'] <= v['p_adjusted']))(d['benchmarks'][0]['divergence'])")" \
    = "('opposite', 'instructions', True, 'task-clock', 'perf', True, True, True)" ]
check "json: exact instruction delta in the divergence" \
  [ "$(json div.json "d['benchmarks'][0]['divergence']['count']['delta'] == d['benchmarks'][0]['metrics'][0]['delta']")" = True ]
check "json: one divergence, not failing" [ "$(json div.json "(d['divergences'], d['fail_on_divergence'])")" = "(1, False)" ]
expect_exit 1 "text" "$PG" compare "$c0" "$c1" --allow-apart
check "text: the divergence line" grep -qE "^ +divergence: instructions \+[0-9.]+% \(\+[0-9,]+\) but task-clock -[0-9.]+% \(-[0-9.]+ ms\): opposite directions \(Mann-Whitney p=" "$T/out"
contains "$T/out" "; 1 divergence of counts and time"
expect_exit 1 "markdown" "$PG" compare "$c0" "$c1" --allow-apart --format markdown
contains "$T/out" "**Counts and time diverge** (docs/metrics.md):"
contains "$T/out" "- walk: instructions +"
expect_exit 1 "junit" "$PG" compare "$c0" "$c1" --allow-apart --format junit
contains "$T/out" "divergence: instructions +"

# Gating on it. The count gate passes (a loose instructions threshold); the
# divergence alone fails the comparison only when asked to.
expect_exit 0 "divergence without --fail-on-divergence: exit 0" "$PG" compare "$c0" "$c1" --allow-apart --threshold instructions=1000%
contains "$T/out" "divergence: instructions +"
expect_exit 1 "--fail-on-divergence: exit 1" "$PG" compare "$c0" "$c1" --allow-apart --threshold instructions=1000% --fail-on-divergence --format junit
contains "$T/out" '<failure type="divergence" message="divergence: instructions +'
# The other way round instructions improve and time regresses: exit 0 on
# the count gate, 1 when task-clock gates too.
expect_exit 0 "scan -> chase: improved on instructions" "$PG" compare "$c1" "$c0" --allow-apart
contains "$T/out" "but task-clock +"
expect_exit 1 "--gate instructions,task-clock: the time regression fails" "$PG" compare "$c1" "$c0" --allow-apart --gate instructions,task-clock
contains "$T/out" "gating on instructions,task-clock"

# A document from before native runs: valgrind's wall-time is never set
# against the native one, and no divergence can be claimed.
python3 - "$d0" old.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
run["settings"].pop("native")
m = run["benchmarks"][0]["metrics"]
for k in ("task-clock", "page-faults", "context-switches", "cpu-migrations", "max-rss"):
    m.pop(k)
m["wall-time"] = {"unit": "ns", "backend": "valgrind", "samples": [1.5e9], "running": [1]}
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 1 "old document against a new one" "$PG" compare old.json "$d1" --format json
check "old vs new: wall-time not compared across what measured it" \
  [ "$(json "$T/out" "[m['note'] for m in d['benchmarks'][0]['metrics'] if m['name'] == 'wall-time'][0]")" = "not compared: measured by valgrind in the baseline, by perf in the candidate" ]
check "old vs new: no divergence" [ "$(json "$T/out" "(d['divergences'], d['benchmarks'][0]['divergence'])")" = "(0, None)" ]

# --no-native: valgrind alone, as before.
expect_exit 0 "run --no-native" "$PG" run --backend valgrind --no-native --no-store --format json -- "$PROGS/work"
check "--no-native: settings.native false, no task-clock, valgrind's wall-time" \
  [ "$(json "$T/out" "(d['settings']['native'], 'task-clock' in d['benchmarks'][0]['metrics'], d['benchmarks'][0]['metrics']['wall-time']['backend'])")" = "(False, False, 'valgrind')" ]
finish
