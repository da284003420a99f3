#!/usr/bin/env bash
# Four runs at once on one store, one commit and one machine: each gets its
# place, none loses another's result, and each run's stacks are where its
# result says.
. "$(dirname "$0")/lib/common.sh"
R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
cat > "$R/b/perfgate.json" <<JSON
{ "defaults": { "repeat": 3, "warmup": 0 },
  "benchmarks": [
    { "name": "one", "command": ["$PROGS/work", "200000"] },
    { "name": "two", "command": ["$PROGS/work", "100000"] } ] }
JSON
git -C "$R" add b && git -C "$R" commit -q -m bench
cd "$R"
pids=()
for i in 1 2 3 4; do
  "$PG" run --backend perf --sample=499 b/ > "$T/out$i" 2> "$T/err$i" &
  pids+=($!)
done
for i in 1 2 3 4; do
  wait ${pids[$((i - 1))]}
  rc=$?
  check "concurrent run $i exits 0 (got $rc)" [ $rc = 0 ]
  [ $rc = 0 ] || sed 's/^/  | /' "$T/err$i" >&2
done
doc=$(ls .perfgate/results/*/*.json)
check "one store document" [ "$(echo "$doc" | wc -l)" = 1 ]
check "it holds all four runs" [ "$(json "$doc" "len(d['runs'])")" = 4 ]
check "four different runs" [ "$(json "$doc" "len(set(r['id'] for r in d['runs']))")" = 4 ]
check "each run has both benchmarks, 3 samples each" \
  [ "$(json "$doc" "sorted(set(len(b['metrics']['task-clock']['samples']) for r in d['runs'] for b in r['benchmarks']))")" = "[3]" ]
# Every run's stacks files exist (a benchmark may have none at this rate: then it says why).
missing=$(python3 - "$doc" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
root = os.path.dirname(os.path.dirname(os.path.dirname(sys.argv[1])))
for r in d['runs']:
    for b in r['benchmarks']:
        if 'stacks' in b and not os.path.isfile(os.path.join(root, b['stacks'])):
            print(b['stacks'])
        if 'stacks' not in b and 'stacks_error' not in b:
            print(r['id'], b['name'], 'neither stacks nor stacks_error')
PY
)
check "every stacks file a result names exists: ${missing:-all there}" [ -z "$missing" ]
check "no temporary file left in the store" [ -z "$(find .perfgate -name '*.tmp*' -o -name '.probe*')" ]
check "no owned directory left" [ -z "$(find .perfgate -name .perfgate-owner)" ]
finish
