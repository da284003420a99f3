#!/usr/bin/env bash
# perfgate run end to end with the valgrind backend: exact repeatable counts,
# 2N iterations cost twice N, the JSON stored under HEAD's commit id, appends,
# `show`, runs outside git, and a corrupt or unwritable store.
. "$(dirname "$0")/lib/common.sh"
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }

R=$T/repo
make_repo "$R"
mkdir -p "$R/bench"
cat > "$R/bench/perfgate.json" <<JSON
{ "benchmarks": [
    { "name": "work-1m", "command": ["$PROGS/work", "1000000"] },
    { "name": "work-2m", "command": ["$PROGS/work", "2000000"] } ] }
JSON
git -C "$R" add bench && git -C "$R" commit -q -m bench
head=$(git -C "$R" rev-parse HEAD)

cd "$R"
expect_exit 0 "run with the valgrind backend" "$PG" run --backend valgrind --repeat 2 bench/
contains "$T/out" "backend valgrind"
contains "$T/out" "work-1m  (2 runs)"
contains "$T/out" "commit ${head:0:12}"
stored=$(ls "$R/.perfgate/results/$head/"*.json 2>/dev/null | head -1)
check "result stored under .perfgate/results/<HEAD>/" test -f "$stored"
check "document's commit is HEAD" [ "$(json "$stored" "d['commit']")" = "$head" ]
check "one run stored" [ "$(json "$stored" "len(d['runs'])")" = 1 ]
check "run keyed to HEAD" [ "$(json "$stored" "d['runs'][0]['commit']")" = "$head" ]
# The work tree's status is walked beside perfgate's start (harness/store/gitrepo.h): its answer still lands.
check "a clean work tree: the header says nothing of it" bash -c "! grep -q 'dirty work tree' '$T/out'"
check "a clean work tree: the run is not dirty" [ "$(json "$stored" "d['runs'][0]['dirty']")" = False ]
check "backend recorded" [ "$(json "$stored" "d['runs'][0]['benchmarks'][0]['metrics']['instructions']['backend']")" = valgrind ]
check "machine id recorded" [ -n "$(json "$stored" "d['runs'][0]['machine']['id']")" ]
check "cache geometry recorded" [ "$(json "$stored" "d['runs'][0]['machine']['cache_geometry']")" = "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64" ]
i1=$(json "$stored" "d['runs'][0]['benchmarks'][0]['metrics']['instructions']['samples']")
check "valgrind counts identical across two runs: $i1" python3 -c "import sys; s=$i1; sys.exit(not (len(s)==2 and s[0]==s[1] and s[0]>1e6))"
ratio=$(json "$stored" "d['runs'][0]['benchmarks'][1]['metrics']['instructions']['samples'][0] / d['runs'][0]['benchmarks'][0]['metrics']['instructions']['samples'][0]")
check "2N iterations cost about twice N (ratio $ratio)" python3 -c "import sys; sys.exit(not 1.9 < $ratio < 2.02)"
for m in cache-misses branch-misses Ir D1mr Bcm wall-time max-rss; do
  check "metric $m stored" [ "$(json "$stored" "'$m' in d['runs'][0]['benchmarks'][0]['metrics']")" = True ]
done

# A second run on the same commit and machine adds to what is there.
expect_exit 0 "second run" "$PG" run --backend valgrind bench/ --filter 'work-1m'
check "second run appended, first kept" [ "$(json "$stored" "len(d['runs'])")" = 2 ]
check "first run intact" [ "$(json "$stored" "len(d['runs'][0]['benchmarks'])")" = 2 ]
# A tracked file changed: the header and the run say so.
cp bench/perfgate.json "$T/manifest.keep"
echo ' ' >> bench/perfgate.json
expect_exit 0 "a run of a dirty work tree" "$PG" run --backend valgrind bench/ --filter 'work-1m' --no-store
contains "$T/out" "commit ${head:0:12} (dirty work tree)"
expect_exit 0 "its document" "$PG" run --backend valgrind bench/ --filter 'work-1m' --no-store --format json
check "the run is dirty" [ "$(json "$T/out" "d['dirty']")" = True ]
check "not stored, it is still keyed to the commit" [ "$(json "$T/out" "d['commit']")" = "$head" ]
cp "$T/manifest.keep" bench/perfgate.json

expect_exit 0 "show HEAD" "$PG" show
contains "$T/out" "work-2m"
contains "$T/out" "$head"
expect_exit 0 "show --format json" "$PG" show --format json HEAD
check "show json lists both runs" [ "$(json "$T/out" "len(d)")" = 2 ]
expect_exit 2 "show of an unknown revision" "$PG" show no-such-rev
contains "$T/err" "unknown revision 'no-such-rev'"
expect_exit 2 "show of a commit without results" "$PG" show HEAD~1
contains "$T/err" "no results stored for HEAD~1"

# --format json prints the run document.
expect_exit 0 "run --format json" "$PG" run --backend valgrind --no-store --format json -- "$PROGS/work" 1000
check "json run document on stdout" [ "$(json "$T/out" "d['benchmarks'][0]['status']")" = ok ]

# Corrupt store: a clear error naming the file, and the file left as it was.
cp "$stored" "$T/saved.json"
echo '{ "runs": [ truncated' > "$stored"
cp "$stored" "$T/corrupt.json"
expect_exit 2 "run into a corrupt store" "$PG" run --backend valgrind bench/ --filter work-1m
contains "$T/err" "$stored"
contains "$T/err" "corrupt"
check "corrupt file left untouched" cmp -s "$stored" "$T/corrupt.json"
cp "$T/saved.json" "$stored"

# Unwritable store.
echo file > "$T/notadir"
expect_exit 2 "run with an unwritable store" "$PG" run --backend valgrind --store "$T/notadir/x" -- "$PROGS/work" 10
contains "$T/err" "cannot store results"

# Outside any git repository.
mkdir -p "$T/nogit" && cd "$T/nogit"
expect_exit 0 "run outside git" "$PG" run --backend valgrind -- "$PROGS/work" 1000
contains "$T/err" "keyed to no commit"
expect_exit 0 "run outside git with --store" "$PG" run --backend valgrind --store "$T/st" -- "$PROGS/work" 1000
check "stored under nocommit/" test -n "$(ls "$T/st/results/nocommit/"*.json 2>/dev/null)"
finish
