#!/usr/bin/env bash
# perfgate run checks the store before it measures: a corrupt store document,
# one of the wrong shape or schema, and a read-only store each stop the run
# with exit 2 and the reason, before any benchmark ran, with the store file
# left as it was.
. "$(dirname "$0")/lib/common.sh"
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }

R=$T/repo
make_repo "$R"
cd "$R"
expect_exit 0 "a first run stores a document" "$PG" run --backend valgrind -- "$PROGS/work" 10
head=$(git rev-parse HEAD)
stored=$(ls "$R/.perfgate/results/$head/"*.json 2>/dev/null | head -1)
check "store document written" test -f "$stored"
cp "$stored" "$T/good.json"

# The benchmark leaves a mark when it runs; it must not run.
mark=$T/ran
bench=(sh -c "touch '$mark'")

echo '{ "runs": [ truncated' > "$stored"
cp "$stored" "$T/before.json"
expect_exit 2 "corrupt store document: refused before measuring" "$PG" run --backend valgrind -- "${bench[@]}"
contains "$T/err" "$stored"
contains "$T/err" "corrupt result file"
contains "$T/err" "invalid JSON"
check "corrupt: nothing measured" test ! -e "$mark"
check "corrupt: store file untouched" cmp -s "$stored" "$T/before.json"
check "corrupt: one line of error" [ "$(wc -l < "$T/err")" = 1 ]

python3 - "$T/good.json" "$stored" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["schema"] = "perfgate-run/2"
json.dump(d, open(sys.argv[2], "w"))
PY
cp "$stored" "$T/before.json"
expect_exit 2 "store document of another major version: refused before measuring" "$PG" run --backend valgrind -- "${bench[@]}"
contains "$T/err" "$stored: runs[0].schema: unsupported schema \"perfgate-run/2\""
check "schema: nothing measured" test ! -e "$mark"
check "schema: store file untouched" cmp -s "$stored" "$T/before.json"

python3 - "$T/good.json" "$stored" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["benchmarks"][0]["metrics"] = []
json.dump(d, open(sys.argv[2], "w"))
PY
cp "$stored" "$T/before.json"
expect_exit 2 "store document of the wrong shape: refused before measuring" "$PG" run --backend valgrind -- "${bench[@]}"
contains "$T/err" "$stored: runs[0].benchmarks[0].metrics: expected an object, got an array"
check "shape: nothing measured" test ! -e "$mark"
check "shape: store file untouched" cmp -s "$stored" "$T/before.json"
cp "$T/good.json" "$stored"

# A read-only store. Root writes anywhere, so as root the run is made as nobody.
as_user() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ] && ! command -v setpriv >/dev/null; then
  echo "read-only store: needs setpriv when run as root: skipped"
else
  mkdir -p "$T/nogit" "$T/tmp" "$T/st"
  chmod 755 "$T" "$T/nogit"; chmod 1777 "$T/tmp"
  cd "$T/nogit"
  expect_exit 0 "a run into a fresh store" "$PG" run --backend valgrind --store "$T/st" -- "$PROGS/work" 10
  ro=$(ls "$T/st/results/nocommit/"*.json | head -1)
  cp "$ro" "$T/ro-before.json"
  chmod -R a+rX "$T/st"; chmod 777 "$T/st/logs"; chmod 555 "$T/st/results/nocommit"
  expect_exit 2 "read-only store: refused before measuring" as_user env TMPDIR="$T/tmp" "$PG" run --backend valgrind --store "$T/st" -- "${bench[@]}"
  contains "$T/err" "cannot store results"
  contains "$T/err" "$T/st/results"   # the directory it cannot write in
  check "read-only: nothing measured" test ! -e "$mark"
  check "read-only: store file untouched" cmp -s "$ro" "$T/ro-before.json"
  chmod 755 "$T/st/results/nocommit"
fi

# The same benchmark with a sound store does run (so the checks above can fail).
cd "$R"
expect_exit 0 "a sound store: the benchmark runs and is stored" "$PG" run --backend valgrind -- "${bench[@]}"
check "sound store: measured" test -e "$mark"
check "sound store: appended" [ "$(json "$stored" "len(d['runs'])")" = 2 ]
finish
