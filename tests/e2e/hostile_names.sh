#!/usr/bin/env bash
# The hostile-name matrix: benchmarks whose names (and one function's name)
# are every kind of trouble -- names that clean to one file name, a 300-byte
# and a 100 KB name, bytes that are not UTF-8 (a CESU surrogate among them),
# U+FFFE, control characters, terminal escapes, a C1 CSI, markdown and XML
# metacharacters -- measured at two commits with the valgrind backend and
# --sample, then shown and compared in every format. Each output is checked
# by a real parser (python's json, xmllint, a terminal-safety check), name by
# name (lib/hostile_check.py prints the matrix). Then the markdown cap, error
# messages that quote hostile text, and directory discovery's name rule.
. "$(dirname "$0")/lib/common.sh"
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler: skipped"; exit 77; }
command -v xmllint >/dev/null || { echo "xmllint not installed (libxml2-utils): skipped"; exit 77; }
LIB=$(dirname "$0")/lib

# A program whose hot function has a hostile symbol name (an asm label), and
# does N iterations of work.
cat > "$T/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) unsigned long weird(unsigned long x, long n) __asm__("\"w\033[2J\007\377\355\240\200|<x>&\"");
__attribute__((noinline)) unsigned long weird(unsigned long x, long n)
{
    for (long i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
    return x;
}
int main(int argc, char **argv)
{
    printf("%lu\n", weird(88172645463325252UL, argc > 1 ? atol(argv[1]) : 1000));
    return 0;
}
C
cc -O1 -g $(static_flag) -o "$T/prog" "$T/prog.c" || { bad "cannot build the test program"; finish; }

# The names, and the manifest of commit A (SCALE 1) or B (SCALE 2: every
# benchmark does twice the work, so every one regresses and gets flamegraphs).
python3 - "$T" <<'PY'
import json, sys
T = sys.argv[1]
names = [b"a b", b"a_b", b"a?b",                      # clean to one file name
         b"L" + b"x" * 299,                           # over NAME_MAX with a suffix
         b"H" * 100000,                               # 100 KB
         b"bad\xff\xfe", b"sur\xed\xa0\x80gate",      # not UTF-8 (the second a CESU surrogate)
         b"nonchar\xef\xbf\xbe",                      # U+FFFE: UTF-8, but not XML
         b"ctl\x01\x7f\x08", b"esc\x1b[2J\x07bel",    # controls, ESC, BEL
         b"csi\xc2\x9b31m",                           # C1 CSI
         b"rtl\xe2\x80\xaeevil",                      # right-to-left override
         b"pipe|<b>*x*<br>`#", b"q\"'\\&;amp",        # markdown, XML, JSON specials
         "日本語 ünï".encode()]                       # valid UTF-8 stays as it is
func = b"w\x1b[2J\x07\xff\xed\xa0\x80|<x>&"
json.dump({"names": [n.hex() for n in names], "function": func.hex()}, open(T + "/names.json", "w"))

def jstr(b):   # a JSON string of these exact bytes (cJSON takes bytes >= 0x80 as they are)
    out = b'"'
    for c in b:
        out += b'\\"' if c == 34 else b'\\\\' if c == 92 else b"\\u%04x" % c if c < 0x20 else bytes([c])
    return out + b'"'

for scale, d in ((1, "A"), (2, "B")):
    ents = [b'{"name": ' + jstr(n) + b', "command": ["' + T.encode() + b'/prog", "%d"]}' % (scale * (20000 + 1000 * i))
            for i, n in enumerate(names)]
    # Only instructions are compared here: no cache or branch simulation.
    open("%s/manifest%s.json" % (T, d), "wb").write(b'{"defaults": {"metrics": ["instructions"]}, "benchmarks": [\n'
                                                     + b",\n".join(ents) + b"\n]}\n")
PY
N=$(python3 -c "import json; print(len(json.load(open('$T/names.json'))['names']))")

R=$T/repo
make_repo "$R"
cd "$R" || exit 1
mkdir -p b
cp "$T/manifestA.json" b/perfgate.json
git add b && git commit -qm A
expect_exit 0 "run --sample at A (every name)" "$PG" run --backend valgrind --sample -r 1 b/
cat "$T/out" "$T/err" > "$T/run.txt"
cp "$T/manifestB.json" b/perfgate.json
git commit -qam B
expect_exit 0 "run --sample at B" "$PG" run --backend valgrind --sample -r 1 b/

head=$(git rev-parse HEAD)
M=$T/matrix
mkdir -p "$M"
cp .perfgate/results/$head/*.json "$M/store.json"
cp .perfgate/results/$(git rev-parse HEAD~1)/*.json "$T/store_a.json"
ln -s "$R/.perfgate" "$M/stacks"
expect_exit 0 "show" "$PG" show
cat "$T/out" "$T/err" > "$M/show.txt"
expect_exit 0 "show --format json" "$PG" show --format json
cp "$T/out" "$M/show.json"
cp "$T/run.txt" "$M/run.txt"
expect_exit 1 "compare (text): every benchmark regressed" "$PG" compare HEAD~1 HEAD
cat "$T/out" "$T/err" > "$M/compare.txt"
expect_exit 1 "compare --format markdown" "$PG" compare HEAD~1 HEAD --format markdown
cp "$T/out" "$M/compare.md"
expect_exit 1 "compare --format json" "$PG" compare HEAD~1 HEAD --format json -o "$M/compare.json"
expect_exit 1 "compare --format junit --flamegraph: exit 1, not 2" "$PG" compare HEAD~1 HEAD --format junit --flamegraph "$M/fg" -o "$M/compare.xml"
contains "$T/err" "$((2 * N)) differential flamegraphs in $M/fg" "all $((2 * N)) flamegraphs written, none skipped"
# (checked once, its matrix printed after)
check "the hostile-name matrix is all valid" eval 'python3 "$LIB/hostile_check.py" "$T/names.json" "$M" > "$T/matrix.txt"'
sed 's/^/  /' "$T/matrix.txt"
check "no stacks file name over 200 bytes" [ -z "$(find .perfgate/stacks -name '*.folded' | awk -F/ 'length($NF) > 200')" ]
check "$N distinct stacks files per run" [ "$(find .perfgate/stacks -name '*.folded' | wc -l)" = $((2 * N)) ]

# The markdown cap: 400 benchmarks with 250-byte names, gated on all 15 of
# valgrind's metrics (so every changed one is a row), make a report far over
# a pull-request comment's 65,536 characters; it is cut below 60,000 with a
# note that points to the complete report, and stays well-formed.
python3 - "$T/store_a.json" "$M/store.json" "$T" <<'PY'
import copy, json, sys
for i in (0, 1):
    r = json.load(open(sys.argv[1 + i], encoding="utf-8"))["runs"][0]
    proto = r["benchmarks"][0]
    r["benchmarks"] = []
    for k in range(400):
        b = copy.deepcopy(proto)
        b.pop("stacks", None)
        b["name"] = "bench-%03d-" % k + "y" * 240
        r["benchmarks"].append(b)
    json.dump(r, open("%s/big%d.json" % (sys.argv[3], i), "w"))
PY
every=instructions,cache-misses,branch-misses,I1mr,ILmr,Dr,D1mr,DLmr,Dw,D1mw,DLmw,Bc,Bcm,Bi,Bim
# (the runs measured instructions only: --allow-missing lists the other gates as not gated)
expect_exit 1 "compare 400 long-named benchmarks, markdown" "$PG" compare "$T/big0.json" "$T/big1.json" --gate $every --allow-missing --format markdown -o "$T/big.md"
size=$(wc -c < "$T/big.md")
check "markdown report capped ($size bytes <= 60000)" [ "$size" -le 60000 ]
contains "$T/big.md" "This report was cut" "the cut report says so"
contains "$T/big.md" "perfgate compare --format json" "and points to the complete report"
check "<details> balanced in the cut report" python3 -c "
import sys; t = open('$T/big.md').read(); sys.exit(t.count('<details') != t.count('</details>'))"
expect_exit 1 "the same as JSON: complete" "$PG" compare "$T/big0.json" "$T/big1.json" --format json -o "$T/big.json"
check "the JSON report has all 400" [ "$(json "$T/big.json" "len(d['benchmarks'])")" = 400 ]

# Error messages quote hostile text escaped.
E=$T/errors
mkdir -p "$E"
expect_exit 2 "show of a hostile revision" "$PG" show $'nope\e[2J\a'
cp "$T/err" "$E/show"
printf 'main;\033[2J\a 1\nmain;b oops\033]0;t\a\n' > "$T/bad.folded"
expect_exit 2 "flamegraph of a file with escapes in a bad line" "$PG" flamegraph -o "$T/x.svg" "$T/bad.folded"
cp "$T/err" "$E/folded"
lacks "$E/folded" "oops" "the bad line is not quoted (it may be anything)"
contains "$E/folded" "bad.folded:2: " "the bad line is named by its number"
mkdir -p "$T/m"
printf '{"benchmarks": [{"name": "x/\\u001b[2J\\u0007", "command": ["true"]}]}' > "$T/m/perfgate.json"
expect_exit 2 "manifest name with '/' and escapes" "$PG" run --no-store "$T/m"
cp "$T/err" "$E/manifest"
contains "$E/manifest" 'x/\x1b[2J\x07' "the manifest name is quoted escaped"
expect_exit 2 "not a command" "$PG" $'\e[31mred'
cp "$T/err" "$E/command"
expect_exit 2 "compare with a hostile second argument" "$PG" compare "$T/big0.json" $'\e]0;title\a'
cp "$T/err" "$E/compare"
# Directory discovery: the manifest's rule for names, with a clear message.
mkdir -p "$T/d"
cp "$T/prog" "$T/d/"$'nl\nname'
expect_exit 2 "a directory executable named with a newline is refused" "$PG" run --no-store "$T/d"
cp "$T/err" "$E/discover"
contains "$E/discover" 'nl\nname' "the file is named, escaped"
contains "$E/discover" "may not contain a newline" "and what is wrong"
check "the message is one line" [ "$(wc -l < "$E/discover")" = 1 ]
for f in "$E"/*; do
  check "error output $(basename "$f") is terminal-safe" python3 -c "
import sys; sys.path.insert(0, '$LIB')
exec(open('$LIB/hostile_check.py').read().split('def main')[0])
why = text_safe(open('$f', 'rb').read()); print(why or '', end=''); sys.exit(why is not None)"
done
finish
