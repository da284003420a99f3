#!/usr/bin/env bash
# max-rss is the benchmark's own (harness/measure/launch.h): a program forked by
# perfgate would start with a copy of perfgate's memory, which the kernel
# counts in its peak. Measured by `run` and by `compare --run-missing` (a
# perfgate holding more), one program's max-rss agrees within 1%, and a
# small program's is small.
. "$(dirname "$0")/lib/common.sh"
require cc
R=$T/repo
make_repo "$R"
mkdir -p "$R/bench"
cat > "$R/bench/perfgate.json" <<'JSON'
{ "build": "cc -O1 -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "touch-16m", "command": ["./prog"] } ] }
JSON
echo prog > "$R/bench/.gitignore"
cat > "$R/bench/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    size_t n = 16u << 20;
    volatile char *p = malloc(n);   /* volatile: the compiler keeps every store */
    if (!p)
        return 1;
    for (size_t i = 0; i < n; i += 4096)
        p[i] = (char)argc;          /* 16 MiB resident at the peak */
    printf("%d\n", p[n / 2] + (argv[0] != NULL));
    return 0;
}
C
git -C "$R" add -A && git -C "$R" commit -qm bench
echo "docs" >> "$R/README" && git -C "$R" commit -qam docs
cd "$R"
RUN=(--backend perf --repeat 5 --no-notes)
rss() { json "$1" "sorted(d['runs'][0]['benchmarks'][0]['metrics']['max-rss']['samples'])[2]"; }
expect_exit 0 "run in the work tree" "$PG" run "${RUN[@]}" --warmup 0 --no-pin bench/
a=$(rss .perfgate/results/"$(git rev-parse HEAD)"/*.json)
expect_exit 0 "compare --run-missing: the parent measured in a checkout" "$PG" compare HEAD~1 HEAD --run-missing \
  "${RUN[@]}" --gate task-clock --allow-missing --allow-apart
b=$(rss .perfgate/results/"$(git rev-parse HEAD~1)"/*.json)
check "max-rss from run ($a) and from --run-missing ($b) within 1%" \
  python3 -c "import sys; a, b = $a, $b; sys.exit(not (abs(a - b) / a < 0.01 and 16 << 20 < a < 24 << 20))"
expect_exit 0 "a small program" "$PG" run --no-store --format json "${RUN[@]}" --warmup 0 --no-pin -- /bin/true
small=$(json "$T/out" "sorted(d['benchmarks'][0]['metrics']['max-rss']['samples'])[2]")
check "a small program's max-rss is small ($small bytes), not perfgate's" [ "$small" -lt $((5 << 19)) ]
# A launcher that does not run fails the run, and says which: holding the
# program in perfgate's child instead would count perfgate's memory unsaid.
printf 'not a program\n' > "$T/bad-launcher"
chmod +x "$T/bad-launcher"
expect_exit 1 "a launcher that cannot run" env PERFGATE_LAUNCHER="$T/bad-launcher" \
  "$PG" run --no-store "${RUN[@]}" --warmup 0 --no-pin -- /bin/true
check "the report names the launcher and why" grep -q "cannot execute the launcher $T/bad-launcher: Exec format error" "$T/out"
# Without a launcher the child is forked and held before its exec, as before one existed.
expect_exit 0 "no launcher" env PERFGATE_NO_LAUNCHER=1 "$PG" run --no-store --format json "${RUN[@]}" --warmup 0 --no-pin -- ./bench/prog
own=$(json "$T/out" "sorted(d['benchmarks'][0]['metrics']['max-rss']['samples'])[2]")
check "no launcher: the program ran ($own bytes at its peak)" [ "$own" -gt $((16 << 20)) ]

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
