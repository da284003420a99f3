#!/usr/bin/env bash
# A result document with one long token is read in time linear in its
# length (issue 37, item 4): yajl rescans a token cut by the end of a piece
# of the file with every piece after it, so util/json_scratch.c makes each
# piece at least as long as the token so far. Counted, not timed: valgrind's
# exact instruction counts of `perfgate show` on documents whose one long
# token is 1 and 4 MiB, less those of a document without one. Four times
# the token, about four times the instructions (linear: 4.0; it was 15 when
# each piece rescanned the token).
. "$(dirname "$0")/lib/common.sh"
cd "$T"
# doc FILE SHAPE MIB: a string dense with escapes (\" and runs of \\ that a
# piece may end inside), or a number of that many digits (then refused).
doc() {
  python3 - "$@" <<'PY'
import sys
path, shape, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
n = mib << 20
s, num = '"short"', "1"
if shape == "string":
    unit = 'ab\\"c\\\\\\\\\\"de\\\\\\\\fg\\u00e9h '
    s = '"' + unit * (n // len(unit)) + '"'
elif shape == "number":
    num = "1" + "0" * n
with open(path, "w") as f:
    f.write('{"schema": "perfgate-run/1", "perfgate_version": "t", "id": "r1", "commit": null, "dirty": false, '
            '"machine": {"id": "5ca1e0000001"}, "backend": "perf", "notices": [%s], '
            '"benchmarks": [{"name": "b", "status": "ok", "runs": 1, "timeout": %s, '
            '"metrics": {"instructions": {"unit": "count", "backend": "perf", "samples": [1]}}}]}' % (s, num))
PY
}
doc none.json none 0
doc s1.json string 1
doc s4.json string 4
doc n1.json number 1
doc n4.json number 4
for f in none s1 s4; do
  expect_exit 0 "show, $f" "$PG" show $f.json
  contains "$T/out" "instructions"
done
for f in n1 n4; do
  expect_exit 2 "show, $f: a number that is no timeout" "$PG" show $f.json
  contains "$T/err" "perfgate: $f.json: benchmarks[0].timeout: expected"
done
if ! command -v valgrind >/dev/null || nm "$PG" 2>/dev/null | grep -q __asan_init; then
  echo "counts skipped: no valgrind, or perfgate is sanitized in this build (the plain build's test counts)"
  finish
fi
irefs() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$PG" show "$1" 2>&1 >/dev/null |
    sed -n 's/.*I *refs: *//p' | tr -d ,
}
base=$(irefs none.json)
for shape in s n; do
  one=$(irefs ${shape}1.json); four=$(irefs ${shape}4.json)
  r=$(python3 -c "print(round(($four - $base) / ($one - $base), 2))")
  echo "$shape: instructions $base (no long token), $one (1 MiB), $four (4 MiB): 4x the token, ${r}x its cost"
  check "${shape}: four times the token, at most 4.5 times the instructions (got $r)" \
    python3 -c "import sys; sys.exit(not $r <= 4.5)"
done
finish
