#!/usr/bin/env bash
# perfgate record -a: every process on every CPU, as `perf record -ag`.
# A busy program started before the recording (known only from /proc) and
# one started during it (known from its exec's records) are each under
# their own root frame with their functions named; kernel frames carry
# FlameGraph's _[k] mark and are named from /proc/kallsyms; perfgate's
# shares of the busy program agree with perf sampling the same seconds
# system-wide; a user who may not sample the whole machine is told why and
# how to fix it; wrong option combinations are one-line errors.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
require perf

# Usage errors: nothing recorded, exit 2, one line naming the problem.
expect_exit 2 "-a without a command or --duration" "$PG" record -a --folded "$T/x.folded"
contains "$T/err" "-a: what to record while: a command (perfgate record -a -- sleep 5) or --duration S"
expect_exit 2 "--duration without -a" "$PG" record --duration 1 --folded "$T/x.folded" -- true
contains "$T/err" "--duration is for -a"
expect_exit 2 "-a with both" "$PG" record -a --duration 1 --folded "$T/x.folded" -- true
contains "$T/err" "--duration or a command, not both"
check "nothing written by the usage errors" test ! -e "$T/x.folded"

# -a records every process, other tests' too: under ctest -j a concurrent
# test's "shares" (record_linkers.sh runs a stripped copy whose debug file
# its clean-up removes) came out as addresses here (8.8% of the samples, in
# a load test). This test's own programs are a copy under a name of its own.
cp "$PROGS/shares" "$T/pg-rsys-shares" || bad "copy shares"
me=pg-rsys-shares
# The busy program runs before the recording starts and after it ends
# (`shares 100000` is some thousand seconds: it is killed below).
"$T/$me" 100000 >/dev/null &
busy=$!
trap 'kill $busy 2>/dev/null; rm -rf "$T"' EXIT
sleep 0.3
# ...and `work` starts while it runs: its mappings come from its exec's records.
expect_exit 0 "record -a -- CMD" "$PG" record -a --folded "$T/all.folded" -- \
  sh -c "sleep 0.5; exec '$T/$me' 60 >/dev/null"
check "all.folded is well-formed" $F "$T/all.folded" check
contains "$T/err" ", every CPU)"
# Both programs are $me: the one started first is known from /proc, the
# other from its exec. Either way every frame of theirs is named.
at_least "samples of the busy program's mix" "$(grep -c "^$me;.*main;hash_all;mix" "$T/all.folded")" 1
lacks "$T/all.folded" "$me;[unknown]" "a frame of a running program left unknown"
# A program whose mappings are misread leaves most frames as addresses; a
# stray sample in code no symbol covers (the PLT) may leave one, which a
# loaded machine made happen once in a load test (as in record_linkers.sh).
at_most "samples with a frame of a running program left as an address" \
  "$($F "$T/all.folded" share-contains "$me+0x")" 1
if [ "$(id -u)" = 0 ]; then
  # Root may see the kernel: its frames are marked and named (not one unnamed).
  check "kernel frames with FlameGraph's _[k] mark" grep -q '_\[k\]' "$T/all.folded"
  check "kernel frames named from /proc/kallsyms" grep -Eq ';(do_syscall_64|entry_SYSCALL_64[a-z_]*)_\[k\]' "$T/all.folded"
fi

# --duration: the machine for that long, with no command of the user's.
expect_exit 0 "record -a --duration" "$PG" record -a --duration 1 --folded "$T/dur.folded"
at_least "the busy program under --duration" "$(grep -c "^$me;" "$T/dur.folded")" 1
contains "$T/err" "recorded for"

kill $busy 2>/dev/null
wait $busy 2>/dev/null

# Shares against perf sampling the same seconds, system-wide: `shares` runs
# its three phases over and over beside both recorders, a process every
# 0.01 s of CPU. perfgate records a little longer than perf (perf's start
# and its end are inside perfgate's window): with rounds that short, the
# windows' edges cut off a negligible part of a round even on a loaded
# machine, where a process gets a fraction of a CPU (with 0.2 s rounds a
# 2 s window held two or three, and the phases they cut decided the shares).
sh -c "while :; do '$T/$me' 1 >/dev/null; done" &
busy=$!
sleep 0.2
expect_exit 0 "record -a -- perf record -a" "$PG" record -a --folded "$T/vs.folded" -- \
  perf record -q -a -g -e cpu-clock -o "$T/vs.perf.data" -- sleep 2
if perf report -i "$T/vs.perf.data" --comms "$me" --stdio --no-children --sort sym -g none >"$T/vs.perf.txt" 2>"$T/vs.perf.err"; then
  ok
  check "self shares of the busy program within 10 points of perf's" \
    $VS_PERF --comm "$me" "$T/vs.folded" "$T/vs.perf.txt" 10 mix walk step
else
  bad "perf report"; sed 's/^/  | /' "$T/vs.perf.err" | head >&2
fi
kill $busy 2>/dev/null
wait $busy 2>/dev/null

# Who may not sample the machine is told why and how to fix it.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" = 0 ] && [ "$paranoid" -gt 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$T"
  expect_exit 2 "record -a as a user" setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$PG" record -a --duration 0.2 --folded "$T/user.folded"
  contains "$T/err" "system-wide sampling is not allowed here (kernel.perf_event_paranoid is $paranoid"
  contains "$T/err" "fix: run as root, or sudo sysctl kernel.perf_event_paranoid=0"
  check "nothing written when refused" test ! -e "$T/user.folded"
fi
finish
