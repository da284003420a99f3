#!/usr/bin/env bash
# perfgate bisect on a real repository of 10 commits whose benchmark is built
# by its manifest and measured with valgrind (exact counts, --repeat 1): one
# commit adds ~3% instructions to one function, and bisect names it in at most
# ceil(log2 N)+1 steps, measuring each commit it needs once; a second bisect
# measures nothing. Then the exit-1 cases (BAD does not regress; a change
# spread over two commits, none past the threshold alone) and the exit-2 ones,
# all from the results the first bisect stored: 5 commits measured in all.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc
R=$T/repo
make_bench_repo "$R" '{ "build": "cc -O1 -fno-inline '"$(static_flag)"' -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "mixer",  "command": ["./prog", "mix"] },
                  { "name": "steady", "command": ["./prog", "steady"] } ] }'
write_prog() {  # MIX_N STEADY_N
  write_mix_prog "$R/bench/prog.c" "    n = argc > 1 && !strcmp(argv[1], \"mix\") ? $1 : $2;"
}
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
c=()
# c6 adds 3% to "mixer"'s loop; "steady" grows a lot at c5 and
# again at c6; the other commits change no instruction.
write_prog 30000 1000; c[0]=$(commit "benchmark")
for i in 1 2 3 4 5 6 7 8 9; do
  case $i in
    5) write_prog 30000 5000; c[$i]=$(commit "steady: 5 times the work") ;;
    6) write_prog 30900 10000; c[$i]=$(commit "mix: 3% more iterations") ;;
    *) echo "change $i" >> "$R/README"; c[$i]=$(commit "docs: change $i") ;;
  esac
done
cd "$R"
BIS=("$PG" bisect --backend valgrind --repeat 1 --metrics instructions)

# 9 commits after GOOD: ceil(log2 9) = 4; BAD's step plus the search's.
expect_exit 0 "bisect names the regressing commit" "${BIS[@]}" "${c[0]}" "${c[9]}" --benchmark mixer
cp "$T/out" first.out
contains first.out "bisect: 9 commits after GOOD ${c[0]:0:12} up to BAD ${c[9]:0:12}"
contains first.out "step 1: ${c[9]:0:12} regressed (measured)"
contains first.out "first regressing commit: ${c[6]} mix: 3% more iterations"
lacks first.out "near the threshold" "exact counts are never measured again"
cat first.out     # the steps, for the log
steps=$(grep -c '^step ' first.out)
check "at most ceil(log2 9)+1 = 5 steps (took $steps)" [ "$steps" -le 5 ]
contains first.out "bisect: $steps steps for 9 commits (at most 1 + ceil(log2 9) = 5); measured $((steps + 1)) commits, the rest were stored"
check "each measured commit built once ($(grep -c 'building:' "$T/err") builds)" [ "$(grep -c 'building:' "$T/err")" = $((steps + 1)) ]
# The deltas printed are compare's exact ones.
expect_exit 1 "compare parent and found" "$PG" compare "${c[5]}" "${c[6]}" --backend valgrind --format json
delta=$(json "$T/out" "int(d['benchmarks'][0]['metrics'][0]['delta'])")
check "mixer's delta is positive ($delta)" [ "$delta" -gt 0 ]
contains first.out "  mixer instructions: "
contains first.out "(+$(python3 -c "print('{:,}'.format($delta))"), +"
contains first.out ") against its parent ${c[5]:0:12}"
contains first.out ") against GOOD"
lacks first.out "steady instructions:" "only the benchmark asked for (steady regressed against GOOD too)"

lacks "$T/err" "note:" "the options' own names say nothing"
# Again: every result is stored, nothing is measured. The old spellings
# (--bench NAME, --bench-dir PATH) still work, each saying its new name.
expect_exit 0 "second bisect" "${BIS[@]}" "${c[0]}" "${c[9]}" --bench mixer --bench-dir bench
contains "$T/err" "perfgate: note: '--bench' is spelt '--benchmark' now (the old name still works, for now; see 'perfgate bisect --help')"
contains "$T/err" "perfgate: note: '--bench-dir' is spelt '--manifest' now"
contains "$T/out" "first regressing commit: ${c[6]}"
contains "$T/out" "measured 0 commits, the rest were stored"
lacks "$T/out" "(measured)"
lacks "$T/err" "building"
# Without --bench: the comparison's verdict, any benchmark regressing: steady's
# commit, from the same stored results.
expect_exit 0 "bisect without --bench" "${BIS[@]}" "${c[0]}" HEAD
contains "$T/out" "first regressing commit: ${c[5]} steady: 5 times the work"
contains "$T/out" "  steady instructions: "
lacks "$T/out" "mixer instructions:" "mixer did not regress at steady's commit"
contains "$T/out" "measured 0 commits, the rest were stored"

# Exit 1: BAD does not regress against GOOD.
expect_exit 1 "BAD not regressed" "${BIS[@]}" "${c[0]}" "${c[5]}" --benchmark mixer
contains "$T/out" "BAD ${c[5]:0:12} does not regress against GOOD ${c[0]:0:12}: nothing to bisect"
# Exit 1: steady's two steps, with a threshold between the larger step and
# both (what start-up costs, static or dynamic, decides the percentages: they
# are read from the stored counts): c6 is the first past it against GOOD, but
# not against c5.
steady() { "$PG" show "$1" --format json | python3 -c "import json,sys
print([m for m in [b for r in json.load(sys.stdin) for b in r['benchmarks'] if b['name']=='steady'][0]['metrics'].items() if m[0]=='instructions'][0][1]['samples'][0])"; }
between=$(python3 -c "a,b,c=$(steady "${c[0]}"),$(steady "${c[5]}"),$(steady "${c[6]}")
one=max(b/a,c/b)-1; both=c/a-1; assert one<both; print(round(100*(one+both)/2))")
expect_exit 1 "a regression spread over two commits (threshold $between%)" "${BIS[@]}" "${c[0]}" "${c[9]}" \
  --benchmark steady --threshold instructions=$between%
contains "$T/out" "no single commit explains the regression: ${c[6]:0:12}"
contains "$T/out" "but not against its parent ${c[5]:0:12} (unchanged)"
contains "$T/out" "measured 0 commits, the rest were stored"

# Exit 2: bad input, named.
expect_exit 2 "unknown revision" "${BIS[@]}" "${c[0]}" no-such-branch
contains "$T/err" "unknown revision 'no-such-branch'"
expect_exit 2 "GOOD after BAD" "${BIS[@]}" "${c[9]}" "${c[0]}"
contains "$T/err" "GOOD must be an ancestor of BAD on its first-parent line"
expect_exit 2 "the same commit" "${BIS[@]}" HEAD HEAD
contains "$T/err" "nothing to bisect"
expect_exit 2 "unknown benchmark" "${BIS[@]}" "${c[0]}" "${c[9]}" --benchmark mixr
contains "$T/err" "perfgate: --benchmark 'mixr': no such benchmark in GOOD's results (did you mean 'mixer'?)"
# The manifest and a benchmark's name mixed up: each says what to use.
expect_exit 2 "a path for --benchmark" "${BIS[@]}" "${c[0]}" "${c[9]}" --benchmark bench/perfgate.json
contains "$T/err" "perfgate: --benchmark 'bench/perfgate.json': a benchmark's name has no '/': for the benchmarks' manifest, use --manifest bench/perfgate.json"
expect_exit 2 "the manifest's directory for --bench" "${BIS[@]}" "${c[0]}" "${c[9]}" --bench bench
contains "$T/err" "perfgate: --benchmark 'bench': no such benchmark in GOOD's results ('bench' is a file or directory here: for the benchmarks' manifest, use --manifest)"
expect_exit 2 "a name for --manifest" "${BIS[@]}" "${c[0]}" "${c[9]}" --manifest mixer
contains "$T/err" "perfgate: --manifest 'mixer': no such file or directory (--manifest is the benchmarks' manifest, or a directory with one; a benchmark's name is --benchmark NAME, in bisect)"
expect_exit 2 "unknown metric" "${BIS[@]}" "${c[0]}" "${c[9]}" --gate instrucions
contains "$T/err" "perfgate: --gate 'instrucions': no such metric in GOOD's results (did you mean 'instructions'?)"
expect_exit 2 "one revision" "${BIS[@]}" "${c[0]}"
contains "$T/err" "bisect takes two revisions, GOOD and BAD (got 1)"
check "5 commits measured in all ($(ls .perfgate/results | wc -l) stored)" [ "$(ls .perfgate/results | wc -l)" = 5 ]

finish
