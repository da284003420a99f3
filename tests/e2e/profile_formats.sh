#!/usr/bin/env bash
# Folded stacks as standard profile files: pprof (gzip'd profile.proto, read
# back with protoc and a copy of google/pprof's profile.proto) and speedscope
# (its JSON format), from `perfgate flamegraph` (by --output-format or by
# -o's extension) and straight from `perfgate record -o`. Every stack and
# count must come back as it went in.
. "$(dirname "$0")/lib/common.sh"
cd "$T"
LIB=$(cd "$(dirname "$0")/lib" && pwd)
CHECK="python3 $LIB/profile_check.py"
if ! command -v protoc >/dev/null; then
  echo "protoc not found: ci/install-deps.sh installs protobuf-compiler" >&2
  exit 1
fi
decode() { # FILE.pb.gz OUT.txt: protobuf's own decoder
  gzip -dc "$1" | protoc --decode=perftools.profiles.Profile -I "$LIB" profile.proto > "$2"
}

# Recursion, a name with spaces and templates, one that is not ASCII, and one
# that is not UTF-8 (pprof's strings must be: it reads back as U+FFFD).
printf 'prog;main;parse;hash 30\nprog;main;parse 20\nprog;main;sort;std::less<int>::operator() (int, int) 40\n' > p.folded
printf 'prog;main;fib;fib;fib 7\nprog;main;fib 3\nprog;main;caf\303\251 5\n' >> p.folded
printf 'prog;bad\377name 1\n' > odd.folded
printf 'prog;bad\357\277\275name 1\n' > odd.want

expect_exit 0 "flamegraph -o x.pb.gz" "$PG" flamegraph p.folded -o p.pb.gz
check "p.pb.gz is gzip" sh -c 'gzip -t p.pb.gz'
check "protoc decodes it" decode p.pb.gz p.txt
check "the stacks come back (pprof)" $CHECK pprof p.txt p.folded samples
contains p.txt 'value: 40'
# A known stack, leaf first, and the recursive one with its location repeated.
check "hash;parse;main;prog 30" $CHECK pprof-sample p.txt 'hash;parse;main;prog' 30
check "fib;fib;fib;main;prog 7" $CHECK pprof-sample p.txt 'fib;fib;fib;main;prog' 7
grep -q '^string_table: "hash"$' p.txt && ok || bad "hash is in the string table"

expect_exit 0 "--output-format pprof to stdout" "$PG" flamegraph --output-format pprof --unit instructions p.folded
check "decodes" decode "$T/out" i.txt
check "instructions/count" $CHECK pprof i.txt p.folded instructions
expect_exit 0 "odd names" "$PG" flamegraph -o odd.pb.gz odd.folded
check "decodes" decode odd.pb.gz odd.txt
check "a name that is not UTF-8 reads with U+FFFD" $CHECK pprof odd.txt odd.want samples

expect_exit 0 "flamegraph -o x.speedscope.json" "$PG" flamegraph p.folded -o p.speedscope.json
check "the stacks come back (speedscope)" $CHECK speedscope p.speedscope.json p.folded
[ "$(json p.speedscope.json "d['name'], d['profiles'][0]['name'], d['profiles'][0]['endValue']")" = "('p.folded', 'p.folded', 105)" ] \
  && ok || bad "speedscope: named after the file, endValue the total"
expect_exit 0 "--output-format speedscope --title" "$PG" flamegraph --output-format speedscope --title "my run" - < p.folded
check "stdout is the speedscope file" $CHECK speedscope "$T/out" p.folded
[ "$(json "$T/out" "d['name']")" = "my run" ] && ok || bad "--title names the profile"
expect_exit 0 "odd names (speedscope)" "$PG" flamegraph -o odd.speedscope.json odd.folded
check "valid UTF-8 with U+FFFD" $CHECK speedscope odd.speedscope.json odd.want
expect_exit 0 "an explicit format wins over the extension" "$PG" flamegraph --output-format svg -o x.pb.gz p.folded
head -c 5 x.pb.gz | grep -q '<?xml' && ok || bad "--output-format svg wrote an SVG"

expect_exit 2 "--diff is SVG only" "$PG" flamegraph --diff p.folded p.folded -o d.pb.gz
contains "$T/err" "--diff draws an SVG"
check "nothing written" test ! -e d.pb.gz
expect_exit 2 "unknown format" "$PG" flamegraph --output-format perf p.folded
contains "$T/err" "--output-format"
: > empty.folded
expect_exit 2 "empty profile" "$PG" flamegraph -o e.pb.gz empty.folded
contains "$T/err" "empty.folded: no samples"
check "nothing written for an empty profile" test ! -e e.pb.gz

# record writes them directly, from the stacks it also writes folded.
expect_exit 0 "record -o x.pb.gz" "$PG" record --folded r.folded -o r.pb.gz -- "$PROGS/shares" 20
contains "$T/err" "wrote: r.pb.gz"
check "decodes" decode r.pb.gz r.txt
check "record's pprof is its folded stacks" $CHECK pprof r.txt r.folded samples
# ... and, knowing the program's debug info, where each function comes from:
# its source file and first line, and the file it is in with its build id.
cc -O1 -g -o srcprog "$PG_SRC/tests/progs/shares.c" || bad "build shares with -g"
expect_exit 0 "record -o x.pb.gz of a program with debug info" "$PG" record -o src.pb.gz -- ./srcprog 20
check "decodes" decode src.pb.gz src.txt
want_line=$(grep -n 'static unsigned long mix(' "$PG_SRC/tests/progs/shares.c" | cut -d: -f1)
build_id=$(readelf -n srcprog | sed -n 's/.*Build ID: *//p')
check "mix: $PG_SRC/tests/progs/shares.c:$want_line, in $T/srcprog (build id $build_id)" python3 "$LIB/profile_check.py" \
  pprof-source src.txt mix "$PG_SRC/tests/progs/shares.c" "$want_line" "$T/srcprog" "$build_id"
check "a folded file knows no source: no mapping" sh -c '! grep -q "^mapping" p.txt'
expect_exit 0 "record -o x.speedscope.json" "$PG" record --folded s.folded -o s.speedscope.json -- "$PROGS/shares" 20
check "record's speedscope is its folded stacks" $CHECK speedscope s.speedscope.json s.folded
case "$(json s.speedscope.json "d['name']")" in *shares*) ok ;; *) bad "the profile is named after the command" ;; esac

finish
