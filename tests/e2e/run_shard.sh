#!/usr/bin/env bash
# `run --shard I/N`: a deterministic part of the suite, dealt by name without
# stored durations and longest-first by the parent's stored wall times with
# them; `compare` merges shards (revisions, files, directories, comma lists)
# and refuses overlapping shards of different runs.
. "$(dirname "$0")/lib/common.sh"
R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
{ echo '{ "defaults": { "repeat": 1, "warmup": 0 }, "benchmarks": ['
  for i in 1 2 3 4 5; do echo "{ \"name\": \"b$i\", \"command\": [\"/bin/true\"] }$([ $i = 5 ] || echo ,)"; done
  echo '] }'; } > "$R/b/perfgate.json"
git -C "$R" add b && git -C "$R" commit -q -m bench
cd "$R"
shard() { "$PG" run --backend perf --no-pin --no-notes --shard "$@" b/; }
# benchmark names in a result document, sorted, on one line
names() { grep -oE '"name":[[:space:]]*"b[0-9]"' "$1" | grep -oE 'b[0-9]' | sort | tr '\n' ' '; }

expect_exit 2 "--shard 3/2" shard 3/2
contains "$T/err" "--shard 3/2: I must be between 1 and N"
expect_exit 2 "--shard x" shard x
contains "$T/err" "--shard 'x': expected I/N, like 2/4"

# No stored durations (the parent has no results): by name, round robin.
expect_exit 0 "shard 1/2 by name" shard 1/2
contains "$T/out" "shard 1/2: 3 of 5 benchmarks, dealt by name (no stored wall times)"
expect_exit 0 "shard 2/2 by name" shard 2/2
contains "$T/out" "shard 2/2: 2 of 5 benchmarks"
c1=$(git rev-parse HEAD)
doc1=$(ls .perfgate/results/$c1/*.json)
check "both shards in one store document: b1 b2 b3 b4 b5 once each" [ "$(names "$doc1")" = "b1 b2 b3 b4 b5 " ]
contains "$doc1" '"count":	2'

# The parent's stored wall times (hand-made: exact) balance the shards:
# longest first to the least loaded shard, 100 90 50 40 30 ns ->
# {b1 b4 b5} {b2 b3}, where by name it would be {b1 b3 b5} {b2 b4}.
git commit -q --allow-empty -m c2
c2=$(git rev-parse HEAD)
mkdir -p .perfgate/results/$c2
{ echo "{\"schema\": \"perfgate-store/1\", \"commit\": \"$c2\", \"machine_id\": \"aaaaaaaaaaaa\", \"runs\": [
  {\"schema\": \"perfgate-run/1\", \"id\": \"hand\", \"commit\": \"$c2\", \"machine\": {\"id\": \"aaaaaaaaaaaa\"},
   \"backend\": \"perf\", \"benchmarks\": ["
  sep=
  for nt in b1:100 b2:90 b3:50 b4:40 b5:30; do
    echo "$sep{\"name\": \"${nt%:*}\", \"status\": \"ok\", \"metrics\": {\"wall-time\": {\"unit\": \"ns\", \"backend\": \"os\", \"samples\": [${nt#*:}]}}}"
    sep=,
  done
  echo ']}]}'; } > .perfgate/results/$c2/aaaaaaaaaaaa.json
git commit -q --allow-empty -m c3
mkdir -p "$T/head" "$T/base"
expect_exit 0 "shard 1/2 balanced" shard 1/2
contains "$T/out" "shard 1/2: 3 of 5 benchmarks, balanced by the wall times stored for ${c2:0:12}"
"$PG" run --backend perf --no-pin --no-notes --shard 1/2 --format json b/ > "$T/head/s1.json" 2>/dev/null
"$PG" run --backend perf --no-pin --no-notes --shard 2/2 --format json b/ > "$T/head/s2.json" 2>/dev/null
check "shard 1/2 longest first: b1 b4 b5" [ "$(names "$T/head/s1.json")" = "b1 b4 b5 " ]
check "shard 2/2: b2 b3" [ "$(names "$T/head/s2.json")" = "b2 b3 " ]
expect_exit 0 "shard 6/6 of 5 benchmarks" shard 6/6
contains "$T/err" "shard 6/6 has no benchmark"

# compare merges the shards of each side.
cp "$doc1" "$T/base/c1.json"
expect_exit 0 "compare two directories of shards" "$PG" compare "$T/base" "$T/head" --gate task-clock --allow-apart
contains "$T/out" "of 5 benchmarks compared"
expect_exit 0 "compare a file and a comma list of shards" "$PG" compare "$doc1" "$T/head/s1.json,$T/head/s2.json" --gate task-clock --allow-apart
contains "$T/out" "of 5 benchmarks compared"
expect_exit 0 "compare revisions whose shards are stored" "$PG" compare HEAD~2 HEAD --gate task-clock --allow-apart
contains "$T/out" "of 5 benchmarks compared"
# Another partition of the same suite overlaps: refused, exit 2, one line.
"$PG" run --backend perf --no-pin --no-notes --shard 1/3 --format json b/ > "$T/third.json" 2>/dev/null
check "shard 1/3 is b1 alone" [ "$(names "$T/third.json")" = "b1 " ]
expect_exit 2 "overlapping shard files" "$PG" compare "$T/base" "$T/head/s1.json,$T/third.json" --gate task-clock --allow-apart
contains "$T/err" "overlapping shards of different runs: benchmark 'b1' is in shard 1/2 (run "
contains "$T/err" "and in shard 1/3 (run "
check "the error is one line" [ "$(wc -l < "$T/err")" = 1 ]
expect_exit 2 "overlapping shards stored for a revision" "$PG" compare HEAD~2 HEAD --gate task-clock --allow-apart
contains "$T/err" "HEAD: overlapping shards of different runs"
finish
