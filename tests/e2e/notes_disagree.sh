#!/usr/bin/env bash
# A run fetched from the shared notes that disagrees with this clone's own
# runs (docs/notes.md, "Trust"): anyone who can push notes can add a valid
# run with instructions = 1 to a commit's note. It must not turn the victim's
# comparison into exit 2, nor widen the spread its own runs measured: it is
# said (which run, machine and host) and set aside. A clone that has only
# fetched results says whose they are.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc
NOTES=refs/notes/perfgate
O=$T/origin.git
git init -q --bare -b main "$O"
make_bench_repo "$T/seed" '{ "build": "cc -O1 '"$(static_flag)"' -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "mix", "command": ["./prog", "x"] } ] }'
write_mix_prog "$T/seed/bench/prog.c" "    n = 20000;"
git -C "$T/seed" add -A && git -C "$T/seed" commit -qm benchmark
echo "docs" >> "$T/seed/README" && git -C "$T/seed" commit -qam "docs only"
git -C "$T/seed" push -q "$O" main
clone_as "$O" "$T/V" "$T/A" "$T/F"

# The victim measures both commits and shares them.
cd "$T/V"
RUN=("$PG" compare HEAD~1 HEAD --run-missing --backend valgrind --no-native --metrics instructions)
expect_exit 0 "the victim measures both commits" "${RUN[@]}"
expect_exit 0 "and pushes the notes" "$PG" push

# The attacker adds a run of its own to HEAD~1's note: instructions = 1.
cd "$T/A"
git fetch -q origin "$NOTES:$NOTES"
base=$(git rev-parse HEAD~1)
git notes --ref perfgate show "$base" | python3 -c '
import json, sys
d = json.load(sys.stdin)
run = json.loads(json.dumps(d["runs"][0]))
run["id"] = "2026-11-28T00:00:00Z-1-deadbeef"
run["machine"]["hostname"] = "attacker"
for b in run["benchmarks"]:
    b["metrics"]["instructions"]["samples"] = [1]
d["runs"].append(run)
json.dump(d, open(sys.argv[1], "w"))' "$T/note.json"
git notes --ref perfgate add -f -F "$T/note.json" "$base"
git push -q origin "$NOTES"

# The victim fetches it: its comparison is decided on its own runs.
cd "$T/V"
expect_exit 0 "the victim fetches" "$PG" fetch
expect_exit 0 "compare is unchanged, not exit 2" "$PG" compare HEAD~1 HEAD --format json -o "$T/cmp.json"
contains "$T/err" "run 2026-11-28T00:00:00Z-1-deadbeef from $NOTES"
contains "$T/err" "host attacker) disagrees with this clone's own runs: mix instructions 1 against "
contains "$T/err" "; set aside"
check "verdict unchanged" [ "$(json "$T/cmp.json" 'd["verdict"]')" = unchanged ]
check "no spread: the forged run was not pooled" \
  [ "$(json "$T/cmp.json" '"spread" in d["benchmarks"][0]["metrics"][0]')" = False ]
check "the exact delta is 0" [ "$(json "$T/cmp.json" 'd["benchmarks"][0]["metrics"][0]["delta"]')" = 0 ]

# A fresh clone with the notes only: whose results they are is said.
cd "$T/F"
expect_exit 0 "a fresh clone fetches" "$PG" fetch
"$PG" compare HEAD~1 HEAD >"$T/out" 2>"$T/err"
contains "$T/out" "HEAD: results of another clone only, from its git note (1 run, host "

finish
