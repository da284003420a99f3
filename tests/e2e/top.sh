#!/usr/bin/env bash
# perfgate top on a hand-written profile whose every answer is known: self,
# total, the running sum, recursion counted once, filters, the tree around a
# function, -n, --sort, names cut to 80 columns or whole, JSON, and bad input
# refused with one line and exit 2. Then every number against the flamegraph
# of the same stacks, for this file and for a recorded one.
. "$(dirname "$0")/lib/common.sh"
cd "$T"
VS_FG="python3 $(dirname "$0")/lib/top_vs_flamegraph.py"

# 100 samples. fib recurses: its 7 samples of fib;fib;fib count once in its total.
cat > p.folded <<'F'
prog;main;parse;hash 30
prog;main;parse 20
prog;main;sort;compare 40
prog;main;fib;fib;fib 7
prog;main;fib 3
F
row() { # FILE NAME "SELF SELF% SUM% TOTAL TOTAL%": the row of NAME, blanks squeezed
  local got
  got=$(awk -v n="$2" '$NF == n { $NF = ""; print }' "$1" | sed 's/ *$//; s/^ *//; s/  */ /g')
  [ "$got" = "$3" ] && ok || bad "row $2 of $1: '$got', expected '$3'"
}

expect_exit 0 "plain" "$PG" top p.folded
contains "$T/out" "p.folded: 100 samples, 7 functions"
row "$T/out" compare "40 40.00% 40.00% 40 40.00%"
row "$T/out" hash "30 30.00% 70.00% 30 30.00%"
row "$T/out" parse "20 20.00% 90.00% 50 50.00%"
row "$T/out" fib "10 10.00% 100.00% 10 10.00%"
row "$T/out" main "0 0.00% 100.00% 100 100.00%"
row "$T/out" prog "0 0.00% 100.00% 100 100.00%"
[ "$(sed -n 3p "$T/out" | awk '{print $NF}')" = compare ] && ok || bad "sorted by self: compare first"
[ "$(tail -1 "$T/out" | awk '{print $NF}')" = sort ] && ok || bad "ties by total, then name: sort last"

expect_exit 0 "--sort total -n 3" "$PG" top --sort total -n 3 p.folded
[ "$(sed -n '3,5p' "$T/out" | awk '{printf "%s ", $NF}')" = "main prog parse " ] && ok || bad "--sort total: main prog parse"
contains "$T/out" "top 3 by total"
contains "$T/out" "(4 more; -n 0 shows all)"
row "$T/out" parse "20 20.00% 20.00% 50 50.00%"
[ "$(wc -l < "$T/out")" -eq 6 ] && ok || bad "-n 3: header, columns, 3 rows, the rest counted"
expect_exit 0 "-n 0" "$PG" top -n 0 p.folded
[ "$(wc -l < "$T/out")" -eq 9 ] && ok || bad "-n 0: all 7 rows"

expect_exit 0 "stdin" "$PG" top - < p.folded
contains "$T/out" "<stdin>: 100 samples"

# Filters drop whole stacks; percentages stay of all 100.
expect_exit 0 "--focus" "$PG" top --focus '^(hash|fib)$' p.folded
contains "$T/out" "--focus '^(hash|fib)\$': 40 of 100 samples kept (40.00%)"
row "$T/out" hash "30 30.00% 30.00% 30 30.00%"
row "$T/out" parse "0 0.00% 40.00% 30 30.00%"
lacks "$T/out" compare
expect_exit 0 "--ignore" "$PG" top --ignore 'a(rs|sh)' p.folded
row "$T/out" compare "40 40.00% 40.00% 40 40.00%"
lacks "$T/out" parse
contains "$T/out" "50 of 100 samples kept"
expect_exit 0 "--focus and --ignore" "$PG" top --focus main --ignore '^(sort|fib)$' p.folded
contains "$T/out" "50 of 100 samples kept"
row "$T/out" main "0 0.00% 50.00% 50 50.00%"

# The tree around one function.
expect_exit 0 "--callers --callees" "$PG" top --callers fib --callees fib p.folded
contains "$T/out" "fib: total 10 (10.00%), self 10 (10.00%)"
[ "$(sed -n '/^callers of fib/,/^callees/p' "$T/out" | awk 'NF == 3 && $1 ~ /^[0-9]+$/ {printf "%s:%s ", $3, $1}')" = "main:10 fib:7 " ] \
  && ok || bad "fib's callers: main 10, fib 7 (recursion once per stack)"
[ "$(sed -n '/^callees of fib/,$p' "$T/out" | awk 'NF == 3 && $1 ~ /^[0-9]+$/ {printf "%s:%s ", $3, $1}')" = "fib:7 " ] \
  && ok || bad "fib's callees: fib 7"
expect_exit 0 "--callees only" "$PG" top --callees parse p.folded
contains "$T/out" "parse: total 50 (50.00%), self 20 (20.00%)"
lacks "$T/out" "callers of"
contains "$T/out" "callees of parse:"
grep -qE '^ +30 +30\.00% +hash$' "$T/out" && ok || bad "parse calls hash in 30 samples"
expect_exit 0 "--callers of the root" "$PG" top --callers prog p.folded
contains "$T/out" "(none: the root frame)"
expect_exit 0 "peek as JSON" "$PG" top --format json --callers parse --callees parse p.folded
[ "$(json "$T/out" "[(e['name'], e['count'], e['pct']) for e in d['callers']] + [(e['name'], e['count']) for e in d['callees']]")" \
  = "[('main', 50, 50), ('hash', 30)]" ] && ok || bad "peek JSON: callers and callees"
[ "$(json "$T/out" "(d['function']['self'], d['function']['total'])")" = "(20, 50)" ] && ok || bad "peek JSON: parse's numbers"
expect_exit 2 "unknown function" "$PG" top --callers pars p.folded
contains "$T/err" "no function 'pars' in the profile (did you mean 'parse'?)"
expect_exit 2 "function filtered out" "$PG" top --focus hash --callers compare p.folded
contains "$T/err" "'compare' is in no stack that --focus/--ignore kept"
expect_exit 2 "two functions" "$PG" top --callers parse --callees main p.folded

# JSON: the same rows.
expect_exit 0 "--format json" "$PG" top --format json -n 3 p.folded
[ "$(json "$T/out" "[(r['name'], r['self'], r['self_pct'], r['sum_pct'], r['total'], r['total_pct']) for r in d['rows']]")" \
  = "[('compare', 40, 40, 40, 40, 40), ('hash', 30, 30, 70, 30, 30), ('parse', 20, 20, 90, 50, 50)]" ] \
  && ok || bad "JSON rows"
[ "$(json "$T/out" "(d['total'], d['kept'], d['functions'], d['sort'])")" = "(100, 100, 7, 'self')" ] && ok || bad "JSON head"

# Names: cut in the middle to fit 80 columns, whole with --wide; escaped.
long='std::vector<std::basic_string<char, std::char_traits<char>, std::allocator<char> > >::_M_realloc_insert'
printf 'p;main;%s 5\np;main;x\033y 2\n' "$long" > long.folded
expect_exit 0 "cut names" "$PG" top long.folded
awk 'length($0) > 80 { exit 1 }' "$T/out" && ok || bad "every line fits 80 columns"
grep -qE 'std::vector<std::bas.*\.\.\..*>::_M_realloc_insert$' "$T/out" && ok || bad "a long name keeps its start and its end"
contains "$T/out" 'x\x1by'
expect_exit 0 "--wide" "$PG" top --wide long.folded
contains "$T/out" "$long"

# Bad input: one line naming the file (and line), exit 2.
one_line() { [ "$(wc -l < "$T/err")" -eq 1 ] && ok || bad "$1: error should be one line"; }
printf 'main;a 1\nmain;b oops\n' > bad.folded
expect_exit 2 "malformed line" "$PG" top bad.folded
contains "$T/err" "perfgate: bad.folded:2: expected a whole-number count"
one_line "malformed line"
: > empty.folded
expect_exit 2 "empty file" "$PG" top empty.folded
contains "$T/err" "perfgate: empty.folded: no samples"
one_line "empty file"
expect_exit 2 "missing file" "$PG" top nothing.folded
contains "$T/err" "nothing.folded"
expect_exit 2 "unknown option" "$PG" top --frobnicate p.folded
contains "$T/err" "unknown option '--frobnicate'"
one_line "unknown option"
expect_exit 2 "bad regex" "$PG" top --focus '(' p.folded
contains "$T/err" "--focus '(': not a valid extended regular expression"
one_line "bad regex"
expect_exit 2 "bad --sort" "$PG" top --sort cum p.folded
expect_exit 2 "bad -n" "$PG" top -n lots p.folded
expect_exit 2 "no file" "$PG" top
contains "$T/err" "no folded file given"
expect_exit 2 "two files" "$PG" top p.folded p.folded

# Every number is the flamegraph's: the hand-written file, and a recording.
check "flamegraph of p.folded" "$PG" flamegraph --minwidth 0 -o p.svg p.folded
"$PG" top -n 0 --format json p.folded > p.json
check "top agrees with the flamegraph (p.folded)" $VS_FG p.svg p.json
expect_exit 0 "record shares" "$PG" record --folded rec.folded -- "$PROGS/shares" 30
check "flamegraph of the recording" "$PG" flamegraph --minwidth 0 -o rec.svg rec.folded
"$PG" top -n 0 --format json rec.folded > rec.json
check "top agrees with the flamegraph (recorded)" $VS_FG rec.svg rec.json
# The root frame, the comm, is a row with every sample in its total.
[ "$(json rec.json "[r['total_pct'] for r in d['rows'] if r['name'] == 'shares']")" = "[100]" ] && ok \
  || bad "the comm's total is 100%"

# REV:BENCHMARK: the stacks a run --sample stored (valgrind's: instructions).
R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
printf '{ "benchmarks": [ { "name": "tree:1", "command": ["%s/cgtree"] } ] }\n' "$PROGS" > "$R/b/perfgate.json"
cd "$R"
expect_exit 0 "run --sample" "$PG" run --backend valgrind --sample b/
expect_exit 0 "top HEAD:tree:1" "$PG" top -n 0 --format json HEAD:tree:1
cp "$T/out" stored.json
[ "$(json stored.json "d['source'], d['unit']")" = "('HEAD:tree:1', 'instructions')" ] && ok || bad "named REV:BENCH, in instructions"
rel=$(json .perfgate/results/*/*.json "d['runs'][0]['benchmarks'][0]['stacks']")
"$PG" top -n 0 --format json ".perfgate/$rel" > file.json
[ "$(json stored.json "d['rows']")" = "$(json file.json "d['rows']")" ] && ok || bad "the same rows as the stored file's"
expect_exit 0 "--callers of a stored run" "$PG" top --callers hash HEAD:tree:1
contains "$T/out" "callers of hash:"
expect_exit 2 "unknown benchmark" "$PG" top HEAD:tree:2
contains "$T/err" "no benchmark 'tree:2' in the results of HEAD (did you mean 'tree:1'?)"
expect_exit 2 "unknown revision" "$PG" top nosuchrev:tree:1
contains "$T/err" "nosuchrev"
cd "$T"

finish
