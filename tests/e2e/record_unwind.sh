#!/usr/bin/env bash
# perfgate record, continued from record_stacks.sh (split so that the two run
# in parallel): stacks unwound while the program runs give the stacks
# unwound after it; frame-pointer call graphs; sampling by period; the SVG
# and the command's own output.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"

# Unwinding while the program runs (what bounds memory on long recordings),
# forced here by a tiny flush threshold, must give the stacks unwinding after
# the run gives: in time order across CPUs, threads and execs, with no record
# lost while a batch is unwound. The work is a fixed number of calls per path
# (Nn), so the shares are the same however busy the machine is, and the two
# recordings are compared share by share (up to sampling noise).
work="$PROGS/sample_tree thread 800n; $PROGS/sample_lib 1200n; true"
paths=('start_thread;worker;thread_work' 'main;main_work' 'main;lib_work;pgsample_entry;lib_inner')
record unflushed -- sh -c "$work"
export PERFGATE_SAMPLE_FLUSH=50000
record flushed -- sh -c "$work"
unset PERFGATE_SAMPLE_FLUSH
early=$(sed -n 's/^perfgate record: \([0-9]*\) stacks unwound while the command ran.*/\1/p' "$T/err")
at_least "flushed: stacks unwound while the command ran" "${early:-0}" 1
at_least "unflushed samples" "$($F unflushed.folded total)" 100
at_least "flushed samples" "$($F flushed.folded total)" 100
f1=$($F flushed.folded share "${paths[0]}"); f2=$($F flushed.folded share "${paths[1]}"); f3=$($F flushed.folded share "${paths[2]}")
at_least "flushed: thread" "$f1" 10
at_least "flushed: main thread" "$f2" 10
at_least "flushed: library" "$f3" 10
at_least "flushed: all three paths" "$(sum "$f1" "$f2" "$f3")" 85
at_most "flushed: truncated stacks" "$($F flushed.folded truncated)" 5
if agree=$($F flushed.folded agree unflushed.folded "${paths[@]}"); then ok; else bad "flushed and unflushed stacks differ:"; echo "$agree" >&2; fi

# frame pointers: the kernel walks the chain; a leaf without its own frame
# (gcc omits it even with -fno-omit-frame-pointer) gets its caller back from
# one DWARF step over the top of the stack.
record fp --call-graph fp -- "$PROGS/sample_tree_fp" parse
contains "$T/err" ", fp)"
at_least "fp: main;parse;hash share" "$($F fp.folded share 'main;parse;hash')" 80
record fpthread --call-graph fp -- "$PROGS/sample_tree_fp" thread
t1=$($F fpthread.folded share 'start_thread;worker;thread_work'); t2=$($F fpthread.folded share 'main;main_work')
at_least "fp: thread path" "$t1" 10
at_least "fp: main thread path" "$t2" 10
at_least "fp: both paths" "$(sum "$t1" "$t2")" 85

# -c: by period instead of frequency (cpu-clock periods are nanoseconds: 1 ms)
record period -c 1000000 -- "$PROGS/sample_tree" parse
contains "$T/err" "every 1000000 events"
at_least "period samples" "$($F period.folded total)" 20

# the SVG: written (default name when no --folded), names the functions
expect_exit 0 "record -o" "$PG" record -o "$T/out.svg" -- "$PROGS/sample_tree" parse
check "svg written" test -s "$T/out.svg"
contains "$T/out.svg" "<svg"
contains "$T/out.svg" "hash"
(cd "$T" && mkdir -p d && cd d && "$PG" record -- "$PROGS/sample_tree" parse >/dev/null 2>&1)
check "default flamegraph.svg" test -s "$T/d/flamegraph.svg"
# the command's output reaches the user (sample_tree prints one number)
expect_exit 0 "record shows output" "$PG" record --folded "$T/x.folded" -- "$PROGS/sample_tree" parse 1500n
check "child stdout shown" grep -qE '^[0-9]+$' "$T/out"

finish
