#!/usr/bin/env bash
# run --sample with the valgrind backend: each benchmark's stacks come from
# callgrind, with exact instruction weights, and are stored beside the result
# under the same commit and machine; an interrupted run leaves none behind.
. "$(dirname "$0")/lib/common.sh"
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }
R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
cat > "$R/b/perfgate.json" <<JSON
{ "benchmarks": [ { "name": "tree:1", "command": ["$PROGS/cgtree"] } ] }
JSON
cd "$R"
head=$(git rev-parse HEAD)
expect_exit 0 "run --sample (valgrind)" "$PG" run --backend valgrind --sample b/
contains "$T/out" "stacks: $R/.perfgate/stacks/$head/"
doc=$(ls .perfgate/results/$head/*.json)
mid=$(json "$doc" "d['machine_id']")
rel=$(json "$doc" "d['runs'][0]['benchmarks'][0]['stacks']")
# "tree:1" is not a clean file name: cleaned, and marked with a hash of the name.
check "stacks path is relative to the store, under commit and machine ($rel)" \
  sh -c "case '$rel' in stacks/$head/$mid/*/tree_1~????????????.folded) true;; *) false;; esac"
check "stacks file exists" test -s ".perfgate/$rel"
check "weight is instructions" [ "$(json "$doc" "d['runs'][0]['benchmarks'][0]['stacks_weight']")" = instructions ]
check "the note says how they were made" [ "$(json "$doc" "'callgrind' in d['runs'][0]['benchmarks'][0]['stacks_note']")" = True ]
f=".perfgate/$rel"
ph=$(awk '$1 == "main;parse;hash" {print $2}' "$f"); mh=$(awk '$1 == "main;hash" {print $2}' "$f")
check "main;parse;hash and main;hash present" test -n "$ph" -a -n "$mh"
check "parse's hash does 3x the work of main's ($ph / $mh)" python3 -c "import sys; sys.exit(not 2.9 < $ph / $mh < 3.1)"
check "recursion kept: main;rec;rec;rec" grep -q '^main;rec;rec;rec ' "$f"
i1=$(json "$doc" "d['runs'][0]['benchmarks'][0]['metrics']['instructions']['samples'][0]")
expect_exit 0 "run without --sample" "$PG" run --backend valgrind b/
i2=$(json "$doc" "d['runs'][1]['benchmarks'][0]['metrics']['instructions']['samples'][0]")
check "instructions with and without --sample are equal ($i1, $i2)" [ "$i1" = "$i2" ]
check "second run has no stacks" [ "$(json "$doc" "'stacks' in d['runs'][1]['benchmarks'][0]")" = False ]
# Two sampled runs on one commit keep both stack files.
expect_exit 0 "second sampled run" "$PG" run --backend valgrind --sample b/
check "both runs' stacks kept" [ "$(find .perfgate/stacks -name '*.folded' | wc -l)" = 2 ]
finish
