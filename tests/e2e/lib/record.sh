# tests/e2e/lib/record.sh — sourced (after common.sh) by the tests of
# perfgate record's stacks: $F asks questions of a folded file (folded.py),
# record NAME ARGS... records into $T/NAME.folded, at_least/at_most compare;
# record_with_perf and $VS_PERF set perfgate's shares against perf's.
F="python3 $(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/folded.py"
VS_PERF="python3 $(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/vs_perf.py"
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

# record_with_perf NAME PROGRAM ARGS...: perfgate records `perf record` of the
# program (user space, as perfgate samples; frame pointers, as `perf record
# -g` does), so that both sample the same run: time a busy machine or its
# host takes from the program falls on the same phases for both, and only
# sampling noise sets them apart. Gives perfgate's stacks in $T/NAME.folded
# (the program's under its own comm, perf's own under "perf") and perf's self
# shares by symbol in $T/NAME.perf.txt, for $VS_PERF --comm.
record_with_perf() {
  local name=$1; shift
  record "$name" -- perf record -q -e cpu-clock:u -g -o "$T/$name.perf.data" -- "$@"
  if perf report -i "$T/$name.perf.data" --stdio --no-children --sort sym -g none >"$T/$name.perf.txt" 2>"$T/$name.perf.err"; then
    ok
  else
    bad "perf report of $name"; sed 's/^/  | /' "$T/$name.perf.err" | head -10 >&2
  fi
}
