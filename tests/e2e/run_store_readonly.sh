#!/usr/bin/env bash
# A read-only store: `run` and `compare --run-missing` refuse before anything
# is measured, with exit 2 and a message naming the store and why; what is
# stored stays as it was and can still be read. As root, file modes do not
# stop writes, so the store is a tmpfs remounted read-only; as another user,
# a directory without write permission.
. "$(dirname "$0")/lib/common.sh"
M=$T/store
mkdir -p "$M"
if [ "$(id -u)" = 0 ]; then
  if ! mount -t tmpfs -o size=1m perfgate-test "$M" 2>/dev/null; then
    echo "skipped: root, but cannot mount a tmpfs (a read-only store cannot be made)"
    exit 77
  fi
  trap 'umount "$M" 2>/dev/null; rm -rf "$T"' EXIT
  make_readonly() { mount -o remount,ro "$M"; }
  why="Read-only file system"
else
  trap 'chmod -R u+w "$M" 2>/dev/null; rm -rf "$T"' EXIT
  make_readonly() { chmod -R a-w "$M"; }
  why="Permission denied"
fi
R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
cat > "$R/b/perfgate.json" <<JSON
{ "defaults": { "repeat": 1, "warmup": 0 },
  "benchmarks": [
    { "name": "marked", "command": ["sh", "-c", "echo ran >> $T/ran"] } ] }
JSON
git -C "$R" add b && git -C "$R" commit -q -m bench
echo change > "$R/file" && git -C "$R" add file && git -C "$R" commit -q -m change
cd "$R"
expect_exit 0 "a first run stores" "$PG" run --store "$M" b/
doc=$(ls "$M"/results/*/*.json)
cp "$doc" "$T/before.json"
rm -f "$T/ran"
make_readonly

expect_exit 2 "run into a read-only store" "$PG" run --store "$M" b/
contains "$T/err" "cannot store results in $M"
contains "$T/err" "$why"
check "run: nothing was measured" [ ! -e "$T/ran" ]
check "run: the stored result is intact" cmp -s "$doc" "$T/before.json"

expect_exit 2 "compare --run-missing into a read-only store" \
  "$PG" compare --run-missing --manifest b --store "$M" HEAD~1 HEAD
contains "$T/err" "cannot store results in $M"
contains "$T/err" "$why"
check "compare: nothing was measured" [ ! -e "$T/ran" ]

expect_exit 0 "show still reads the read-only store" "$PG" show --store "$M"
contains "$T/out" "marked"
check "the stored result is intact" cmp -s "$doc" "$T/before.json"
finish
