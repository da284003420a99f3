#!/usr/bin/env bash
# perfgate record on programs with known call trees, built without frame
# pointers (DWARF unwinding): the folded stacks must hold those call paths with
# the proportions the programs spend, across a shared library, threads and
# child processes. (record_unwind.sh: unwinding while the program runs, frame
# pointers, periods and the SVG.)
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"

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
at_least "children: both paths" "$(sum "$c1" "$c2")" 85
at_least "children: named by their own comm" "$($F children.folded share-contains 'sample_tree;_start;')" 10
at_most "children: truncated stacks" "$($F children.folded truncated)" 5

finish
