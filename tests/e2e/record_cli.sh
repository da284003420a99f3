#!/usr/bin/env bash
# perfgate record's command line: usage errors exit 2 and write nothing; a
# failing command exits 1 with its stacks still written.
. "$(dirname "$0")/lib/common.sh"
cd "$T"

expect_exit 2 "no command" "$PG" record --folded a.folded
contains "$T/err" "perfgate: no command to record"
expect_exit 2 "bad call graph" "$PG" record -g lbr --folded a.folded -- /bin/true
contains "$T/err" "--call-graph: expected fp or dwarf, got 'lbr'"
expect_exit 2 "bad -F" "$PG" record -F fast --folded a.folded -- /bin/true
contains "$T/err" "-F: expected a whole number > 0, got 'fast'"
expect_exit 2 "bad --stack-size" "$PG" record --stack-size 100 --folded a.folded -- /bin/true
contains "$T/err" "--stack-size 100"
expect_exit 2 "--stack-size above the kernel's limit" "$PG" record --stack-size 65536 --folded a.folded -- /bin/true
contains "$T/err" "--stack-size 65536: a multiple of 8 up to 65528 (the kernel's limit)"
# Stacks deeper than the DWARF copy (41 frames of 1 KiB): a warning naming the
# fix; the kernel's maximum copy takes them whole, and then no warning.
expect_exit 0 "deep stacks, the default copy" "$PG" record --folded deep1.folded -- "$PROGS/deep" 40 30000000
contains "$T/err" "of the stacks were truncated: deeper than the 8192 bytes copied per sample; raise --stack-size (up to 65528)"
expect_exit 0 "deep stacks, --stack-size 65528" "$PG" record --stack-size 65528 --folded deep2.folded -- "$PROGS/deep" 40 30000000
lacks "$T/err" "were truncated"
check "65528: whole stacks, main and 41 descend frames above spin" \
  grep -qE "^deep;_start;.*;main(;descend){41};spin [0-9]+$" deep2.folded
# Stacks stopped by code without unwind information (an assembly routine
# without CFI) did not run out of the copy: no advice to raise --stack-size,
# which would change nothing, but the real reason.
expect_exit 0 "no unwind information" "$PG" record --folded nocfi.folded -- "$PROGS/nocfi" 2000000000
contains "$T/err" "of the stacks were truncated where unwinding could not go on: code without unwind information"
lacks "$T/err" "raise --stack-size"
# (what is above it is libunwind's guess from rbp: nothing, or callers when main keeps a frame pointer)
check "the routine is still named, its stack marked [truncated]" grep -qE "^nocfi;\[truncated\];(.*;)?spin_nocfi [0-9]+$" nocfi.folded
expect_exit 2 "unknown event" "$PG" record -e no-such-event --folded a.folded -- "$PROGS/work" 1000
contains "$T/err" "no-such-event"
expect_exit 2 "missing program" "$PG" record --folded a.folded -- "$T/no-such-program"
contains "$T/err" "no-such-program"
check "nothing written on usage errors" test ! -e a.folded
expect_exit 2 "unwritable output" "$PG" record --folded "$T/no/such/dir/a.folded" -- "$PROGS/sample_tree" parse 1500n
contains "$T/err" "no/such/dir"

# A crashing or failing command: exit 1, stacks written, the reason said.
expect_exit 1 "failing command" "$PG" record --folded fail.folded -- "$PROGS/sample_tree" parse 2500n 3
contains "$T/err" "exited with status 3"
check "stacks of a failing command" grep -q "main;parse;hash" fail.folded
expect_exit 1 "crashing command" "$PG" record --folded crash.folded -- "$PROGS/sample_tree" crash 2500n
contains "$T/err" "killed by signal 11 (SIGSEGV)"
check "stacks of a crashing command" grep -q "main;parse;hash" crash.folded
# "No samples" is made certain, not left to chance: a period of 10^12 ns of
# CPU time cannot elapse in these commands, however the scheduler treats them.
never="-e cpu-clock -c 1000000000000"
expect_exit 1 "a failure with no sample" "$PG" record $never --folded c2.folded -- "$PROGS/crash"
contains "$T/err" "no samples"
# A command that gave no sample says so.
expect_exit 2 "no samples" "$PG" record $never --folded short.folded -- /bin/true
contains "$T/err" "no samples: /bin/true ran for"
contains "$T/err" "lower -c or record a longer run"
check "nothing written without samples" test ! -e short.folded
# -e: a software event works everywhere; a hardware one needs a PMU, and says so when there is none.
expect_exit 0 "-e page-faults" "$PG" record -e page-faults -c 1 --folded pf.folded -- "$PROGS/sample_tree" parse 1500n
contains "$T/err" "(page-faults, every 1 events, dwarf)"
check "page-fault stacks" test -s pf.folded
"$PG" record -e branch-misses --folded bm.folded -- "$PROGS/sample_tree" parse 1500n >"$T/out" 2>"$T/err"; rc=$?
if [ $rc = 0 ]; then
  check "branch-misses sampled (PMU present)" grep -q "main;parse" bm.folded
else
  check "no PMU: exit 2 ($rc)" [ $rc = 2 ]
  contains "$T/err" "cannot sample branch-misses: no hardware performance counters here"
  check "nothing written" test ! -e bm.folded
fi

# Ctrl-C: the command is stopped, what was sampled is written, exit 130.
"$PG" record --folded int.folded -- "$PROGS/sample_tree" parse 30 >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 50); do sleep 0.1; [ -n "$(pgrep -P $pid)" ] && break; done
sleep 0.5
kill -INT $pid
wait $pid; rc=$?
check "interrupted: exit 130 ($rc)" [ $rc = 130 ]
check "interrupted: stacks written" grep -q "main;parse;hash" int.folded

# --folded - writes to stdout
expect_exit 0 "folded to stdout" "$PG" record --folded - -- "$PROGS/sample_tree" parse 1500n
contains "$T/out" "main;parse;hash"
check "stdout holds only folded lines (the command's output went to stderr)" python3 "$(cd "$(dirname "$0")" && pwd)/lib/folded.py" "$T/out" check

finish
