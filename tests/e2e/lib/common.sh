# tests/e2e/lib/common.sh — sourced by every end-to-end test.
# Gives: $PG (the perfgate binary), $PROGS (test child programs), $T (a private
# temporary directory, removed at exit), and check/expect helpers that count
# and print "N passed, N failed" at the end.
set -u
PG=${PERFGATE:?PERFGATE must name the perfgate binary}
PROGS=${PG_TEST_PROGS:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/pg-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T     # what perfgate leaves in TMPDIR (kept logs of failures) goes with $T
export NO_COLOR=1
unset PERFGATE_STORE
# The python3 on PATH, resolved once to the interpreter itself, is the one
# every helper and #! line below starts: when PATH's python3 is a wrapper
# script (a pyenv shim costs half a second of CPU per start), the hundreds of
# starts of a suite run would otherwise pay for it each time.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
  mkdir -p "$T/.bin" && ln -s "$py" "$T/.bin/python3" && PATH=$T/.bin:$PATH
fi
unset py
pass=0
fail=0

ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# check DESCRIPTION COMMAND...: the command must succeed.
check() { local d=$1; shift; if "$@"; then ok; else bad "$d"; fi; }

# expect_exit CODE DESCRIPTION COMMAND...: runs the command with stdout in
# $T/out and stderr in $T/err, and checks its exit status.
expect_exit() {
  local want=$1 d=$2; shift 2
  "$@" >"$T/out" 2>"$T/err"
  local got=$?
  if [ "$got" = "$want" ]; then ok; else
    bad "$d: exit $got, expected $want"; sed 's/^/  stdout| /' "$T/out" | head -20 >&2; sed 's/^/  stderr| /' "$T/err" | head -20 >&2
  fi
}

# same DESCRIPTION A B: the two texts must be equal; both are printed when not.
same() { if [ "$2" = "$3" ]; then ok; else bad "$1"; printf '  first | %s\n  second| %s\n' "$2" "$3" >&2; fi; }

# contains FILE TEXT [DESCRIPTION]
contains() { if grep -qF -- "$2" "$1"; then ok; else bad "${3:-$1 should contain '$2'}"; sed 's/^/  | /' "$1" | head -20 >&2; fi; }
lacks()    { if grep -qF -- "$2" "$1"; then bad "${3:-$1 should not contain '$2'}"; else ok; fi; }

# jq-free JSON access: python3 is on every Debian CI image perfgate targets.
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
# holds FILE EXPR: the Python expression over the document d is true (for check).
holds() { [ "$(json "$@")" = True ]; }

# A git repository with one commit, for tests that store results.
make_repo() {
  local dir=$1
  mkdir -p "$dir"
  git -C "$dir" init -q -b main
  git -C "$dir" config user.email t@example.invalid
  git -C "$dir" config user.name test
  git -C "$dir" config commit.gpgsign false
  echo "# test" > "$dir/README"
  git -C "$dir" add README
  git -C "$dir" commit -q -m init
}

# Prints -static when the C compiler links a static program here, else
# nothing. A program that valgrind runs many times is linked statically:
# valgrind then reads no shared library's symbols at each start, which is
# most of its cost for a small program.
static_flag() {
  printf 'int main(void) { return 0; }\n' > "$T/.static.c"
  if cc -static -o "$T/.static" "$T/.static.c" 2>/dev/null; then echo -static; fi
  rm -f "$T/.static" "$T/.static.c"
}

# clone_as ORIGIN DIR...: clones ORIGIN into each DIR, committing as the
# DIR's name ("A" <A@example.invalid>).
clone_as() {
  local o=$1 d; shift
  for d in "$@"; do
    git clone -q "$o" "$d"
    git -C "$d" config user.email "$(basename "$d")@example.invalid"
    git -C "$d" config user.name "$(basename "$d")"
  done
}

# require TOOL...: skips the test (exit 77) when a tool is not installed.
require() {
  local t
  for t in "$@"; do command -v "$t" >/dev/null || { echo "$t not installed: skipped"; exit 77; }; done
}

# make_bench_repo DIR MANIFEST [IGNORED]: make_repo, then DIR/bench with the
# manifest (JSON text) and a .gitignore naming the built program.
make_bench_repo() {
  make_repo "$1"
  mkdir -p "$1/bench"
  printf '%s\n' "$2" > "$1/bench/perfgate.json"
  echo "${3:-prog}" > "$1/bench/.gitignore"
}

# write_mix_prog FILE 'C statements': a benchmark program whose work is
# mix(), an xorshift loop run n times; the statements (with argc, argv) set n.
# Exact counts under valgrind: n decides them.
write_mix_prog() {
  cat > "$1" <<C
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) static unsigned long mix(unsigned long x, long n)
{
    for (long i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
    return x;
}
int main(int argc, char **argv)
{
    unsigned long x = 88172645463325252UL;
    long n = 0;
$2
    x = mix(x, n);
    printf("%lu\n", x & 0xff);
    return 0;
}
C
}

finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit $?
}

# need_chromium: $CHROMIUM is the browser the browser tests drive, or the
# test is skipped (exit 77) saying how to install one.
need_chromium() {
  CHROMIUM=
  local c
  for c in chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then CHROMIUM=$(command -v "$c"); return 0; fi
  done
  echo "skip: no chromium (ci/install-deps.sh installs it)"
  exit 77
}
