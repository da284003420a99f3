#!/usr/bin/env bash
# --metrics and the manifest's "metrics": with the valgrind backend, asking
# for instructions alone leaves out cachegrind's cache and branch simulations.
# The instruction counts are exactly the default mode's; the metrics that were
# not measured are absent (never a zero); the document names what was asked
# for. Unknown names are usage errors with a suggestion.
. "$(dirname "$0")/lib/common.sh"
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }
cd "$T"
metrics() { json "$1" "' '.join(sorted(d['benchmarks'][$2]['metrics']))"; }
samples() { json "$1" "d['benchmarks'][$2]['metrics']['$3']['samples']"; }

# One benchmark, the default mode and instructions only.
expect_exit 0 "default mode" "$PG" run --backend valgrind --no-store --format json -- "$PROGS/work" 30000
cp "$T/out" all.json
expect_exit 0 "--metrics instructions" "$PG" run --backend valgrind --no-store --format json --metrics instructions -- "$PROGS/work" 30000
cp "$T/out" ir.json
check "default: the three mission metrics, valgrind's own and the native runs' ($(metrics all.json 0))" \
  [ "$(metrics all.json 0)" = "Bc Bcm Bi Bim D1mr D1mw DLmr DLmw Dr Dw I1mr ILmr Ir branch-misses cache-misses context-switches cpu-migrations instructions max-rss page-faults task-clock wall-time" ]
check "instructions only: no cache or branch metric, not even as 0 ($(metrics ir.json 0))" \
  [ "$(metrics ir.json 0)" = "Ir instructions max-rss wall-time" ]
check "instructions only: the exact count of the default mode ($(samples all.json 0 instructions))" \
  [ "$(samples ir.json 0 instructions)" = "$(samples all.json 0 instructions)" ]
check "the document says what was asked for" [ "$(json ir.json "d['benchmarks'][0]['selected_metrics']")" = "['instructions']" ]
check "the default document asks for nothing in particular" [ "$(json all.json "'selected_metrics' in d['benchmarks'][0]")" = False ]
# The text table shows what was measured, nothing for the rest.
expect_exit 0 "--metrics Ir (an alias), text" "$PG" run --backend valgrind --no-store --metrics Ir -- "$PROGS/work" 30000
contains "$T/out" "instructions"
lacks "$T/out" "cache-misses"
lacks "$T/out" "branch-misses"

# Branch simulation alone, from a manifest: "defaults" and a benchmark's own key (which wins).
mkdir m
cat > m/perfgate.json <<JSON
{ "defaults": { "metrics": ["instructions", "branch-misses"] },
  "benchmarks": [
    { "name": "branches", "command": ["$PROGS/work", "30000"] },
    { "name": "caches", "command": ["$PROGS/work", "30000"], "metrics": ["cache-misses"] } ] }
JSON
expect_exit 0 "manifest metrics" "$PG" run --backend valgrind --no-store --format json m
cp "$T/out" man.json
check "defaults.metrics: branch simulation only ($(metrics man.json 0))" \
  [ "$(metrics man.json 0)" = "Bc Bcm Bi Bim Ir branch-misses instructions max-rss wall-time" ]
check "a benchmark's metrics win: cache simulation only ($(metrics man.json 1))" \
  [ "$(metrics man.json 1)" = "D1mr D1mw DLmr DLmw Dr Dw I1mr ILmr Ir cache-misses instructions max-rss wall-time" ]
# The command line wins over the manifest; asking for all three mission
# metrics is the default mode (with every simulation).
expect_exit 0 "--metrics over the manifest" "$PG" run --backend valgrind --no-store --format json \
  --metrics instructions,cache-misses --metrics branch-misses m
cp "$T/out" full.json
# (no native metric chosen: no native runs, valgrind's own wall-time kept)
vg_all="Bc Bcm Bi Bim D1mr D1mw DLmr DLmw Dr Dw I1mr ILmr Ir branch-misses cache-misses instructions max-rss wall-time"
check "--metrics wins: every simulation for both" [ "$(json full.json "[' '.join(sorted(b['metrics'])) for b in d['benchmarks']]")" = "['$vg_all', '$vg_all']" ]
check "defaults.metrics: the default mode's branch-misses" [ "$(samples man.json 0 branch-misses)" = "$(samples full.json 0 branch-misses)" ]
check "benchmark metrics: the default mode's cache-misses" [ "$(samples man.json 1 cache-misses)" = "$(samples full.json 1 cache-misses)" ]
check "and the same instructions" [ "$(json man.json "[b['metrics']['instructions']['samples'] for b in d['benchmarks']]")" = "$(json full.json "[b['metrics']['instructions']['samples'] for b in d['benchmarks']]")" ]
check "the document names each benchmark's choice" [ "$(json man.json "[b['selected_metrics'] for b in d['benchmarks']]")" = "[['instructions', 'branch-misses'], ['cache-misses']]" ]

# A comparison of an instructions-only run with a default one: instructions
# compared exactly, the metrics one side lacks listed as not compared.
expect_exit 0 "compare instructions-only against default" "$PG" compare all.json ir.json --format json -o cmp.json
check "compare: instructions unchanged, delta 0" [ "$(json cmp.json "[(m['verdict'], m['delta']) for m in d['benchmarks'][0]['metrics'] if m['name'] == 'instructions']")" = "[('unchanged', 0)]" ]
check "compare: cache-misses not measured in the candidate" [ "$(json cmp.json "[(m['compared'], m['note']) for m in d['benchmarks'][0]['metrics'] if m['name'] == 'cache-misses']")" = "[(False, 'not compared: not measured in the candidate')]" ]

# Unknown names: exit 2, one line, a suggestion; nothing runs.
expect_exit 2 "run --metrics with a typo" "$PG" run --backend valgrind --no-store --metrics instructions,cache-mises -- "$PROGS/work" 10
contains "$T/err" "unknown metric 'cache-mises' (did you mean 'cache-misses'?)"
check "one line" [ "$(wc -l < "$T/err")" = 1 ]
expect_exit 2 "compare --metrics with a typo" "$PG" compare all.json ir.json --run-missing --metrics instrucions
contains "$T/err" "unknown metric 'instrucions' (did you mean 'instructions'?)"
expect_exit 2 "an empty name" "$PG" run --no-store --metrics instructions, -- "$PROGS/work" 10
contains "$T/err" "empty metric name in 'instructions,'"
printf '{"benchmarks": [{"name": "x", "command": ["true"], "metrics": ["instructions", "brnch-misses"]}]}' > m/perfgate.json
expect_exit 2 "manifest metric with a typo" "$PG" run --no-store m
contains "$T/err" "m/perfgate.json: benchmarks[0].metrics[1]: unknown metric 'brnch-misses' (did you mean 'branch-misses'?)"
printf '{"defaults": {"metrics": "instructions"}, "benchmarks": [{"name": "x", "command": ["true"]}]}' > m/perfgate.json
expect_exit 2 "manifest metrics not an array" "$PG" run --no-store m
contains "$T/err" "defaults.metrics: expected a non-empty array of metric names"
finish
