#!/usr/bin/env bash
# Time across sessions (docs/metrics.md, "Time across sessions"): a commit
# stored by `run` while two CPU hogs ran, then compared with a docs-only
# child measured later by `compare --run-missing` on a quieter machine. The
# exact counts decide (delta 0, unchanged); the time rows, measured at two
# moments under two loads, say "not compared: measured apart (load X against
# Y)" and never "regressed", in every format, and no divergence is claimed.
# Both revisions measured by one --run-missing (one session, interleaved)
# are compared on time as before. No timing is asserted.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc
R=$T/repo
make_bench_repo "$R" '{ "build": "cc -O1 '"$(static_flag)"' -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "mix", "command": ["./prog", "x"] } ] }'
write_mix_prog "$R/bench/prog.c" "    n = 3000000;"
git -C "$R" add -A && git -C "$R" commit -qm benchmark
echo "docs" >> "$R/README" && git -C "$R" commit -qam "docs only"
cd "$R"
MET=(--backend valgrind --metrics instructions,task-clock,wall-time,context-switches --native-repeat 3)

# The base, stored under load.
hogs=()
for i in 1 2; do (while :; do :; done) & hogs+=($!); done
git checkout -q HEAD~1
expect_exit 0 "run the base under two CPU hogs" "$PG" run "${MET[@]}" bench/
kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null
git checkout -q main
check "the run stored its session and load" \
  holds .perfgate/results/*/*.json '"session" in d["runs"][0] and d["runs"][0]["load"] >= 0'

expect_exit 0 "compare with the candidate measured now" "$PG" compare HEAD~1 HEAD --run-missing "${MET[@]}" -v
lacks "$T/out" "regressed"
lacks "$T/out" "divergence:"
contains "$T/out" "task-clock"
contains "$T/out" "(not compared: measured apart (load "
contains "$T/out" "verdict: unchanged -- 1 unchanged of 1 benchmark compared"
expect_exit 0 "json" "$PG" compare HEAD~1 HEAD --format json -o "$T/cmp.json"
check "json: apart, both loads" holds "$T/cmp.json" 'd["apart"] is True and d["baseline"]["load"] >= 0 and d["candidate"]["load"] >= 0'
check "json: every time row not compared, none regressed" holds "$T/cmp.json" \
  'all(not m["compared"] and m["verdict"] != "regressed" and m["note"].startswith("not compared: measured apart") for m in d["benchmarks"][0]["metrics"] if m["name"] in ("task-clock", "wall-time", "context-switches"))'
check "json: instructions compared, delta 0" holds "$T/cmp.json" \
  '[(m["compared"], m["delta"]) for m in d["benchmarks"][0]["metrics"] if m["name"] == "instructions"] == [(True, 0)]'
expect_exit 0 "markdown" "$PG" compare HEAD~1 HEAD --format markdown
lacks "$T/out" "regressed"
expect_exit 0 "--allow-apart judges them anyway" "$PG" compare HEAD~1 HEAD --allow-apart --format json -o "$T/any.json"
check "--allow-apart: time compared" holds "$T/any.json" \
  'd["apart"] is False and all(m["compared"] for m in d["benchmarks"][0]["metrics"] if m["name"] == "task-clock")'

# One --run-missing measuring both: one session, time compared.
rm -rf .perfgate
git update-ref -d refs/notes/perfgate
expect_exit 0 "both measured together" "$PG" compare HEAD~1 HEAD --run-missing "${MET[@]}" --format json -o "$T/one.json"
check "one session: not apart, time compared" holds "$T/one.json" \
  'd["apart"] is False and all(m["compared"] for m in d["benchmarks"][0]["metrics"] if m["name"] == "task-clock")'

finish
