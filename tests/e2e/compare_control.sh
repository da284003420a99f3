#!/usr/bin/env bash
# compare --run-missing --control: the baseline measured twice beside the
# candidate (A A' B, interleaved), stored like any run; the report gives the
# control's largest A/A delta per gating metric in every format. Exact counts
# (valgrind) give a control of exactly 0; a program whose count changes from
# run to run (it loops once more each run, by a counter file) is caught, loudly, as counts
# that do not repeat. With the perf backend, a noisy gate's control is a
# percentage (its value is the machine's business: not asserted). Settling a
# regression within the control's noise: tests/unit/test_control.c.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc
R=$T/repo
make_bench_repo "$R" '{ "build": "cc -O1 '"$(static_flag)"' -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "steady", "command": ["./prog", "steady"] },
                  { "name": "dice",   "command": ["./prog", "dice"] } ] }'
cat > "$R/bench/prog.c" <<C
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    unsigned long n = 200000, x = 88172645463325252UL, k = 0;
    if (argc > 1 && !strcmp(argv[1], "dice")) {     /* a count that never repeats: a few more loops each run */
        FILE *f = fopen("$T/dice.count", "r+");
        if (!f && !(f = fopen("$T/dice.count", "w+")))
            return 3;
        if (fscanf(f, "%lu", &k) != 1)
            k = 0;
        rewind(f);
        fprintf(f, "%lu\\n", k + 1);
        fclose(f);
        n += k;
    }
    for (unsigned long i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
    printf("%lu\\n", x & 1);
    return 0;
}
C
git -C "$R" add -A && git -C "$R" commit -q -m bench
echo "docs" >> "$R/README" && git -C "$R" add -A && git -C "$R" commit -q -m docs
cd "$R"
CMP=("$PG" compare --run-missing --control --backend valgrind --no-native --metrics instructions HEAD~1 HEAD)

# dice's exact counts differ from run to run: A against B differs too (by a
# few dozen loops of 200,000: a 5% threshold keeps it unchanged).
expect_exit 0 "compare --control" "${CMP[@]}" --threshold instructions=5%
cat "$T/out"
contains "$T/out" "control: the baseline measured twice in this run, interleaved with the candidate (A A' B);"
contains "$T/out" "  largest A/A delta: instructions "
contains "$T/out" "  EXACT COUNT DIFFERS in the control: dice instructions by "
lacks "$T/out" "EXACT COUNT DIFFERS in the control: steady"
contains "$T/err" "warning: --control: 1 exact count differs between the baseline's two runs of this measurement"
runs=$("$PG" show HEAD~1 --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
check "the baseline has its two runs of this measurement stored ($runs)" [ "$runs" = 2 ]
runs=$("$PG" show HEAD --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
check "the candidate one ($runs)" [ "$runs" = 1 ]

# Measured again (whatever is stored: the control is of this measurement), as JSON and markdown.
expect_exit 0 "compare --control, JSON" "${CMP[@]}" --threshold instructions=5% --format json
cp "$T/out" control.json
check "steady's control is exactly 0" [ "$(json control.json "[m['control_delta'] for b in d['benchmarks'] if b['name']=='steady' for m in b['metrics'] if m['name']=='instructions'][0]")" = 0 ]
check "dice's control is not" [ "$(json control.json "[m['control_delta'] for b in d['benchmarks'] if b['name']=='dice' for m in b['metrics'] if m['name']=='instructions'][0] > 0")" = True ]
check "the summary counts the exact drift" [ "$(json control.json "d['control']['exact_drift']")" = 1 ]
# A against B of this measurement only: one run a side (--repeat 1 for valgrind), though 4 of the baseline are stored.
check "A/B rests on this measurement's runs" [ "$(json control.json "[(m['baseline_samples'], m['candidate_samples']) for b in d['benchmarks'] if b['name']=='steady' for m in b['metrics'] if m['name']=='instructions'][0]")" = "(1, 1)" ]
check "and the largest A/A delta of the gate" [ "$(json control.json "d['control']['largest_pct']['instructions'] > 0")" = True ]
runs=$("$PG" show HEAD~1 --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
check "two more runs of the baseline ($runs)" [ "$runs" = 4 ]
expect_exit 0 "compare --control, markdown" "${CMP[@]}" --threshold instructions=5% --format markdown
contains "$T/out" "**Control:** the baseline was measured twice in this run, interleaved with the candidate (A A' B). Largest A/A delta: instructions "
contains "$T/out" "**the exact count differs in the control ("

# Without --control the JSON says so (and compare pools every stored run: dice's differ, so --allow-missing).
expect_exit 0 "compare, no control" "$PG" compare --backend valgrind HEAD~1 HEAD --allow-missing --format json
check "no control" [ "$(json "$T/out" "d['control']")" = None ]

# Refused: without --run-missing, and with a result file.
expect_exit 2 "--control without --run-missing" "$PG" compare --control HEAD~1 HEAD
contains "$T/err" "perfgate: --control measures the baseline twice beside the candidate: it needs --run-missing"
file=$(ls .perfgate/results/*/*.json | head -1)
expect_exit 2 "--control with a result file" "$PG" compare --run-missing --control "$file" HEAD
contains "$T/err" "--control measures the baseline again: A and B must be revisions, not result files ('$file')"

# The perf backend, gated on task-clock: the control is a percentage.
"$PG" doctor > "$T/doctor" 2>&1
if grep -q "^  --backend perf  *ok" "$T/doctor"; then
  "$PG" compare --run-missing --control --backend perf --gate task-clock --format json HEAD~1 HEAD > "$T/out" 2> "$T/err"
  rc=$?
  check "compare --control, perf: exit 0 or 1 (a time may regress; got $rc)" [ $rc -le 1 ]
  check "task-clock's control is a number" [ "$(json "$T/out" "d['control']['largest_pct']['task-clock'] >= 0")" = True ]
else
  echo "the perf backend does not work here: its part skipped"
fi
finish
