#!/usr/bin/env bash
# ci/annotate.py on reports no perfgate wrote (tests/e2e/ci_templates.sh runs
# it in the templates on real ones): whatever the report holds, exit 0 and
# either its annotations or one warning line, and no line on stdout or
# stderr that starts a workflow command other than perfgate's own
# (ci/workflow.py escapes every one). Quick: no perfgate run.
. "$(dirname "$0")/lib/common.sh"
AN=${PG_SRC:?}/ci/annotate.py
require python3
cd "$T"

# report FILE DELTA_PCT DELTA METRIC FUNCTION FILE-NAME: a regression on one
# changed function, with these values written as JSON text as they are.
report() {
  cat > "$1" <<JSON
{ "benchmarks": [ {"name": "b", "verdict": "regressed",
    "metrics": [{"name": $4, "gating": true, "verdict": "regressed", "delta_pct": $2}]} ],
  "coverage": { "unit": "instructions", "changed": [
    {"function": $5, "file": $6, "line": 3, "benchmarks": [{"name": "b", "delta": $3}]} ] } }
JSON
}
# only_perfgates DESCRIPTION PATTERN: stdout is one line, perfgate's, matching
# PATTERN; nothing on either stream a runner would obey but it, no traceback.
only_perfgates() {
  check "$1: one line (got: $(head -c 300 "$T/out"))" [ "$(wc -l < "$T/out")" = 1 ]
  check "$1: it is perfgate's ('$2')" grep -qE "$2" "$T/out"
  check "$1: no other workflow command, on stdout or stderr" [ "$(cat "$T/out" "$T/err" | grep -c '^::')" = 1 ]
  lacks "$T/err" "Traceback" "$1: no traceback"
}

big=1$(printf '0%.0s' $(seq 400))      # 10^400: a JSON integer no float holds
python3 -c 'print("[" * 100000 + "]" * 100000)' > deep.json
report huge-pct.json "$big" 5 '"instructions"' '"f"' '"a.c"'
report huge-delta.json 2 "$big" '"instructions"' '"f"' '"a.c"'
for f in deep huge-pct huge-delta; do
  expect_exit 0 "github: $f.json" python3 "$AN" github $f.json
  only_perfgates "github: $f.json" '^::warning title=perfgate::no annotations: '"$f"'\.json: '
  expect_exit 0 "gitlab: $f.json" python3 "$AN" gitlab $f.json gl.json
  check "gitlab: $f.json: one warning line" [ "$(cat "$T/out")" != "" -a "$(wc -l < "$T/out")" = 1 ]
  contains "$T/out" "perfgate: warning: no annotations: $f.json: "
  lacks "$T/err" "Traceback" "gitlab: $f.json: no traceback"
done
contains "$T/out" "perfgate: warning: no annotations: huge-delta.json: "

# Lone surrogates ("\ud800": no UTF-8 holds them) in every name: the
# annotation, with them as escapes. CR, % and newline in names: escaped.
report lone.json 2 5 '"instr\ud800"' '"f\udfff\r::error::cr %0A"' '"a\ud800.c"'
expect_exit 0 "gitlab: lone surrogates" python3 "$AN" gitlab lone.json gl.json
lacks "$T/err" "Traceback" "gitlab: lone surrogates: no traceback"
expect_exit 0 "github: lone surrogates" python3 "$AN" github lone.json
only_perfgates "github: lone surrogates" '^::warning file=a\\ud800\.c,line=3,title=perfgate::b regressed \(instr\\ud800 \+2\.00%25\) and runs f\\udfff%0D::error::cr %250A'
check "gitlab: the finding, its name's surrogate kept as JSON escapes" python3 -c '
import json, sys
q = json.load(open("gl.json"))
sys.exit(not (len(q) == 1 and q[0]["location"]["path"] == "a\ud800.c" and "instr\ud800" in q[0]["description"]))'

# A path that tries to start a command: in the warning, escaped.
expect_exit 0 "github: a report path with a newline" python3 "$AN" github $'none\n::error::path.json'
only_perfgates "github: a report path with a newline" '^::warning title=perfgate::no annotations: none%0A::error::path\.json: '
expect_exit 0 "gitlab: a report path with a newline" python3 "$AN" gitlab $'none\n::error::path.json' gl.json
check "gitlab: a report path with a newline: one line" [ "$(wc -l < "$T/out")" = 1 ]
finish
