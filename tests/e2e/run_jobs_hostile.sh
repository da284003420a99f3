#!/usr/bin/env bash
# run --jobs against a hostile benchmark: one that rewrites what perfgate
# keeps where it can reach it (its siblings' results, the store) changes no
# count stored and leaves the store readable.
. "$(dirname "$0")/lib/common.sh"
require valgrind
R=$T/repo
make_repo "$R"
cd "$R"
# As root the benchmarks run in a mount namespace where the store is
# read-only, and the forger tries it; elsewhere it runs as the same user and
# could (docs/processes.md): only the --jobs results are tried.
store=-
[ "$(id -u)" = 0 ] && store=$R/.perfgate
cat > good.json <<JSON
{ "benchmarks": [
  { "name": "a", "command": ["$PROGS/work", "100000"] },
  { "name": "b", "command": ["$PROGS/work", "200000"] } ] }
JSON
cat > suite.json <<JSON
{ "benchmarks": [
  { "name": "a", "command": ["$PROGS/work", "100000"] },
  { "name": "b", "command": ["$PROGS/work", "200000"] },
  { "name": "forger", "command": ["$PROGS/jobs_hostile", "forge", "$T", "$store"] } ] }
JSON
counts() { json "$1" "[[(b['name'], b['metrics']['instructions']['samples']) for b in r['benchmarks'] if b['name'] != 'forger'] for r in d['runs']]"; }
expect_exit 0 "a good run first" "$PG" run --backend valgrind --no-native good.json
doc=$(ls "$R"/.perfgate/results/*/*.json)
good=$(json "$doc" "[(b['name'], b['metrics']['instructions']['samples']) for b in d['runs'][0]['benchmarks']]")

expect_exit 0 "-j 3 with the forger" "$PG" run --backend valgrind --no-native -j 3 suite.json
same "a and b stored with their true counts, under their names" "$(counts "$doc")" "[$good, $good]"
check "the forger's run stored as run 2" [ "$(json "$doc" "[b['name'] for b in d['runs'][1]['benchmarks']]")" = "['a', 'b', 'forger']" ]
log=$(json "$doc" "d['runs'][1]['benchmarks'][2]['stderr_log']")
lacks "$log" "forged $T/" "no result of a worker where the benchmark could rewrite it"
expect_exit 0 "show reads the store" "$PG" show
contains "$T/out" "forger"
if [ "$store" != - ]; then
  contains "$log" "cannot write $store/results/" "the store was read-only to the benchmark"
  lacks "$log" "appended to" "nothing appended to a stored document"
  check "no file made in the store" [ ! -e "$store/results/forged" ]
fi
expect_exit 0 "a later run stores" "$PG" run --backend valgrind --no-native good.json
check "three runs stored" [ "$(json "$doc" "len(d['runs'])")" = 3 ]

finish
