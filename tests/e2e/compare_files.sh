#!/usr/bin/env bash
# perfgate compare on hand-made result documents: verdicts and exit codes,
# exact deltas, every format, thresholds and gates, machines and backends,
# new and vanished benchmarks, -o, GITHUB_STEP_SUMMARY, and the errors.
. "$(dirname "$0")/lib/common.sh"
doc() { python3 "$(dirname "$0")/lib/makedoc.py" "$@"; }
cd "$T"

# Valgrind counts: deterministic, one sample decides.
doc base.json m1 valgrind 1111111111111111111111111111111111111111 -- \
  sort:instructions=1000000 hash:instructions=500000 parse:instructions=200000 gone:instructions=5
doc slower.json m1 valgrind 2222222222222222222222222222222222222222 -- \
  sort:instructions=1030001 hash:instructions=500000 parse:instructions=200000 fresh:instructions=7
doc faster.json m1 valgrind -- sort:instructions=900000 hash:instructions=500000 parse:instructions=200000 gone:instructions=5
doc same.json m1 valgrind -- sort:instructions=1000000 hash:instructions=500000 parse:instructions=200000 gone:instructions=5

# fresh and gone are on one side only: their gating metric cannot be compared.
expect_exit 2 "a benchmark on one side only fails closed" "$PG" compare base.json slower.json
contains "$T/err" "perfgate: gating metric instructions not compared for 2 benchmarks: fresh (not in the baseline), gone (not in the candidate); pass --allow-missing to decide on what was compared"
contains "$T/out" "not gated (2): no gating metric compared for fresh (not in the baseline), gone (not in the candidate)"
expect_exit 1 "regression exits 1 (--allow-missing)" "$PG" compare --allow-missing base.json slower.json
contains "$T/err" "warning: not gated (--allow-missing): 2 benchmarks: fresh (not in the baseline), gone (not in the candidate)"
contains "$T/out" "verdict: regressed -- 1 regressed, 2 unchanged of 3 benchmarks compared; 1 new; 1 vanished"
contains "$T/out" "+3.00%"
contains "$T/out" "+30,001"
contains "$T/out" "new benchmarks, not in the baseline (1): fresh"
contains "$T/out" "vanished benchmarks, not in the candidate (1): gone"
contains "$T/out" "perfgate compare: base.json (111111111111) -> slower.json (222222222222)"
lacks "$T/out" $'\033' "no colour when stdout is not a terminal"
expect_exit 0 "improvement exits 0" "$PG" compare base.json faster.json
contains "$T/out" "verdict: improved -- 1 improved, 3 unchanged of 4 benchmarks compared"
contains "$T/out" "-10.00%"
expect_exit 0 "no change exits 0" "$PG" compare base.json same.json
contains "$T/out" "verdict: unchanged -- 4 unchanged of 4 benchmarks compared"

# JSON: the exact delta, in the shape docs/result-schema.md gives.
expect_exit 1 "json" "$PG" compare --allow-missing --format json base.json slower.json
cp "$T/out" r.json
check "json verdict" [ "$(json r.json "d['verdict']")" = regressed ]
check "json baseline commit" [ "$(json r.json "d['baseline']['commit']")" = 1111111111111111111111111111111111111111 ]
check "json candidate machine" [ "$(json r.json "d['candidate']['machine']")" = m1 ]
check "json sort delta exact" [ "$(json r.json "[m for m in d['benchmarks'][0]['metrics'] if m['name']=='instructions'][0]['delta']")" = 30001 ]
check "json sort delta_pct" [ "$(json r.json "round(d['benchmarks'][0]['metrics'][0]['delta_pct'], 6)")" = 3.0001 ]
check "json sort baseline/candidate" [ "$(json r.json "(d['benchmarks'][0]['metrics'][0]['baseline'], d['benchmarks'][0]['metrics'][0]['candidate'])")" = "(1000000, 1030001)" ]
check "json threshold: the default" [ "$(json r.json "(d['benchmarks'][0]['metrics'][0]['threshold_pct'], d['benchmarks'][0]['metrics'][0]['threshold_source'])")" = "(0.1, 'default')" ]
check "json benchmark verdicts" [ "$(json r.json "[b['verdict'] for b in d['benchmarks']]")" = "['regressed', 'unchanged', 'unchanged']" ]
check "json new/vanished" [ "$(json r.json "(d['new'], d['vanished'])")" = "(['fresh'], ['gone'])" ]
check "json not_gated" [ "$(json r.json "([(m['benchmark'], m['reason']) for m in d['not_gated']], d['gated'])")" = "([('fresh', 'not in the baseline'), ('gone', 'not in the candidate')], 3)" ]

# Thresholds: the command line wins over the manifest, which wins over the default.
expect_exit 0 "--threshold loosens" "$PG" compare --allow-missing --threshold instructions=5% base.json slower.json
contains "$T/out" "verdict: unchanged"
expect_exit 0 "--threshold as a bare number of percent" "$PG" compare --allow-missing -t 3.5 base.json slower.json
doc man.json m1 valgrind -- 'sort:@thresholds={"instructions": "4%"}' sort:instructions=1030001 hash:instructions=500000 parse:instructions=200000
expect_exit 0 "manifest threshold from the candidate's document" "$PG" compare --allow-missing base.json man.json
contains "$T/out" "4%"
expect_exit 1 "--threshold beats the manifest" "$PG" compare --allow-missing -t instructions=2% base.json man.json
expect_exit 2 "bad --threshold" "$PG" compare --threshold instructions=lots base.json slower.json
contains "$T/err" "perfgate: --threshold instructions=lots: 'lots' is not a percentage"

# Noisy metrics (perf): significance with few and many samples.
doc p0.json m2 perf -- a:cycles=100,101,99,100.5,99.5 a:instructions=5000,5000,5000,5000,5000 \
  b:cycles=100,130,80,120,90 b:instructions=7000,7000,7000,7000,7000 c:cycles=100,100 c:instructions=1,1
doc p1.json m2 perf -- a:cycles=110,111,109,110.5,109.5 a:instructions=5000,5000,5000,5000,5000 \
  b:cycles=110,95,140,85,125 b:instructions=7000,7000,7000,7000,7000 c:cycles=120,121 c:instructions=1,1
expect_exit 1 "a gate named by another name of a metric gates it" "$PG" compare --gate cpu-cycles p0.json p1.json
contains "$T/out" "gating on cycles"
expect_exit 1 "gate on cycles: a separated +10% regresses" "$PG" compare --gate cycles --format json p0.json p1.json
cp "$T/out" p.json
check "a regressed with p < 0.05" [ "$(json p.json "(d['benchmarks'][0]['verdict'], d['benchmarks'][0]['metrics'][0]['p_adjusted'] < 0.05)")" = "('regressed', True)" ]
check "b: noisy, inconclusive" [ "$(json p.json "d['benchmarks'][1]['verdict']")" = inconclusive ]
check "c: 2 samples, inconclusive" [ "$(json p.json "d['benchmarks'][2]['verdict']")" = inconclusive ]
check "identical repeats are deterministic" [ "$(json p.json "[m['deterministic'] for m in d['benchmarks'][0]['metrics'] if m['name']=='instructions'][0]")" = True ]
expect_exit 0 "default gate instructions: unchanged" "$PG" compare p0.json p1.json
contains "$T/out" "verdict: unchanged"
expect_exit 2 "bad --gate" "$PG" compare --gate , p0.json p1.json
contains "$T/err" "--gate ','"

# Machines and backends are never mixed silently.
expect_exit 2 "different machines refused" "$PG" compare base.json p1.json
contains "$T/err" "were measured on different machines or backends"
contains "$T/err" "--allow-cross-machine"
expect_exit 2 "--allow-cross-machine: nothing in common to gate" "$PG" compare --allow-cross-machine base.json p1.json
contains "$T/err" "no gating metric (instructions) was compared for any benchmark"
expect_exit 2 "--allow-missing does not make nothing compared a pass" "$PG" compare --allow-missing --allow-cross-machine base.json p1.json
contains "$T/out" "different machines"
contains "$T/out" "verdict: inconclusive"
# One machine, two backends: as incomparable as two machines.
doc vm1.json m1 valgrind -- a:instructions=5000
doc pm1.json m1 perf -- a:instructions=5300 a:instructions=5300 a:instructions=5300
expect_exit 2 "same machine, different backends refused" "$PG" compare vm1.json pm1.json
contains "$T/err" "were measured on different machines or backends"
doc v.json m3 valgrind -- a:instructions=5000 a:cycles=100
expect_exit 2 "perf vs valgrind instructions not compared: nothing gated" "$PG" compare --allow-cross-machine --format json p0.json v.json
contains "$T/err" "a (instructions not compared: measured by perf in the baseline, by valgrind in the candidate)"
cp "$T/out" y.json
check "perf vs valgrind: note" python3 -c "import json,sys; d=json.load(open('y.json')); m=[m for m in d['benchmarks'][0]['metrics'] if m['name']=='instructions'][0]; sys.exit(not ('by perf in the baseline, by valgrind in the candidate' in m['note'] and m['verdict']=='inconclusive' and d['verdict']=='inconclusive'))"

expect_exit 2 "--backend keeps only that backend's results" "$PG" compare --backend perf base.json slower.json
contains "$T/err" "no results measured by the perf backend for base.json"
expect_exit 0 "--backend perf on perf results" "$PG" compare --backend perf p0.json p1.json

# Failures are said, not hidden.
doc f.json m1 valgrind -- 'sort:!killed by signal 11 (SIGSEGV)' hash:instructions=500000 parse:instructions=200000
expect_exit 2 "failed benchmark: fails closed" "$PG" compare base.json f.json
contains "$T/err" "sort (failed in the candidate: killed by signal 11 (SIGSEGV))"
expect_exit 0 "failed benchmark with --allow-missing: inconclusive" "$PG" compare --allow-missing base.json f.json
contains "$T/out" "failed in the candidate: killed by signal 11 (SIGSEGV)"
contains "$T/out" "verdict: inconclusive"

# Formats, -o, GITHUB_STEP_SUMMARY.
expect_exit 1 "markdown" "$PG" compare --format markdown --allow-missing base.json slower.json
contains "$T/out" "### perfgate: :red_circle: regressed"
contains "$T/out" "| sort | instructions (gate) | 1,000,000 | 1,030,001 | +3.00% (+30,001) | 0.1% | **regressed** |"
contains "$T/out" "<details><summary>All benchmarks and metrics (3 benchmarks)</summary>"
contains "$T/out" "**Not gated (2):** fresh (not in the baseline), gone (not in the candidate)"
expect_exit 1 "junit" "$PG" compare --format junit --allow-missing base.json slower.json
contains "$T/out" '<testsuites name="perfgate" tests="5" failures="1"'
contains "$T/out" '<testcase name="sort" classname="perfgate.benchmarks">'
check "junit is well-formed XML" python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$T/out"
expect_exit 1 "-o writes the file" "$PG" compare --format json --allow-missing -o report.json base.json slower.json
check "-o: nothing on stdout" [ ! -s "$T/out" ]
check "-o: the report" [ "$(json report.json "d['verdict']")" = regressed ]
check "-o: no temporary left" [ "$(ls -a | grep -c '^\.report\|report.json.tmp')" = 0 ]
expect_exit 2 "-o into a missing directory" "$PG" compare --allow-missing -o nodir/r.txt base.json slower.json
check "-o failure leaves no file" [ ! -e nodir ]
echo "# earlier step" > summary.md
GITHUB_STEP_SUMMARY=$T/summary.md expect_exit 1 "GITHUB_STEP_SUMMARY appended" "$PG" compare --allow-missing base.json slower.json
contains summary.md "# earlier step"
contains summary.md "### perfgate: :red_circle: regressed"
contains "$T/out" "verdict: regressed"
expect_exit 2 "bad --format" "$PG" compare --format html base.json slower.json
contains "$T/err" "--format: expected text, markdown, json or junit, got 'html'"

# Arguments and inputs.
expect_exit 2 "one argument" "$PG" compare base.json
contains "$T/err" "compare takes two revisions or result files"
echo '{"nope": 1}' > bad.json
expect_exit 2 "not a result document" "$PG" compare base.json bad.json
contains "$T/err" "bad.json: not a perfgate result document"
# The two files are read at once: with both bad, the first is the one named.
echo '{"nope": 2} x' > trail.json
expect_exit 2 "both sides bad: the first named" "$PG" compare trail.json bad.json
contains "$T/err" "corrupt result file (move it away or delete it): trail.json:1:14: invalid JSON"
lacks "$T/err" "bad.json"
expect_exit 2 "neither file nor revision outside git" "$PG" compare base.json no-such-thing
contains "$T/err" "'no-such-thing' is neither a result file nor a revision"

finish
