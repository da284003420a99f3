#!/usr/bin/env bash
# Same program, same count (harness/measure/canon.h): a program whose work grows
# with the length of its argv[0] and of its environment is measured once in
# a work tree with a long path (`run`, from a shell with extra variables)
# and once in --run-missing's temporary checkout (another path, another
# environment): a docs-only commit compares unchanged, delta exactly 0.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc

R=$T/a-work-tree-whose-path-is-much-longer-than-the-temporary-checkouts-of-perfgate/repo
make_repo "$R"
mkdir -p "$R/bench"
cat > "$R/bench/perfgate.json" <<JSON
{ "build": "cc -O1 $(static_flag) -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "argv-env", "command": ["./prog", "x"] },
                  { "name": "other", "command": ["./prog"] } ] }
JSON
echo prog > "$R/bench/.gitignore"
cat > "$R/bench/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
extern char **environ;
/* Work proportional to what the program was handed: a stand-in for the
 * start-up code and argument parsing every real program pays for. */
static volatile unsigned long sink;
int main(int argc, char **argv)
{
    unsigned long n = strlen(argv[0]) * 1000;
    for (char **e = environ; *e; e++)
        n += strlen(*e) * 100;
    for (unsigned long i = 0; i < n; i++)
        sink += i;
    printf("%d %lu\n", argc, sink & 1);
    char cwd[4096];
    FILE *f;
    if (argc > 1 && !strcmp(argv[1], "cwd") && getcwd(cwd, sizeof cwd) && (f = fopen(getenv("PG_CWD_LOG"), "w"))) {
        fprintf(f, "cwd %s\n", cwd);   /* where it was run: the canonical tree, as root */
        fclose(f);
    }
    return 0;
}
C
git -C "$R" add -A && git -C "$R" commit -qm bench
echo "docs only" >> "$R/README" && git -C "$R" commit -qam docs
# Where perfgate cannot mount the tree at one path (not root), the checkout
# gets a path as long as the work tree's: the same count all the same.
git clone -q "$R" "$R-padded"
cd "$R-padded"
expect_exit 0 "run in the work tree (no canonical tree)" env PERFGATE_NO_CANON_TREE=1 PG_NOISE_A=1 "$PG" run --no-native \
  --metrics instructions bench/
expect_exit 0 "compare with --run-missing (no canonical tree)" env PERFGATE_NO_CANON_TREE=1 "$PG" compare HEAD~1 HEAD \
  --run-missing --no-native --metrics instructions --format json -o "$T/cmp-padded.json"
check "padded checkout: the exact instruction deltas are 0" \
  [ "$(json "$T/cmp-padded.json" '[m["delta"] for b in d["benchmarks"] for m in b["metrics"] if m["name"]=="instructions"]')" = "[0, 0]" ]
lacks "$T/err" "is longer than the work tree's"
cd "$R"
expect_exit 0 "run in the work tree" env PG_NOISE_A=1 CI_JOB_ID=123456789 "$PG" run --no-native --metrics instructions bench/
id_b=$(git rev-parse HEAD)
TMPDIR=$T/$(printf 'a-temporary-directory-longer-than-the-work-tree-%.0s' 1 2 3) && mkdir -p "$TMPDIR"
expect_exit 0 "compare with --run-missing: the base measured in a checkout, TMPDIR longer than the work tree" \
  env -u PG_NOISE_A EXTRA_VARIABLE=some-long-value-that-was-not-there-before "$PG" compare HEAD~1 HEAD --run-missing \
  --no-native --metrics instructions --format json -o "$T/cmp.json"
TMPDIR=$T
check "the verdict is unchanged" [ "$(json "$T/cmp.json" 'd["verdict"]')" = unchanged ]
check "the exact instruction deltas are 0" \
  [ "$(json "$T/cmp.json" '[m["delta"] for b in d["benchmarks"] for m in b["metrics"] if m["name"]=="instructions"]')" = "[0, 0]" ]
if [ "$(id -u)" = 0 ]; then
  printf '{ "benchmarks": [ { "name": "where", "command": ["./prog", "cwd"] } ] }' > bench/where.json
  expect_exit 0 "as root: the tree at one path" env PG_CWD_LOG="$T/cwd.txt" "$PG" run --no-store --no-native \
    --metrics instructions --pass-env PG_CWD_LOG bench/where.json
  check "the benchmark ran in /run/perfgate/tree/bench" grep -qx "cwd /run/perfgate/tree/bench" "$T/cwd.txt"
  rm bench/where.json
fi
# What the program was handed: argv[0] as the manifest wrote it, and the fixed environment.
show_cmd=$(json ".perfgate/results/$id_b/"*.json 'd["runs"][0]["benchmarks"][0]["command"]')
check "argv[0] is the command as written: $show_cmd" [ "$show_cmd" = "['./prog', 'x']" ]
# --pass-env passes a variable on, and then the count changes with it.
expect_exit 0 "run with --pass-env" env PG_NOISE_A=$(printf 'x%.0s' {1..300}) "$PG" run --no-store --no-native \
  --metrics instructions --format json --pass-env 'PG_NOISE_*' bench/
more=$(json "$T/out" 'd["benchmarks"][0]["metrics"]["instructions"]["samples"][0]')
expect_exit 0 "run without it" env PG_NOISE_A=$(printf 'x%.0s' {1..300}) "$PG" run --no-store --no-native \
  --metrics instructions --format json bench/
less=$(json "$T/out" 'd["benchmarks"][0]["metrics"]["instructions"]["samples"][0]')
check "a passed variable is seen ($more > $less)" python3 -c "import sys; sys.exit(not float('$more') > float('$less'))"
expect_exit 2 "--pass-env with a bad name" "$PG" run --pass-env 'A B' bench/
contains "$T/err" "--pass-env: 'A B' is not a variable name"

# Counts that do not repeat: a second run of HEAD handed a longer
# environment (--pass-env) gives another exact count. show says so once,
# naming both values and where each came from; compare pools the two and
# decides against their spread (docs/metrics.md, "Counts that do not repeat").
expect_exit 0 "a second run of HEAD, with another environment" env PG_NOISE_A=xyz "$PG" run --no-native \
  --metrics instructions --pass-env PG_NOISE_A --filter argv-env bench/
expect_exit 0 "show HEAD" "$PG" show HEAD
contains "$T/err" "argv-env does not repeat its exact instructions (spread "
contains "$T/err" " in $R/bench) and "
check "show says it once" [ "$(grep -c 'does not repeat' "$T/err")" = 1 ]
expect_exit 0 "compare pools the two runs and decides against their spread" "$PG" compare HEAD~1 HEAD
contains "$T/out" "argv-env   instructions"
contains "$T/out" "unchanged  (within its spread: its counts vary by "
lacks "$T/err" "two different exact values"
expect_exit 0 "history reads them too" "$PG" history -o "$T/h.html"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
