# tests/e2e/lib/record.sh — sourced (after common.sh) by the tests of
# perfgate record's stacks: $F asks questions of a folded file (folded.py),
# record NAME ARGS... records into $T/NAME.folded, at_least/at_most compare.
F="python3 $(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/folded.py"
cd "$T" || exit 1

# at_least WHAT ACTUAL MIN (numbers compared by awk: no interpreter to start)
at_least() { if awk -v a="$2" -v b="$3" 'BEGIN { exit !(a != "" && a + 0 >= b + 0) }'; then ok; else bad "$1: $2 < $3"; fi; }
at_most()  { if awk -v a="$2" -v b="$3" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'; then ok; else bad "$1: $2 > $3"; fi; }
sum() { awk -v a="$1" -v b="$2" ${3:+-v c="$3"} 'BEGIN { printf "%.1f\n", a + b + c }'; }

record() { # NAME ARGS... : records into $T/NAME.folded
  local name=$1; shift
  expect_exit 0 "record $name" "$PG" record --folded "$T/$name.folded" "$@"
  check "$name.folded is well-formed" $F "$T/$name.folded" check
}

