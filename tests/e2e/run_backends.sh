#!/usr/bin/env bash
# Backend choice as a user meets it: auto falls back with one notice, the perf
# backend counts software events on any machine and reports hardware events it
# cannot count in plain words (never as a stored zero), valgrind is exact.
. "$(dirname "$0")/lib/common.sh"
cd "$T"

hw=0
"$PG" doctor > "$T/doctor" 2>&1 || true
grep -q '^  instructions  *ok' "$T/doctor" && hw=1
contains "$T/doctor" "--backend auto chooses:"
contains "$T/doctor" "task-clock"

# The perf backend: software events always; hardware ones when there is a PMU.
expect_exit 0 "perf backend" "$PG" run --backend perf --no-store --repeat 3 --warmup 1 --format json -- "$PROGS/work" 200000
doc=$T/perf.json; cp "$T/out" "$doc"
for m in task-clock page-faults context-switches cpu-migrations wall-time max-rss; do
  check "perf: $m recorded" [ "$(json "$doc" "len(d['benchmarks'][0]['metrics']['$m']['samples'])")" = 3 ]
done
check "perf: every metric says its backend" [ "$(json "$doc" "sorted(set(m['backend'] for m in d['benchmarks'][0]['metrics'].values()))")" = "['perf']" ]
check "perf: settings record the pinned CPU" [ "$(json "$doc" "d['settings']['cpu'] is not None")" = True ]
if [ $hw = 0 ]; then
  check "no PMU: instructions not stored as a zero" [ "$(json "$doc" "'instructions' in d['benchmarks'][0]['metrics']")" = False ]
  check "no PMU: the reason is stored with the fix" [ "$(json "$doc" "any('instructions, cycles, cache-misses, branch-misses: ' in n and 'fix:' in n for n in d['notices'])")" = True ]
  contains "$T/err" "note: the perf backend works in part here: hardware counters unavailable ("
  contains "$T/err" "); counting software events only"
  check "no PMU: said once on stderr" [ "$(grep -c 'hardware' "$T/err")" = 1 ]
else
  check "PMU: instructions counted" [ "$(json "$doc" "min(d['benchmarks'][0]['metrics']['instructions']['samples']) > 1e5")" = True ]
fi

# A forced no-PMU machine (what most CI runners are): auto takes valgrind, says why, once.
if command -v valgrind >/dev/null; then
  expect_exit 0 "auto without a PMU" env PERFGATE_NO_PMU=1 "$PG" run --no-store -- "$PROGS/work" 1000
  check "the note, in one short line, is all of stderr" [ "$(cat "$T/err")" = "perfgate: note: no hardware counters here, using the valgrind backend ('perfgate doctor' says why)" ]
  contains "$T/out" "backend valgrind"
  expect_exit 0 "auto without a PMU, json" env PERFGATE_NO_PMU=1 "$PG" run --no-store --format json -- "$PROGS/work" 1000
  check "the document keeps the long reason" [ "$(json "$T/out" "d['notices'][0]")" = "hardware counters unavailable (PERFGATE_NO_PMU is set); using the valgrind backend (exact instruction counts, simulated caches)" ]
  env PERFGATE_NO_PMU=1 "$PG" doctor > "$T/doctor2" 2>&1
  contains "$T/doctor2" "  because hardware counters unavailable (PERFGATE_NO_PMU is set); using the valgrind backend" "doctor has the long form"
  # Valgrind repeats are exact, 1 run by default, warmup 0.
  expect_exit 0 "valgrind json" "$PG" run --backend valgrind --no-store --repeat 3 --format json -- "$PROGS/work" 5000
  check "valgrind: three identical instruction counts" python3 -c "
import json,sys; d=json.load(open('$T/out')); s=d['benchmarks'][0]['metrics']['instructions']['samples']
sys.exit(not (len(s)==3 and len(set(s))==1))"
  check "valgrind: Ir equals instructions" [ "$(json "$T/out" "d['benchmarks'][0]['metrics']['Ir']['samples'] == d['benchmarks'][0]['metrics']['instructions']['samples']")" = True ]
  check "valgrind: cache-misses = ILmr+DLmr+DLmw" [ "$(json "$T/out" "(lambda m: m['cache-misses']['samples'][0] == m['ILmr']['samples'][0]+m['DLmr']['samples'][0]+m['DLmw']['samples'][0])(d['benchmarks'][0]['metrics'])")" = True ]
  check "valgrind: branch-misses = Bcm+Bim" [ "$(json "$T/out" "(lambda m: m['branch-misses']['samples'][0] == m['Bcm']['samples'][0]+m['Bim']['samples'][0])(d['benchmarks'][0]['metrics'])")" = True ]
  check "valgrind: the benchmark's stdout is not mixed with valgrind's" [ "$(json "$T/out" "d['benchmarks'][0]['status']")" = ok ]
  lacks "$T/err" "warning: L3 cache"

  # valgrind's version is asked once per perfgate: the probe and the meter
  # both open valgrind, and each asked it (a fork and two execs before
  # anything was measured). A stand-in that logs each time it is asked:
  vgbin=$(command -v valgrind); [ -x "$vgbin.bin" ] && vgbin=$vgbin.bin
  printf '#!/bin/sh\n[ "$1" = --version ] && echo asked >> "%s"\nexec "%s" "$@"\n' "$T/vg-asked" "$vgbin" > "$T/vg-logged"
  chmod +x "$T/vg-logged"
  expect_exit 0 "valgrind through a stand-in" env PERFGATE_VALGRIND="$T/vg-logged" "$PG" run --backend valgrind \
    --no-store --repeat 2 --native-repeat 1 --format json -- "$PROGS/work" 1000
  check "valgrind --version asked once in a run" [ "$(wc -l < "$T/vg-asked")" = 1 ]
  check "its version in the machine's description" [ "$(json "$T/out" "d['machine']['backend_version']")" = "$("$vgbin" --version)" ]
  check "its counts" [ "$(json "$T/out" "len(d['benchmarks'][0]['metrics']['instructions']['samples'])")" = 2 ]
fi

# Forcing a backend that cannot work fails clearly, before anything runs.
expect_exit 2 "valgrind forced but missing" env PERFGATE_VALGRIND=/nonexistent/valgrind "$PG" run --backend valgrind --no-store -- "$PROGS/work" 10
contains "$T/err" "the valgrind backend cannot work here: PERFGATE_VALGRIND=/nonexistent/valgrind is not an executable"
expect_exit 2 "bad event with the perf backend" "$PG" run --backend perf --no-store -e cycles,brnch-misses -- "$PROGS/work" 10
contains "$T/err" "unknown event 'brnch-misses'; did you mean 'branch-misses'"
expect_exit 2 "--cpu out of range" "$PG" run --backend perf --no-store --cpu 4096 -- "$PROGS/work" 10
contains "$T/err" "--cpu 4096: this machine has CPUs 0 to"
# Exec failures are a failed benchmark, not a crash of perfgate.
expect_exit 1 "missing program" "$PG" run --backend perf --no-store -- "$T/no-such-program"
contains "$T/out" "FAILED"
finish
