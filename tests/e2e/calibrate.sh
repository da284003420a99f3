#!/usr/bin/env bash
# Calibration and confirmation on a real git repository:
#   - `perfgate calibrate` measures A/A pairs and writes thresholds.json keyed
#     by machine and backend, which `compare` then uses (threshold_source
#     "calibration") where neither --threshold nor the manifest sets one;
#   - compare warns when the threshold in force is below the measured floor;
#   - bad input: a damaged thresholds.json, bad options;
#   - `compare --run-missing` on a regression of a noisy gating metric
#     (task-clock, a benchmark doing 30,000 times the work) measures both
#     revisions again, interleaved, and reports both rounds.
# Verdicts on time are asserted only where the work differs 30,000-fold (about
# ten times the time of a process's start-up); no timing value is asserted.
. "$(dirname "$0")/lib/common.sh"
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }

R=$T/repo
make_repo "$R"
mkdir -p "$R/bench"
# The work size is the revision's (bench/n, committed): --run-missing applies
# today's manifest to every revision (docs/manifest.md).
manifest() {  # N [THRESHOLDS]
  echo "$1" > "$R/bench/n"
  printf '{ "benchmarks": [ { "name": "work", "command": ["sh", "-c", "exec %s $(cat n)"]%s } ] }\n' "$PROGS/work" "${2:+, \"thresholds\": $2}" \
    > "$R/bench/perfgate.json"
}
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
# the manifest sets branch-misses' threshold only: instructions' comes from the calibration
manifest 20000 '{ "branch-misses": "0.2%" }'; c0=$(commit "benchmark")
cd "$R"

# --- calibrate: 2 valgrind runs, then one `run` ---------------------------
expect_exit 2 "calibrate: a bad option" "$PG" calibrate --pairs 0
contains "$T/err" "--pairs"
expect_exit 2 "calibrate: no such directory" "$PG" calibrate --backend valgrind nosuchdir
expect_exit 0 "calibrate" "$PG" calibrate --backend valgrind --pairs 1
th=.perfgate/thresholds.json
check "calibrate writes $th" [ -s "$th" ]
contains "$T/out" "1 A/A pair of 1 run a side"
contains "$T/out" "written to $R/.perfgate/thresholds.json"
contains "$T/out" "work: \"thresholds\": { \"instructions\": \""
machine=$(json "$th" "list(d['machines'])[0]")
check "keyed by machine and backend" [ "$(json "$th" "sorted(d['machines']['$machine'])")" = "['valgrind']" ]
entry="d['machines']['$machine']['valgrind']"
check "the calibration names its commit and pairs" [ "$(json "$th" "($entry['commit'], $entry['pairs'], $entry['repeat'])")" = "('$c0', 1, 1)" ]
inst=$(json "$th" "$entry['benchmarks']['work']['instructions']['threshold_pct']")
check "the suggestion is at least 0.01% and twice the floor" \
  json "$th" "(lambda x: x['threshold_pct'] >= max(0.01, 2 * x['floor_pct']) or sys.exit(1))($entry['benchmarks']['work']['instructions'])"

# compare uses it where nothing else sets a threshold
expect_exit 0 "run" "$PG" run --backend valgrind
expect_exit 0 "compare HEAD HEAD" "$PG" compare HEAD HEAD --format json
cp "$T/out" cal.json
m0="d['benchmarks'][0]['metrics'][0]"
check "compare uses the calibrated threshold" [ "$(json cal.json "($m0['name'], $m0['threshold_source'], $m0['threshold_pct'])")" = "('instructions', 'calibration', $inst)" ]
check "compare reports the floor" json cal.json "'noise_floor_pct' in $m0 or sys.exit(1)"
lacks "$T/err" "noise floor"
expect_exit 0 "--threshold wins over the calibration" "$PG" compare HEAD HEAD --format json --threshold instructions=3%
check "command line source" [ "$(json "$T/out" "$m0['threshold_source']")" = "command line" ]

# thresholds in force below the floor: a warning each, naming the source
python3 - "$th" "$machine" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["machines"][sys.argv[2]]["valgrind"]["benchmarks"]["work"]
b["instructions"] = {"floor_pct": 0.5, "threshold_pct": 1}
b["branch-misses"] = {"floor_pct": 0.5, "threshold_pct": 1}
json.dump(d, open(sys.argv[1], "w"))
PY
expect_exit 0 "compare: threshold below the floor" "$PG" compare HEAD HEAD --threshold instructions=0.1%
contains "$T/err" "warning: work: instructions threshold 0.1% (from --threshold) is below the noise floor perfgate calibrate measured on this machine, 0.5%"
check "one warning line: only gating metrics" [ "$(grep -c 'noise floor' "$T/err")" = 1 ]
expect_exit 0 "compare: the calibrated threshold is not below its floor" "$PG" compare HEAD HEAD
lacks "$T/err" "noise floor"
expect_exit 0 "compare: the manifest's threshold below the floor" "$PG" compare HEAD HEAD --gate instructions,branch-misses
contains "$T/err" "warning: work: branch-misses threshold 0.2% (from the manifest) is below the noise floor"

# a damaged thresholds.json is an error naming it; calibrate refuses it before measuring
echo '{"schema": "perfgate-thresholds/1", "machines": {"'"$machine"'": {"valgrind": {"benchmarks": {"work": {"instructions": {"floor_pct": "x"}}}}}}}' > "$th"
expect_exit 2 "compare: damaged thresholds.json" "$PG" compare HEAD HEAD
contains "$T/err" "thresholds.json: machines.$machine.valgrind.benchmarks.work.instructions: finite numbers floor_pct and threshold_pct"
echo '[1]' > "$th"
expect_exit 2 "calibrate: not a thresholds document" "$PG" calibrate --backend valgrind --pairs 1
contains "$T/err" "calibration not saved: $R/.perfgate/thresholds.json: not a perfgate thresholds document"
lacks "$T/out" "A/A pair" "nothing measured"
check "the damaged file is kept as it was" [ "$(cat "$th")" = "[1]" ]
rm "$th"

# --- native runs: --no-write, and confirmation with --run-missing ---------
if ! "$PG" run --backend perf --no-store --repeat 1 -- "$PROGS/work" 10 >/dev/null 2>&1; then
  echo "the perf backend cannot count software events here: confirmation not tested"
  finish
fi
expect_exit 0 "calibrate --no-write" "$PG" calibrate --backend perf --pairs 1 --repeat 1 --warmup 0 --no-write
contains "$T/out" "task-clock"
check "--no-write writes no thresholds.json" [ ! -e "$th" ]

# A task-clock regression (30,000 times the work: ~0.13 s against a process start-up) is measured again and confirmed.
manifest 1000;     a=$(commit "small")
manifest 30000000; b=$(commit "30,000 times the work")
expect_exit 1 "--run-missing: regressed on task-clock, confirmed" \
  "$PG" compare "$a" "$b" --run-missing --backend perf --gate task-clock --repeat 6 --format json
cp "$T/out" conf.json
contains "$T/err" "1 benchmark regressed on noisy metrics only: measuring both revisions again, interleaved, to confirm"
contains "$T/err" "measuring ${a:0:12} (again, to confirm)"
check "json: one benchmark remeasured" [ "$(json conf.json "d['remeasured']")" = 1 ]
check "json: both rounds, confirmed" [ "$(json conf.json "(d['verdict'], d['benchmarks'][0]['confirmation']['confirmed'], [r['verdict'] for r in d['benchmarks'][0]['confirmation']['rounds']])")" = "('regressed', True, ['regressed', 'regressed'])" ]
check "json: round 2 has samples of its own" [ "$(json conf.json "[(m['name'], m['baseline_samples'], m['candidate_samples']) for m in d['benchmarks'][0]['confirmation']['rounds'][1]['metrics']]")" = "[('task-clock', 6, 6)]" ]
check "json: round 1 is the first measurement" [ "$(json conf.json "(d['benchmarks'][0]['metrics'][0]['name'], d['benchmarks'][0]['metrics'][0]['baseline_samples'])")" = "('task-clock', 6)" ]
runs=$(python3 -c "import json,glob; print(len(json.load(open(glob.glob('.perfgate/results/$b/*.json')[0]))['runs']))")
check "both rounds are stored: 2 runs of $b (got $runs)" [ "$runs" = 2 ]
finish
