#!/usr/bin/env bash
# Result documents of the wrong shape given to show and compare: the inputs
# that crashed before (metrics as an array, a benchmark failed on both sides,
# mutated documents given to show), then a deterministic sample of mutations
# at every key (tests/e2e/lib/mutate.py; ci/mutate-results.sh runs them all).
# Every one exits 0, 1 or 2, an exit 2 with one line naming the file.
. "$(dirname "$0")/lib/common.sh"
doc() { python3 "$(dirname "$0")/lib/makedoc.py" "$@"; }
cd "$T"
doc base.json m1 valgrind 1111111111111111111111111111111111111111 -- \
  'sort:@thresholds={"instructions": "4%"}' sort:instructions=1000,1001 sort:wall-time=5.5,6.5:ns \
  'bad:!exit status 3' hash:instructions=7 hash:D1mr=3

python3 - base.json arr.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"][0]["metrics"] = [{"unit": "count"}]
json.dump(d, open(sys.argv[2], "w"))
PY
for cmd in "show" "show --format json" "compare base.json"; do
  expect_exit 2 "metrics as an array: $cmd" "$PG" $cmd arr.json
  contains "$T/err" "perfgate: arr.json: benchmarks[0].metrics: expected an object, got an array"
done

# A benchmark that failed on both sides has no metric to sort; it is not
# gated (exit 2) unless --allow-missing. mutate.py compares with --allow-missing.
expect_exit 2 "failed on both sides: not gated" "$PG" compare base.json base.json
contains "$T/err" "bad (failed in the baseline: exit status 3; failed in the candidate: exit status 3)"
expect_exit 0 "failed on both sides, --allow-missing" "$PG" compare --allow-missing base.json base.json
contains "$T/out" "failed in the baseline: exit status 3; failed in the candidate: exit status 3"

python3 - base.json nul.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"][0]["metrics"]["instructions"]["samples"][1] = "x"
json.dump({"schema": "perfgate-store/1", "commit": None, "machine_id": "m1", "runs": [d]}, open(sys.argv[2], "w"))
PY
expect_exit 2 "a sample that is not a number" "$PG" show nul.json
contains "$T/err" 'perfgate: nul.json: runs[0].benchmarks[0].metrics.instructions.samples[1]: expected a number, got "x"'

python3 - base.json v2.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["schema"] = "perfgate-run/2"
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 2 "another major schema" "$PG" compare base.json v2.json
contains "$T/err" 'perfgate: v2.json: schema: unsupported schema "perfgate-run/2": this perfgate reads perfgate-run/1'

expect_exit 0 "mutations at every key" python3 "$(dirname "$0")/lib/mutate.py" "$PG" "$T/base.json" "$T/m" --every 50
contains "$T/out" " 0 bad"
cat "$T/out" | tail -1
finish
