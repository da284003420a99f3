#!/usr/bin/env bash
# perfgate record on programs with known call trees, built without frame
# pointers (DWARF unwinding) and with them (--call-graph fp): the folded
# stacks must hold those call paths with the proportions the programs spend.
. "$(dirname "$0")/lib/common.sh"
F="python3 $(cd "$(dirname "$0")" && pwd)/lib/folded.py"
cd "$T"

# at_least WHAT ACTUAL MIN
at_least() { if python3 -c "import sys; sys.exit(0 if float('$2') >= float('$3') else 1)"; then ok; else bad "$1: $2 < $3"; fi; }
at_most()  { if python3 -c "import sys; sys.exit(0 if float('$2') <= float('$3') else 1)"; then ok; else bad "$1: $2 > $3"; fi; }

record() { # NAME ARGS... : records into $T/NAME.folded
  local name=$1; shift
  expect_exit 0 "record $name" "$PG" record --folded "$T/$name.folded" "$@"
  check "$name.folded is well-formed" $F "$T/$name.folded" check
}

# main -> parse -> hash: hash is the leaf of nearly every sample, under main;parse.
record parse -- "$PROGS/sample_tree" parse
contains "$T/err" "perfgate record: "
contains "$T/err" "wrote: $T/parse.folded"
at_least "parse samples" "$($F parse.folded total)" 20
at_least "main;parse;hash share" "$($F parse.folded share 'main;parse;hash')" 80
contains parse.folded "sample_tree;_start;"  "comm is the root frame, _start under it"

# main -> sort -> compare (through a function pointer)
record sort -- "$PROGS/sample_tree" sort
at_least "main;sort;compare share" "$($F sort.folded share 'main;sort;compare')" 80

# recursion: 21 nested recurse frames, then spin
record recurse -- "$PROGS/sample_tree" recurse
at_least "recursion depth" "$($F recurse.folded share "main;$(printf 'recurse;%.0s' $(seq 21))spin")" 80

# a shared library: main -> lib_work -> pgsample_entry -> lib_inner (in libpgsample.so)
record lib -- "$PROGS/sample_lib"
at_least "shared library path" "$($F lib.folded share 'main;lib_work;pgsample_entry;lib_inner')" 80

# a second thread: its stacks start at clone3/start_thread, the main thread's at _start
record thread -- "$PROGS/sample_tree" thread
at_least "thread share" "$($F thread.folded share 'start_thread;worker;thread_work')" 30
at_least "main thread share" "$($F thread.folded share 'main;main_work')" 30
at_most "truncated stacks" "$($F thread.folded truncated)" 5

# child processes: sh forks, each child execs another program; every sample
# resolves against the program mapped at that moment, under its own name.
record children -- sh -c "$PROGS/sample_tree parse 2500n; $PROGS/sample_lib 1200n; true"
# (the split between the two depends on how much CPU each got: only the sum is exact)
c1=$($F children.folded share 'main;parse;hash'); c2=$($F children.folded share 'main;lib_work;pgsample_entry;lib_inner')
at_least "child 1 (sample_tree): main;parse;hash" "$c1" 10
at_least "child 2 (sample_lib): main;lib_work;pgsample_entry;lib_inner" "$c2" 10
at_least "children: both paths" "$(python3 -c "print($c1 + $c2)")" 85
at_least "children: named by their own comm" "$($F children.folded share-contains 'sample_tree;_start;')" 10
at_most "children: truncated stacks" "$($F children.folded truncated)" 5

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
at_least "flushed: all three paths" "$(python3 -c "print($f1 + $f2 + $f3)")" 85
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
at_least "fp: both paths" "$(python3 -c "print($t1 + $t2)")" 85

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
