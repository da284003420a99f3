#!/usr/bin/env bash
# A store on a full disk: a clear error, exit 2, nothing stored lost and no
# half-written file left, whether the disk is full before the run (found
# before anything is measured) or fills while it runs (found when storing).
# Needs a small file system of its own: a tmpfs, mounted as root.
. "$(dirname "$0")/lib/common.sh"
M=$T/store
mkdir -p "$M"
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=256k perfgate-test "$M" 2>/dev/null; then
  echo "skipped: mounting a small tmpfs for the full store needs root"
  exit 77
fi
# The store is read-only to the benchmarks (docs/processes.md): the filler
# fills its file system through a second mount of it, which is not.
A=$T/alias
mkdir -p "$A"
mount --bind "$M" "$A"
trap 'umount "$A" 2>/dev/null; umount "$M" 2>/dev/null; rm -rf "$T"' EXIT
R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
cat > "$R/b/perfgate.json" <<JSON
{ "defaults": { "repeat": 1, "warmup": 0 },
  "benchmarks": [
    { "name": "quick", "command": ["$PROGS/work", "1000"] },
    { "name": "marked", "command": ["sh", "-c", "echo ran >> $T/ran"] },
    { "name": "filler", "command": ["sh", "-c", "dd if=/dev/zero of=$A/filler bs=4k 2>/dev/null; true"] } ] }
JSON
git -C "$R" add b && git -C "$R" commit -q -m bench
cd "$R"
expect_exit 0 "a first run stores" "$PG" run --store "$M" --filter quick b/
doc=$(ls "$M"/results/*/*.json)
cp "$doc" "$T/before.json"

# Full before the run.
dd if=/dev/zero of="$M/filler" bs=4k 2>/dev/null
expect_exit 2 "a run into a full store" "$PG" run --store "$M" --filter marked b/
contains "$T/err" "No space left on device"
contains "$T/err" "cannot store results in $M"
check "nothing was measured" [ ! -e "$T/ran" ]
check "the stored result is intact" cmp -s "$doc" "$T/before.json"
check "no half-written file left" [ -z "$(find "$M" -name '*.tmp*' -o -name '.probe*')" ]
rm -f "$M/filler"

# Full while it runs: the benchmark fills the disk after the check.
expect_exit 2 "a run that fills the store" "$PG" run --store "$M" --filter filler b/
contains "$T/err" "No space left on device"
contains "$T/err" "$doc"
check "the stored result is intact" cmp -s "$doc" "$T/before.json"
check "no half-written file left" [ -z "$(find "$M" -name '*.tmp*' -o -name '.probe*')" ]
rm -f "$M/filler"

expect_exit 0 "with room again, a run stores" "$PG" run --store "$M" --filter quick b/
check "both runs are stored" [ "$(json "$doc" "len(d['runs'])")" = 2 ]
finish
