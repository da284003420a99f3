#!/usr/bin/env bash
# Today's benchmarks on any revision (docs/manifest.md, "Which paths are
# whose"): a repository whose commits have no manifest at all is measured
# with a manifest that is untracked in the work tree, and with one outside
# it given by an absolute path; `compare --run-missing` builds each revision
# in its own checkout and gets the exact instruction delta. Also: the store's
# own .gitignore keeps `git status` clean, and every run's logs are its own.
# The runs use the perf backend (software events are enough), the comparisons
# valgrind (exact counts), one run each.
. "$(dirname "$0")/lib/common.sh"
# Where a benchmark ran is read from its working directory's path: without
# the tree mounted at one path (docs/metrics.md, "The execution context").
export PERFGATE_NO_CANON_TREE=1
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler: skipped"; exit 77; }

R=$T/repo
make_repo "$R"
printf 'build/\n' > "$R/.gitignore"
mkdir -p "$R/src"
write_prog() {  # N
  cat > "$R/src/prog.c" <<C
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) static unsigned long spin(unsigned long x, long n)
{
    for (long i = 0; i < n; i++) x = x * 6364136223846793005UL + 1;
    return x;
}
int main(void)
{
    /* The pid in 8 hex digits, always 8: printf's %d would cost one more
     * instruction loop per digit, and the two revisions' runs may have pids
     * of different lengths, which would move the exact delta. */
    char cwd[4096], pid[9] = {0};
    unsigned v = (unsigned)getpid();
    for (int i = 7; i >= 0; i--, v >>= 4)
        pid[i] = "0123456789abcdef"[v & 15];
    printf("pid %s in %s: %lu\n", pid, getcwd(cwd, sizeof cwd) ? cwd : "?", spin(1, $1) & 0xff);
    return 0;
}
C
}
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
write_prog 200000; c0=$(commit "no benchmark definitions here")
write_prog 206000; c1=$(commit "3% more work")
check "no commit has a manifest" [ -z "$(git -C "$R" log --all --name-only --format= | grep perfgate.json)" ]
cd "$R"

# (1) A manifest outside the repository, by absolute path: its relative paths
# name the work tree's files (build/prog), the build runs at the root.
# --no-notes throughout: each compare measures into its own --store, and git
# notes (docs/notes.md) would hand one store's runs to the next.
D=$T/defs
mkdir -p "$D"
cat > "$D/perfgate.json" <<'JSON'
{ "build": "mkdir -p build && cc -O1 -o build/prog src/prog.c",
  "benchmarks": [ { "name": "spin", "command": ["./build/prog"] } ] }
JSON
expect_exit 0 "run an outside manifest" "$PG" run --no-notes --backend perf --repeat 1 --warmup 0 "$D/perfgate.json"
contains "$T/out" "spin"
check "built in the work tree" [ -x build/prog ]
doc=$(ls .perfgate/results/$c1/*.json)
log1=$(json "$doc" "d['runs'][0]['benchmarks'][0]['stdout_log']")
contains "$log1" "in $R:" "the benchmark ran at the work tree root"
# The store keeps itself out of git.
check "the store wrote its .gitignore" [ -f .perfgate/.gitignore ]
check "git status is clean after run ($(git status --porcelain | tr '\n' ' '))" [ -z "$(git status --porcelain)" ]

# Every result keeps its own logs.
cp "$log1" "$T/log1"
expect_exit 0 "a second run" "$PG" run --no-notes --backend perf --repeat 1 --warmup 0 --no-build "$D/perfgate.json"
log2=$(json "$doc" "d['runs'][1]['benchmarks'][0]['stdout_log']")
check "the second run's log is another file ($log2)" [ "$log1" != "$log2" -a -s "$log2" ]
check "the first run's log is unchanged" cmp -s "$log1" "$T/log1"
check "logs live under logs/<commit>/<machine>/<run>/" python3 -c "
import sys, os; l = sys.argv[1]; r = os.path.relpath(l, '$R/.perfgate').split('/')
sys.exit(not (r[0] == 'logs' and r[1] == '$c1' and len(r) == 5 and r[4] == 'spin.stdout'))" "$log2"
grep -h pid "$log1" "$log2" | sort -u > "$T/pids"
check "two runs, two different outputs" [ "$(wc -l < "$T/pids")" = 2 ]

# (2) compare --run-missing with the outside manifest: each revision built in
# its own checkout; the exact delta of 600 iterations.
expect_exit 1 "--run-missing --manifest /abs/outside.json" \
  "$PG" compare "$c0" "$c1" --run-missing --no-notes --manifest "$D/perfgate.json" --backend valgrind --store "$T/s1" --format json
cp "$T/out" abs.json
# Why each revision is measured, and only what is true: no stacks were asked for.
contains "$T/err" "perfgate: measuring ${c0:0:12} (no stored results): checking out into"
lacks "$T/err" "with stacks"
check "outside manifest: regressed" [ "$(json abs.json "d['verdict']")" = regressed ]
delta=$(json abs.json "int(d['benchmarks'][0]['metrics'][0]['delta'])")
check "outside manifest: 3% more of the loop, 1% to 3% of the whole ($(json abs.json "d['benchmarks'][0]['metrics'][0]['delta_pct']"))" \
  python3 -c "import sys; p = $(json abs.json "d['benchmarks'][0]['metrics'][0]['delta_pct']"); sys.exit(not 1 < p < 3)"
lacks "$T/err" "$D/perfgate.json/" "the absolute path is not glued onto the checkout"
contains "$T/err" "perfgate: building: mkdir -p build"
l0=$(python3 -c "import json,glob; print(json.load(open(glob.glob('$T/s1/results/$c0/*.json')[0]))['runs'][0]['benchmarks'][0]['stdout_log'])")
contains "$l0" "/perfgate-rev-" "the old revision's benchmark ran in its checkout"

# (3) An untracked manifest inside the work tree: its directory (bench/) does
# not exist in the old commits; its paths name the checkout's bench/.
mkdir -p bench
cat > bench/perfgate.json <<'JSON'
{ "build": "mkdir -p build && cc -O1 -o build/prog src/prog.c",
  "benchmarks": [ { "name": "spin", "command": ["../build/prog"] } ] }
JSON
check "bench/perfgate.json is untracked" [ "$(git status --porcelain bench)" = "?? bench/" ]
# A relative --manifest is relative to the current directory, like every path;
# its old spelling --bench still works, saying the new one.
cd src
expect_exit 1 "--run-missing --bench ../bench (untracked), from a subdirectory" \
  "$PG" compare "$c0" "$c1" --run-missing --no-notes --bench ../bench --backend valgrind --store "$T/s2" --format json
contains "$T/err" "perfgate: note: '--bench' is spelt '--manifest' now (the old name still works, for now; see 'perfgate compare --help')"
check "untracked manifest: the same exact delta" [ "$(json "$T/out" "int(d['benchmarks'][0]['metrics'][0]['delta'])")" = "$delta" ]
l0=$(python3 -c "import json,glob; print(json.load(open(glob.glob('$T/s2/results/$c0/*.json')[0]))['runs'][0]['benchmarks'][0]['stdout_log'])")
check "the benchmark ran in the checkout's bench/ ($(cat "$l0"))" grep -qE "in /.*perfgate-rev-[^/]*/bench:" "$l0"
cd "$R"
expect_exit 2 "--manifest naming nothing" "$PG" compare "$c0" "$c1" --run-missing --no-notes --manifest no/such --backend valgrind --store "$T/s4"
contains "$T/err" "perfgate: --manifest 'no/such': no such file or directory (--manifest is the benchmarks' manifest"
# A benchmark's name where the manifest goes: said before anything is checked out.
expect_exit 2 "--bench NAME (compare's is the manifest)" "$PG" compare "$c0" "$c1" --run-missing --no-notes --bench spin --backend valgrind --store "$T/s4"
contains "$T/err" "perfgate: --bench 'spin': no such file or directory (--bench is the benchmarks' manifest, or a directory with one; a benchmark's name is --benchmark NAME, in bisect)"
lacks "$T/err" "checking out"
check "no checkout is left" [ -z "$(ls -d "$T"/perfgate-rev-* 2>/dev/null)" ]
finish
