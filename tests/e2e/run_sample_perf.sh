#!/usr/bin/env bash
# run --sample with the perf backend: each benchmark's stacks are sampled in
# a run of their own (perf_event, DWARF unwinding) and stored beside the
# result under the same commit and machine.
. "$(dirname "$0")/lib/common.sh"
F="python3 $(cd "$(dirname "$0")" && pwd)/lib/folded.py"
R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
cat > "$R/b/perfgate.json" <<JSON
{ "benchmarks": [ { "name": "parse", "command": ["$PROGS/sample_tree", "parse", "3000n"], "repeat": 1, "warmup": 0 },
                  { "name": "sort:x", "command": ["$PROGS/sample_tree", "sort", "1000n"], "repeat": 1, "warmup": 0 } ] }
JSON
cd "$R"
head=$(git rev-parse HEAD)
expect_exit 0 "run --sample (perf)" "$PG" run --backend perf --sample=499 b/
contains "$T/out" "stacks: $R/.perfgate/stacks/$head/"
doc=$(ls .perfgate/results/$head/*.json)
mid=$(json "$doc" "d['machine_id']")
for i in 0 1; do
  rel=$(json "$doc" "d['runs'][0]['benchmarks'][$i]['stacks']")
  check "stacks path under commit and machine ($rel)" sh -c "case '$rel' in stacks/$head/$mid/*.folded) true;; *) false;; esac"
  check "stacks file exists" test -s ".perfgate/$rel"
  check "weight is samples" [ "$(json "$doc" "d['runs'][0]['benchmarks'][$i]['stacks_weight']")" = samples ]
done
p=".perfgate/$(json "$doc" "d['runs'][0]['benchmarks'][0]['stacks']")"
s=".perfgate/$(json "$doc" "d['runs'][0]['benchmarks'][1]['stacks']")"
check "sort:x stored as a plain file name, marked with a hash of the name" sh -c "case '$s' in */sort_x~????????????.folded) true;; *) false;; esac"
share=$($F "$p" share 'main;parse;hash')
check "parse: main;parse;hash >= 80% ($share)" python3 -c "import sys; sys.exit(not $share >= 80)"
share=$($F "$s" share 'main;sort;compare')
check "sort: main;sort;compare >= 80% ($share)" python3 -c "import sys; sys.exit(not $share >= 80)"
# 3000 calls of parse, about 0.15 s of CPU: about 75 samples at 499 Hz, twice that at 997 Hz
n=$($F "$p" total)
check "--sample=499 sets the rate ($n samples)" python3 -c "import sys; sys.exit(not 10 <= $n <= 200)"
finish
