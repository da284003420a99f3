#!/usr/bin/env bash
# perfgate flamegraph as a user meets it: files and stdin in, SVG out to a
# file or stdout, differential graphs both ways, and bad input refused with
# one line, exit 2 and no file written.
. "$(dirname "$0")/lib/common.sh"
cd "$T"

printf 'main;parse;hash 30\nmain;parse 20\nmain;sort;compare 50\n' > a.folded
printf 'main;parse;hash 60\nmain;parse 20\nmain;sort;compare 20\nmain;fresh 10\n' > b.folded

expect_exit 0 "plain to a file" "$PG" flamegraph -o a.svg --title "My <profile>" a.folded
check "a.svg written" test -s a.svg
[ ! -s "$T/out" ] && ok || bad "nothing on stdout with -o"
# grep -F takes a newline as "either line": compare the tooltip as one line.
tr '\n' '|' < a.svg | grep -qF '<title>parse|50 samples, 50.00%</title>' && ok || bad "parse's tooltip says 50 samples, 50.00%"
contains a.svg ">My &lt;profile&gt;</text>"
contains a.svg 'width="50.0000%"'
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' a.svg && ok || bad "a.svg is well-formed XML"

expect_exit 0 "stdin to stdout" "$PG" flamegraph --unit instructions --width 800 - < a.folded
contains "$T/out" 'width="800"'
contains "$T/out" "50 instructions, 50.00%"
head -c 5 "$T/out" | grep -q '<?xml' && ok || bad "stdout starts with the XML declaration"

expect_exit 0 "--minwidth in percent" "$PG" flamegraph --minwidth 35 -o m.svg a.folded
lacks m.svg "<title>hash"
contains m.svg "<title>compare"
expect_exit 0 "--minwidth in pixels" "$PG" flamegraph --minwidth 400px -o m.svg a.folded
lacks m.svg "<title>hash"
contains m.svg "<title>parse"
expect_exit 2 "--minwidth wider than the image" "$PG" flamegraph --minwidth 2000px -o m2.svg a.folded
contains "$T/err" "--minwidth 2000px: wider than the"
check "no file written for a refused --minwidth" test ! -e m2.svg

expect_exit 0 "--diff" "$PG" flamegraph --diff a.folded b.folded -o d.svg
contains d.svg "Differential Flame Graph"
contains d.svg "<title>fresh"
lacks d.svg "<title>vanished"
contains d.svg "widths: after (110 samples)"
expect_exit 0 "--diff --reverse" "$PG" flamegraph --diff --reverse --raw a.folded b.folded -o r.svg
contains r.svg "widths: before (100 samples)"
lacks r.svg "<title>fresh"
lacks r.svg "before scaled"
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' r.svg && ok || bad "r.svg is well-formed XML"

# Errors: one line, exit 2, and no output file (an old one is left alone).
one_line() { [ "$(wc -l < "$T/err")" -eq 1 ] && ok || bad "$1: error should be one line"; }
printf 'main;a 1\nmain;b oops\n' > bad.folded
expect_exit 2 "malformed line" "$PG" flamegraph -o bad.svg bad.folded
contains "$T/err" "perfgate: bad.folded:2: expected a whole-number count"
one_line "malformed line"
check "no file after a parse error" test ! -e bad.svg
echo keep > old.svg
expect_exit 2 "malformed diff input" "$PG" flamegraph --diff a.folded bad.folded -o old.svg
contains "$T/err" "bad.folded:2:"
check "old output untouched" grep -qx keep old.svg
expect_exit 2 "missing file" "$PG" flamegraph -o x.svg nothing.folded
contains "$T/err" "nothing.folded"
one_line "missing file"
check "no file for a missing input" test ! -e x.svg
: > empty.folded
expect_exit 2 "empty profile" "$PG" flamegraph -o x.svg empty.folded
contains "$T/err" "empty.folded: no samples to draw"
expect_exit 2 "no file given" "$PG" flamegraph
contains "$T/err" "no folded file given"
expect_exit 2 "two files without --diff" "$PG" flamegraph a.folded b.folded
expect_exit 2 "--diff with one file" "$PG" flamegraph --diff a.folded
contains "$T/err" "--diff needs two folded files"
expect_exit 2 "--reverse without --diff" "$PG" flamegraph --reverse a.folded
expect_exit 2 "bad --width" "$PG" flamegraph --width wide a.folded
contains "$T/err" "--width: expected pixels"
expect_exit 2 "bad --minwidth" "$PG" flamegraph --minwidth lots a.folded
contains "$T/err" "--minwidth: expected a percentage"
expect_exit 2 "stdin twice" "$PG" flamegraph --diff - - < a.folded
contains "$T/err" "standard input ('-') can be read only once"
expect_exit 2 "unwritable output" "$PG" flamegraph -o "$T/no/such/dir/x.svg" a.folded
contains "$T/err" "no/such/dir/x.svg"
ls "$T"/no 2>/dev/null && bad "nothing created for an unwritable output" || ok
expect_exit 2 "unknown option" "$PG" flamegraph --frobnicate a.folded
contains "$T/err" "unknown option '--frobnicate'"
expect_exit 0 "--help" "$PG" flamegraph --help
contains "$T/out" "usage: perfgate flamegraph"
contains "$T/out" "--diff"
finish
