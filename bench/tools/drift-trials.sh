#!/usr/bin/env bash
# Statistics under drift (docs/metrics.md "Interleaving", docs/bisect.md
# "Noisy metrics"), as trials with figures printed at the end:
#
#  drift:  TRIES times, a no-op change (docs only) measured by `compare
#          --run-missing --backend valgrind` (exact counts and native time) while
#          a CPU hog, pinned to the CPU perfgate pins to, starts after the first
#          two native runs: counted are the tries that report a divergence or a
#          regressed metric, or where the hog never started (target 0). Beside it, the same change measured in the
#          order compare used before interleaving: all of the base (`perfgate
#          run` in a work tree of it), the hog started, then all of the head,
#          then `compare` of the stored results (what it reports: the drift).
#  bisect: TRIES times, `bisect --backend perf --gate task-clock` over 16
#          commits of which one (a different one each try) adds 10% to the
#          benchmark's work: counted are the tries that name that commit
#          (target TRIES), and how sure bisect said it was.
#
# Usage: bench/tools/drift-trials.sh [BUILD_DIR] [TRIES] [drift|bisect|all]
# Needs an idle machine for figures worth quoting (a try takes 10-30 s).
set -uo pipefail
build=${1:-build}; tries=${2:-10}; which=${3:-all}
pg=$(realpath "$build/perfgate")
[ -x "$pg" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
command -v cc >/dev/null || { echo "drift-trials needs cc" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/pg-drift.XXXXXX")
hog=
cleanup() { [ -n "$hog" ] && kill "$hog" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
cpu=$(( $(nproc) - 1 ))     # perfgate pins to the last CPU it may use

# A repository whose benchmark spins N iterations, N in bench/n (built by the manifest).
make_repo() {   # DIR
  git init -q -b main "$1"
  git -C "$1" config user.email t@example.invalid; git -C "$1" config user.name trial
  mkdir -p "$1/bench"
  cat > "$1/bench/spin.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    FILE *f = fopen("n", "r");
    unsigned long n = 0, x = 88172645463325252UL;
    if (!f || fscanf(f, "%lu", &n) != 1)
        return 2;
    for (unsigned long i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    }
    printf("%lu\n", x & 1);
    return 0;
}
C
  echo '{ "build": "cc -O1 -o bench/spin bench/spin.c", "benchmarks": [ { "name": "spin", "command": ["./spin"] } ] }' \
    > "$1/bench/perfgate.json"
  echo spin > "$1/bench/.gitignore"
}
commit() { git -C "$1" add -A && git -C "$1" commit -q -m "$2" && git -C "$1" rev-parse HEAD; }
fresh() { rm -rf "$1/.perfgate"; git -C "$1" update-ref -d refs/notes/perfgate 2>/dev/null; true; }
start_hog() { taskset -c "$cpu" sh -c 'while :; do :; done' & hog=$!; }
stop_hog() { [ -n "$hog" ] && { kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null; }; hog=; }
# after_native_runs K: waits until K native runs of ./spin have ended (valgrind's
# runs are a tool process, named otherwise), then starts the hog.
after_native_runs() {
  local seen=0 was=0 now
  for _ in $(seq 20000); do
    now=0; pgrep -x spin >/dev/null && now=1
    [ $was = 1 ] && [ $now = 0 ] && seen=$((seen + 1))
    was=$now
    [ $seen -ge "$1" ] && { start_hog; return; }
    sleep 0.003
  done
}
# What a comparison reports: "divergences regressed", the latter the metrics
# of any benchmark that regressed, gating or not (a hog time-slicing the
# benchmark's CPU lengthens its wall time, not its task-clock).
report() {
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(int(d.get("divergences", 0)), sum(m["verdict"] == "regressed" for b in d["benchmarks"] for m in b["metrics"]))' "$1"
}

drift() {
  local R=$dir/drift c0 c1 inter_bad=0 seq_bad=0 t
  make_repo "$R"
  echo 12000000 > "$R/bench/n"; c0=$(commit "$R" "benchmark")
  echo "a note" > "$R/NOTES"; c1=$(commit "$R" "docs only")
  git -C "$R" worktree add -q "$dir/wt0" "$c0"; git -C "$R" worktree add -q "$dir/wt1" "$c1"
  for t in $(seq "$tries"); do
    fresh "$R"
    (cd "$R" && "$pg" compare --run-missing --backend valgrind "$c0" "$c1" --format json > "$dir/inter.json" 2> "$dir/inter.err") &
    local job=$!
    after_native_runs 2
    wait $job
    local hogged=no; [ -n "$hog" ] && hogged=yes
    stop_hog
    read -r div reg < <(report "$dir/inter.json")
    [ "$div" = 0 ] && [ "$reg" = 0 ] && [ $hogged = yes ] || inter_bad=$((inter_bad + 1))
    printf 'drift try %d: interleaved (hog started: %s): %s divergence(s), %s metric(s) regressed; ' "$t" "$hogged" \
      "$div" "$reg"
    fresh "$R"
    (cd "$dir/wt0" && "$pg" run --backend valgrind --store "$R/.perfgate" --no-notes > /dev/null 2>&1)
    start_hog
    (cd "$dir/wt1" && "$pg" run --backend valgrind --store "$R/.perfgate" --no-notes > /dev/null 2>&1)
    stop_hog
    (cd "$R" && "$pg" compare --backend valgrind "$c0" "$c1" --format json > "$dir/seq.json" 2>/dev/null)
    read -r div reg < <(report "$dir/seq.json")
    [ "$div" = 0 ] && [ "$reg" = 0 ] || seq_bad=$((seq_bad + 1))
    printf 'base, then head: %s divergence(s), %s metric(s) regressed\n' "$div" "$reg"
  done
  echo "drift: interleaved: $((tries - inter_bad)) of $tries tries clean (no divergence, no metric regressed);" \
       "base then head: $seq_bad of $tries reported the drift"
}

bisect_trials() {
  local R found=0 sure=0 t k c i
  for t in $(seq "$tries"); do
    R=$dir/bisect-$t
    make_repo "$R"
    k=$(( (t * 7) % 16 + 1 ))       # the step: commit k of 16 after GOOD
    c=()
    echo 10000000 > "$R/bench/n"; c[0]=$(commit "$R" "benchmark")
    for i in $(seq 16); do
      if [ "$i" = "$k" ]; then echo 11000000 > "$R/bench/n"; c[$i]=$(commit "$R" "10% more work")
      else echo "change $i" >> "$R/NOTES"; c[$i]=$(commit "$R" "docs: change $i"); fi
    done
    (cd "$R" && "$pg" bisect --backend perf --gate task-clock "${c[0]}" "${c[16]}" > "$dir/bisect.out" 2> "$dir/bisect.err")
    local got
    got=$(sed -n 's/^first regressing commit: \([0-9a-f]*\) .*/\1/p' "$dir/bisect.out")
    [ "$got" = "${c[$k]}" ] && found=$((found + 1))
    grep -q '^bisect: not sure' "$dir/bisect.out" || sure=$((sure + 1))
    printf 'bisect try %d: step at commit %d: %s; %s\n' "$t" "$k" \
      "$([ "$got" = "${c[$k]}" ] && echo named || echo "MISSED (named ${got:0:12})")" \
      "$(grep -E '^bisect: (sure|not sure)' "$dir/bisect.out" | cut -c1-60 || echo "no decision near the cut")"
    rm -rf "$R"
  done
  echo "bisect: named the commit of the +10% step in $found of $tries tries; sure in $sure"
}

case $which in
  drift) drift ;;
  bisect) bisect_trials ;;
  all) drift; bisect_trials ;;
  *) echo "usage: $0 [BUILD_DIR] [TRIES] [drift|bisect|all]" >&2; exit 2 ;;
esac
