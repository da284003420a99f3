#!/usr/bin/env bash
# run --jobs: valgrind writes a benchmark's output where the benchmark can,
# but no benchmark reaches another's (docs/processes.md). A hostile one,
# measured beside a sibling, looks for the sibling's output by every path a
# benchmark has (TMPDIR, and the directories the command lines in /proc
# name) and plants a million instructions in what it reaches: the
# sibling's stored count is its count alone, and the hostile one never sees
# its directory. That needs a mount namespace of the benchmark's own
# (`perfgate doctor`: "its tree at"); without one (PERFGATE_NO_CANON_TREE=1)
# the directory is there to be found, as documented. As root and, where the
# kernel allows one, as nobody in a user namespace.
. "$(dirname "$0")/lib/common.sh"
require valgrind
R=$T/repo
make_repo "$R"
cd "$R"
# The parent of every output directory is the user's own directory, never
# a link someone put there: refused, saying what to do, before anything is
# measured through it (with or without a namespace).
L=$T/linked
mkdir -p "$L/elsewhere"
ln -s "$L/elsewhere" "$L/perfgate-out.$(id -u)"
TMPDIR=$L expect_exit 2 "a link where the parent goes" "$PG" run --no-store --backend valgrind --no-native -- "$PROGS/work" 10
contains "$T/err" "perfgate: $L/perfgate-out.$(id -u) is a symbolic link: perfgate keeps valgrind's output in it"
check "nothing made through the link" [ -z "$(ls -A "$L/elsewhere")" ]

"$PG" doctor > "$T/doctor" 2>&1
if ! grep -q "its tree at /run/perfgate/tree     ok" "$T/doctor"; then
  echo "skipped: no mount namespace here: $(grep 'its tree at' "$T/doctor")"
  finish
fi
# The sibling blocks on a FIFO until the hostile one has looked: both run at
# once whatever the load, and the sibling's count does not depend on how
# long it waited (blocked in open(), no instruction counted).
mkfifo "$T/go"
cat > solo.json <<JSON
{ "benchmarks": [ { "name": "sibling", "command": ["$PROGS/jobs_hostile", "wait", "$T/go"] } ] }
JSON
cat > pair.json <<JSON
{ "benchmarks": [
  { "name": "sibling", "command": ["$PROGS/jobs_hostile", "wait", "$T/go"] },
  { "name": "hostile", "command": ["$PROGS/jobs_hostile", "outputs", "$T", "$T/go"] } ] }
JSON
count() { json "$1" "[b['metrics']['instructions']['samples'] for b in d['runs'][$2]['benchmarks'] if b['name'] == 'sibling']"; }

# The sibling alone, the shell its FIFO's writer (killed when the sibling
# never opened it).
writer() { ( exec 3>"${1:-$T/go}" ) & wpid=$!; }
writer_end() { kill $wpid 2>/dev/null; wait $wpid 2>/dev/null; }
writer
expect_exit 0 "the sibling alone" "$PG" run --backend valgrind --no-native --metrics instructions --timeout 120 solo.json
writer_end
doc=$(ls "$R"/.perfgate/results/*/*.json)
solo=$(count "$doc" 0)
check "the sibling alone has one count" [ "$(json "$doc" "len(d['runs'][0]['benchmarks'][0]['metrics']['instructions']['samples'])")" = 1 ]

expect_exit 0 "-j 2 with the hostile benchmark" "$PG" run --backend valgrind --no-native --metrics instructions \
  --timeout 120 -j 2 pair.json
same "the sibling's count is its own, exactly" "$(count "$doc" 1)" "$solo"
hostile_log() { json "$doc" "[b['stderr_log'] for b in d['runs'][$1]['benchmarks'] if b['name'] == 'hostile'][0]"; }
log=$(hostile_log 1)
# It did look: its own output directory was found, and the sibling's named
# (its valgrind's command line), so the checks below are not vacuous.
contains "$log" "own $T/" "the hostile benchmark found its own output directory"
contains "$log" "named $T/" "the hostile benchmark knew the sibling's directory by name"
contains "$log" "cannot reach $T/" "the sibling's directory cannot be reached by its name"
lacks "$log" "saw " "the hostile benchmark saw no other output directory"
lacks "$log" "forged " "the hostile benchmark planted nothing"

# Without a namespace nothing hides it (docs/processes.md, "What remains"):
# the same benchmark reaches the sibling's directory and forges its count,
# which shows that the attack above is real.
PERFGATE_NO_CANON_TREE=1 expect_exit 0 "-j 2 without a namespace" "$PG" run --backend valgrind --no-native \
  --metrics instructions --timeout 120 -j 2 pair.json
contains "$(hostile_log 2)" "forged $T/" "without a namespace, the sibling's directory is reached"
check "without a namespace, the sibling's count is forged" [ "$(count "$doc" 2)" != "$solo" ]

# Not as root: the same, in a user namespace mapping the user to itself,
# where the kernel allows one (`perfgate doctor` says; skipped elsewhere).
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || { echo "skipped: not as another user"; finish; }
U=$T/tmpu
chmod 755 "$T" && mkdir -m 1777 "$U" && mkdir -m 755 "$U/w" && mkfifo -m 666 "$U/go"
as_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/ TMPDIR="$U" "$@"; }
sed "s|$T/go|$U/go|g; s|\"outputs\", \"$T\"|\"outputs\", \"$U\"|" solo.json > "$U/w/solo.json"
# What the hostile one finds goes to a file: the logs of a run not stored are not kept.
sed "s|$T/go|$U/go|g; s|\"outputs\", \"$T\", \"$U/go\"|&, \"$U/report\"|; s|\"outputs\", \"$T\"|\"outputs\", \"$U\"|" \
  pair.json > "$U/w/pair.json"
cd "$U/w"
as_user "$PG" doctor > "$T/doctor" 2>&1
grep -q "its tree at /run/perfgate/tree     ok   (not root" "$T/doctor" ||
  { echo "skipped: no user namespace here: $(grep 'its tree at' "$T/doctor")"; finish; }
ucount() { json "$1" "[b['metrics']['instructions']['samples'] for b in d['benchmarks'] if b['name'] == 'sibling']"; }
writer "$U/go"
expect_exit 0 "not root: the sibling alone" as_user "$PG" run --no-store --format json --backend valgrind --no-native \
  --metrics instructions --timeout 120 solo.json
writer_end
usolo=$(ucount "$T/out")
expect_exit 0 "not root: -j 2 with the hostile benchmark" as_user "$PG" run --no-store --format json --backend valgrind \
  --no-native --metrics instructions --timeout 120 -j 2 pair.json
same "not root: the sibling's count is its own, exactly" "$(ucount "$T/out")" "$usolo"
ulog=$U/report
contains "$ulog" "own $U/" "not root: the hostile benchmark found its own output directory"
contains "$ulog" "cannot reach $U/" "not root: the sibling's directory cannot be reached by its name"
lacks "$ulog" "saw " "not root: the hostile benchmark saw no other output directory"
finish
