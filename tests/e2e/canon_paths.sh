#!/usr/bin/env bash
# One path everywhere (harness/measure/canon.h): a C program that calls
# pthread_getattr_np on its main thread (glibc then parses /proc/self/maps,
# whose lines hold the executable's absolute path) counts exactly the same
# under valgrind
#   - run as `perfgate run -- ./prog` from a short and from a long directory;
#   - from a manifest whose executable lives beside the repository (outside
#     it), in a work tree with a long path and in a git worktree elsewhere,
#     and it sees /run/perfgate/side/prog and /run/perfgate/tree/bench;
#   - as a user other than root (a user namespace; skipped where the kernel
#     allows none, which `perfgate doctor` says);
#   - and `compare --run-missing` across a docs-only commit gives a delta of 0.
. "$(dirname "$0")/lib/common.sh"
require valgrind git
P=$PROGS/stackattr
VG=(--backend valgrind --no-native --metrics instructions --no-store --format json)
count() { json "$T/out" 'd["benchmarks"][0]["metrics"]["instructions"]["samples"][0]' 2>/dev/null; }
# same_count DESCRIPTION A B: two counts, equal.
same_count() { case "$2" in ''|*[!0-9.]*) bad "$1: no count ('$2')";; *) same "$1" "$2" "$3";; esac; }
LONG=a-directory-whose-name-is-much-longer-than-the-short-ones-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx

expect_exit 0 "doctor" "$PG" doctor
if [ "$(id -u)" = 0 ]; then
  contains "$T/out" "its tree at /run/perfgate/tree     ok   (as root: a mount namespace)"
fi

# A command line, from directories of two lengths.
mkdir -p "$T/s" "$T/$LONG"
cp "$P" "$T/s/prog" && cp "$P" "$T/$LONG/prog"
cd "$T/s" && expect_exit 0 "run -- ./prog in a short directory" "$PG" run "${VG[@]}" -- ./prog
short=$(count)
cd "$T/$LONG" && expect_exit 0 "run -- ./prog in a long directory" "$PG" run "${VG[@]}" -- ./prog
same_count "run -- ./prog: the same count from a short and a long directory" "$short" "$(count)"

# An executable beside the repository: a work tree at a long path, and a git
# worktree elsewhere, each with its own copy of the program beside it.
R=$T/$LONG/repo
make_repo "$R"
mkdir -p "$R/bench" "$T/$LONG/side" "$T/w/side"
printf '{ "benchmarks": [ { "name": "beside", "command": ["../../side/prog"] } ] }\n' > "$R/bench/perfgate.json"
git -C "$R" add -A && git -C "$R" commit -qm bench && git -C "$R" worktree add -q "$T/w/wt"
cp "$P" "$T/$LONG/side/prog" && cp "$P" "$T/w/side/prog"
cd "$R" && expect_exit 0 "a program beside the work tree" "$PG" run "${VG[@]}" bench/
in_tree=$(count)
cd "$T/w/wt" && expect_exit 0 "a program beside a git worktree" "$PG" run "${VG[@]}" bench/
same_count "beside the tree: the same count in the work tree and in a git worktree" "$in_tree" "$(count)"
if [ "$(id -u)" = 0 ]; then
  expect_exit 0 "where it runs" env PG_WHERE_LOG="$T/where" "$PG" run "${VG[@]}" --pass-env PG_WHERE_LOG bench/
  same "what the program saw of its path and its directory" "$(cat "$T/where")" \
    "$(printf 'exe /run/perfgate/side/prog\ncwd /run/perfgate/tree/bench')"
fi

# Not as root: a user namespace where the kernel allows one.
as_user() { "$@"; }
if [ "$(id -u)" = 0 ]; then
  if command -v setpriv >/dev/null; then
    as_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/ TMPDIR="$T/tmpu" "$@"; }
  else
    as_user() { echo "no setpriv: not as another user" >&2; return 77; }
  fi
fi
chmod 755 "$T" && mkdir -m 1777 "$T/tmpu"
cd "$T/s"
as_user "$PG" doctor > "$T/doctor" 2>&1
rc=$?
if [ "$rc" = 77 ]; then
  echo "skipped: no way to run as another user"
elif grep -q "its tree at /run/perfgate/tree     ok   (not root: a user namespace, the user mapped to itself)" "$T/doctor"; then
  ok
  expect_exit 0 "not root: run -- ./prog in a short directory" as_user "$PG" run "${VG[@]}" -- ./prog
  short=$(count)
  cd "$T/$LONG" && expect_exit 0 "not root: run -- ./prog in a long directory" as_user "$PG" run "${VG[@]}" -- ./prog
  same_count "not root: the same count from a short and a long directory" "$short" "$(count)"
  expect_exit 0 "not root: where it runs" as_user env PG_WHERE_LOG="$T/tmpu/where" "$PG" run "${VG[@]}" \
    --pass-env PG_WHERE_LOG -- ./prog
  same "not root: what the program saw" "$(cat "$T/tmpu/where")" \
    "$(printf 'exe /run/perfgate/tree/prog\ncwd /run/perfgate/tree')"
else
  # Said, with why: the tree is then where it is, and checkouts padded.
  contains "$T/doctor" "its tree at /run/perfgate/tree     no   "
  echo "skipped: no user namespace here: $(grep 'its tree at' "$T/doctor")"
fi

# compare --run-missing across a docs-only commit: the base measured in a
# temporary checkout, the head in the work tree.
M=$T/$LONG/measured
make_repo "$M"
mkdir -p "$M/bench"
printf '{ "build": "cp %s bench/prog", "benchmarks": [ { "name": "stackattr", "command": ["./prog"] } ] }\n' \
  "$P" > "$M/bench/perfgate.json"
echo prog > "$M/bench/.gitignore"
git -C "$M" add -A && git -C "$M" commit -qm bench
echo "docs only" >> "$M/README" && git -C "$M" commit -qam docs
cd "$M"
expect_exit 0 "run in the work tree" "$PG" run --backend valgrind --no-native --metrics instructions bench/
expect_exit 0 "compare --run-missing" "$PG" compare HEAD~1 HEAD --run-missing --backend valgrind --no-native \
  --metrics instructions --format json -o "$T/cmp.json"
check "run-missing: the exact instruction delta is 0" \
  [ "$(json "$T/cmp.json" '[m["delta"] for b in d["benchmarks"] for m in b["metrics"] if m["name"]=="instructions"]')" = "[0]" ]

finish
