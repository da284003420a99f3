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

# What else valgrind reads, and commands that run other programs. wrap/:
# the program itself, a launcher that exec()s it (a path it is not handed,
# so no argument keys it) and a shell that runs it (its -c string is not a
# file's name either). HOME is a directory of
# the test's own, where a ~/.valgrindrc can be put.
mkdir -p wrap "$T/home"
cat > wrap/prog.c <<'C'
static volatile unsigned long sink;
int main(void) { for (long i = 0; i < 40000; i++) sink += (unsigned long)i * 3; return 0; }
C
cat > wrap/launch.c <<'C'
#include <unistd.h>
int main(void) { execl("./prog", "./prog", (char *)0); return 127; }
C
sf=$(static_flag)
cat > wrap/perfgate.json <<JSON
{ "build": "cc -O1 $sf -o wrap/prog wrap/prog.c && cc -O1 $sf -o wrap/launch wrap/launch.c",
  "benchmarks": [ { "name": "direct", "command": ["./prog"] },
                  { "name": "launched", "command": ["./launch"] },
                  { "name": "shell", "command": ["sh", "-c", "./prog && exit 0"] } ] }
JSON
printf 'prog\nlaunch\n' > wrap/.gitignore
git add -A && git commit -qm wrap
wrun() { HOME=$T/home "$PG" run --no-native "$@" wrap/; }
count() { field "$1" "['metrics']['instructions']['samples'][0]"; }
measured() { check "$1: measured" [ "$(field "$1" ".get('reused')")" = None ]; }

expect_exit 0 "the first run of wrap/" wrun --reuse-unchanged
contains "$T/err" "perfgate: shell: measured, not reused: its executable $(realpath "$(command -v sh)") is a shell or an interpreter"
contains "$T/err" "perfgate: launched: its counts are not reusable: its run exec()ed another program (./prog), which the key does not cover"
check "direct: a key" [ "$(field direct ".get('reuse_key') is not None")" = True ]
check "launched: no key" [ "$(field launched ".get('reuse_key')")" = None ]
check "shell: no key" [ "$(field shell ".get('reuse_key')")" = None ]
direct=$(count direct) launched=$(count launched) shell=$(count shell)

# A committed ./.valgrindrc: valgrind's options would be the commit's. The
# count is measured again, and is the same: perfgate's valgrind ignores it.
echo '--trace-children-skip=*prog*' > wrap/.valgrindrc && git add wrap/.valgrindrc && git commit -qm valgrindrc
expect_exit 0 "a committed .valgrindrc" wrun --reuse-unchanged
measured direct
same "direct: the count the .valgrindrc does not change" "$direct" "$(count direct)"
expect_exit 0 "a run without reuse, with the .valgrindrc" wrun
same "launched: every process counted still" "$launched" "$(count launched)"
# (sh forks ./prog and waits: whether the child has ended when it waits moves
# the shell's own count by a few dozen instructions from run to run, so its
# counts are held to 100 instructions, far below prog's 40000 rounds)
near() { if [ "$(( $2 > $3 ? $2 - $3 : $3 - $2 ))" -le 100 ]; then ok; else bad "$1"; printf '  first | %s\n  second| %s\n' "$2" "$3" >&2; fi; }
near "shell: every process counted still" "$shell" "$(count shell)"

echo '--trace-children-skip=*prog*' > "$T/home/.valgrindrc"
expect_exit 0 "a ~/.valgrindrc" wrun --reuse-unchanged
measured direct
same "direct: the count ~/.valgrindrc does not change" "$direct" "$(count direct)"

expect_exit 0 "VALGRIND_OPTS, passed" env 'VALGRIND_OPTS=--trace-children-skip=*prog*' \
  HOME="$T/home" "$PG" run --no-native --reuse-unchanged --pass-env VALGRIND_OPTS wrap/
measured direct
# (the variable itself moves the counts a little: a larger environment)
check "shell: VALGRIND_OPTS skips nothing" [ "$(count shell)" -gt "$(count direct)" ]
check "launched: VALGRIND_OPTS skips nothing" [ "$(count launched)" -ge "$(count direct)" ]

# prog does three times the work; launch and sh are the same bytes. With
# --jobs 2 the valgrind runs are made in worker processes.
sed -i 's/40000/120000/' wrap/prog.c && git commit -qam "prog does 3x the work"
expect_exit 0 "prog rebuilt" wrun --reuse-unchanged -j 2
measured launched
measured shell
contains "$T/err" "perfgate: launched: its counts are not reusable: its run exec()ed another program (./prog)"
contains "$T/err" "perfgate: shell: measured, not reused: its executable"
grown=$(( $(count direct) - direct ))
check "prog's count grew" [ "$grown" -gt 0 ]
same "launched: prog's new count in it" "$((launched + grown))" "$(count launched)"
near "shell: prog's new count in it" "$((shell + grown))" "$(count shell)"

# A file's key is taken from what this perfgate already read of it only
# while it is the same file, unchanged: here the first of two benchmarks
# with one command rewrites their input in its run, to the same size and
# with its old mtime restored (-j 1: one after the other).
mkdir -p same
cat > same/prog.c <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
static volatile unsigned long sink;
int main(int argc, char **argv)
{
    long n = 1000;
    FILE *f = fopen(argv[1], "r");
    for (int c; f && (c = fgetc(f)) != EOF;)
        n += c;
    if (f)
        fclose(f);
    struct stat st;
    if (argc > 1 && unlink("rewrite-me") == 0 && stat(argv[1], &st) == 0 && (f = fopen(argv[1], "r+"))) {
        fputs("XXXX", f);
        fclose(f);
        struct timespec t[2] = {st.st_atim, st.st_mtim};
        utimensat(AT_FDCWD, argv[1], t, 0);
    }
    for (long i = 0; i < n; i++)
        sink += (unsigned long)i;
    return 0;
}
C
echo "abcd" > same/input.txt
cat > same/perfgate.json <<JSON
{ "build": "cc -O1 $sf -o same/prog same/prog.c",
  "benchmarks": [ { "name": "first", "command": ["./prog", "input.txt"] },
                  { "name": "second", "command": ["./prog", "input.txt"] } ] }
JSON
printf 'prog\nrewrite-me\n' > same/.gitignore
git add -A && git commit -qm same
key() { field "$1" "['reuse_key']"; }
expect_exit 0 "one command twice" "$PG" run --no-native -j 1 same/
same "one command, one input: one key" "$(key first)" "$(key second)"
touch same/rewrite-me
sleep 2     # input.txt older than the racy window, so that its key's reading is kept and must be dropped
expect_exit 0 "one command twice, the first rewriting its input" "$PG" run --no-native -j 1 same/
check "the input rewritten" [ "$(cat same/input.txt)" = XXXX ]
check "the second's key is another (its input is)" [ "$(key first)" != "$(key second)" ]
check "and so is its count" [ "$(count first)" != "$(count second)" ]
git checkout -q same/input.txt

expect_exit 0 "the perf backend: a note, every benchmark measured" "$PG" run --backend perf --no-store --reuse-unchanged bench/
contains "$T/err" "--reuse-unchanged: the perf backend's counts depend on the machine's load"
finish
