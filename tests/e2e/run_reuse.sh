#!/usr/bin/env bash
# --reuse-unchanged: a benchmark whose executable, shared objects,
# arguments, input files and environment are byte for byte those of a stored
# exact result takes its counts (marked, with the run they came from) and
# is not run under valgrind again; any change to one of them measures it.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc
R=$T/repo
make_repo "$R"
mkdir -p "$R/bench"
cat > "$R/bench/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
int main(int argc, char **argv)
{
    long n = 50000;
    FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
    if (f) {
        for (int c; (c = fgetc(f)) != EOF;)
            n += c;
        fclose(f);
    }
    for (long i = 0; i < n; i++)
        sink += (unsigned long)i * 3;
    printf("%lu\n", sink & 1);
    return 0;
}
C
echo "some input" > "$R/bench/input.txt"
cat > "$R/bench/perfgate.json" <<'JSON'
{ "build": "cc -O1 -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "reads", "command": ["./prog", "input.txt"] },
                  { "name": "plain", "command": ["./prog"] } ] }
JSON
echo prog > "$R/bench/.gitignore"
git -C "$R" add -A && git -C "$R" commit -qm bench
cd "$R"
doc() { ls .perfgate/results/"$(git rev-parse "${1:-HEAD}")"/*.json; }
field() { json "$(doc "${3:-HEAD}")" "{b['name']: b for b in d['runs'][-1]['benchmarks']}['$1']$2"; }
expect_exit 0 "a run stores each benchmark's key" "$PG" run bench/
check "a key of 40 hex digits" python3 -c "import re,sys; sys.exit(not re.fullmatch('[0-9a-f]{40}', '$(field reads "['reuse_key']")'))"
first=$(json "$(doc)" "d['runs'][-1]['id']")
count=$(field reads "['metrics']['instructions']['samples'][0]")

echo "docs" >> README && git commit -qam "docs only"
expect_exit 0 "a docs-only commit, --reuse-unchanged" "$PG" run --reuse-unchanged bench/
contains "$T/out" "exact counts reused from run $first of $(git rev-parse --short=12 HEAD~1)"
check "reads: reused from the first run" [ "$(field reads "['reused']['run']")" = "$first" ]
check "plain: reused too" [ "$(field plain "['reused']['run']")" = "$first" ]
check "the same count" [ "$(field reads "['metrics']['instructions']['samples'][0]")" = "$count" ]
check "native time measured anew" [ "$(field reads "['metrics']['task-clock']['samples'].__len__()")" = 5 ]
expect_exit 0 "compare says where the counts came from" "$PG" compare HEAD~1 HEAD
contains "$T/out" "note: the candidate's exact counts reused from run $first"

echo "more input" >> bench/input.txt && git commit -qam "the input changes"
expect_exit 0 "an input file changes" "$PG" run --reuse-unchanged bench/
check "reads: measured" [ "$(field reads ".get('reused')")" = None ]
check "reads: its count grew" python3 -c "import sys; sys.exit(not $(field reads "['metrics']['instructions']['samples'][0]") > $count)"
check "plain: still reused" [ "$(field plain ".get('reused') is not None")" = True ]

expect_exit 0 "another environment (--pass-env)" env EXTRA_VAR=1 "$PG" run --reuse-unchanged --pass-env EXTRA_VAR bench/
check "plain: measured" [ "$(field plain ".get('reused')")" = None ]

sed -i 's/sink += (unsigned long)i \* 3;/sink += (unsigned long)i * 5;/' bench/prog.c && git commit -qam "code changes"
expect_exit 0 "the program changes" "$PG" run --reuse-unchanged bench/
check "reads: measured" [ "$(field reads ".get('reused')")" = None ]
check "plain: measured" [ "$(field plain ".get('reused')")" = None ]

# compare --run-missing: the head's checkout builds the same bytes as the
# work tree's build of the base, so its counts are the base's stored ones.
echo "docs again" >> README && git commit -qam "docs again"
expect_exit 0 "compare --run-missing --reuse-unchanged" "$PG" compare HEAD~1 HEAD --run-missing --reuse-unchanged
contains "$T/out" "note: the candidate's exact counts reused from run"
contains "$T/out" "verdict: unchanged"

expect_exit 0 "the perf backend: a note, every benchmark measured" "$PG" run --backend perf --no-store --reuse-unchanged bench/
contains "$T/err" "--reuse-unchanged: the perf backend's counts depend on the machine's load"
finish
