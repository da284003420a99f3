#!/usr/bin/env bash
# run --jobs against a hostile benchmark: one that rewrites what perfgate
# keeps where it can reach it (its siblings' results, the store) changes no
# count stored and leaves the store readable; and a TMPDIR that fills while
# valgrind writes is said as the machine's failure (exit 2, nothing stored),
# with or without --jobs, not as every benchmark's.
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

# A TMPDIR that fills while valgrind writes its output: a small tmpfs as
# TMPDIR, filled by the first benchmark (as root; skipped elsewhere). With
# -j 2 the second ends only once it is full, so that no output freed after
# the fill (a sibling's, read and removed) makes room for the next.
S=$T/small
mkdir -p "$S"
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=4m perfgate-test "$S" 2>/dev/null; then
  echo "skipped the full TMPDIR: mounting a small tmpfs needs root"
  finish
fi
trap 'umount "$S" 2>/dev/null; rm -rf "$T"' EXIT
R2=$T/fresh
make_repo "$R2"
cd "$R2"
cat > full.json <<JSON
{ "benchmarks": [
  { "name": "filler", "command": ["$PROGS/jobs_hostile", "fill", "$S"] },
  { "name": "after-fill", "command": ["$PROGS/jobs_hostile", "waitfull", "$S"] },
  { "name": "w", "command": ["$PROGS/work", "200000"] } ] }
JSON
for j in 1 2; do
  rm -f "$S/fill"
  TMPDIR=$S expect_exit 2 "a TMPDIR that fills, -j $j" "$PG" run --backend valgrind --no-native -j $j full.json
  # Whichever write found the file system full first says so: valgrind's
  # output read back cut short, or (a worker started late, under load) the
  # making of its output directory.
  if grep -qi "no space left on device" "$T/err" && grep -qF "$S/" "$T/err"; then ok; else
    bad "-j $j: 'no space left on device' naming $S"; sed 's/^/  | /' "$T/err" >&2; fi
  lacks "$T/out" "FAILED"
  lacks "$T/err" "summary:"
  check "-j $j: nothing stored" [ -z "$(ls "$R2"/.perfgate/results/*/*.json 2>/dev/null)" ]
done
finish
