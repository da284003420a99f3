#!/usr/bin/env bash
# Sampling overhead (issue: stack sampling), as ratios measured in one run:
#   `perfgate record --call-graph dwarf` (the default rate) of a CPU-bound program  vs  the bare program
# pinned to the same CPU. Both are timed alternately, ROUNDS times, and the medians
# compared. Two ratios are printed:
#   end-to-end  the whole `perfgate record` command (spawn, sampling, unwinding and
#               symbolizing after the exit, writing the folded file) — target <= 1.10
#   program     the sampled program's own wall time, as record reports it
# perfgate copies samples out of the ring buffers while the program runs and unwinds
# them after it exited, so the program only pays for the kernel's stack copies.
# Usage: bench/tools/sampling-overhead.sh [BUILD_DIR] [ROUNDS] [PROGRAM ARGS...]
set -euo pipefail
build=${1:-build}; rounds=${2:-5}; shift $(( $# >= 2 ? 2 : $# ))
prog=("$@")
[ ${#prog[@]} -gt 0 ] || prog=("$build/bench/sort" 20000000)
pg=$build/perfgate
[ -x "$pg" ] && [ -x "${prog[0]}" ] || { echo "build first: cmake --build $build --target perfgate perfgate-bench" >&2; exit 2; }
cpu=$(( $(nproc) - 1 ))
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
b=(); p=(); c=(); s=()
for _ in $(seq "$rounds"); do
  t0=$(now); taskset -c "$cpu" "${prog[@]}" >/dev/null </dev/null; t1=$(now)
  "$pg" record --call-graph dwarf --cpu "$cpu" --folded "$tmp/out.folded" -- "${prog[@]}" >/dev/null 2>"$tmp/err"; t2=$(now)
  b+=("$(awk "BEGIN{print $t1 - $t0}")"); p+=("$(awk "BEGIN{print $t2 - $t1}")")
  c+=("$(sed -n 's/.*the command ran \([0-9]*\) ms.*/\1/p' "$tmp/err" | awk '{print $1 / 1000}')")
  s+=("$(sed -n 's/^perfgate record: \([0-9]*\) samples.*/\1/p' "$tmp/err")")
done
mb=$(printf '%s\n' "${b[@]}" | med); mp=$(printf '%s\n' "${p[@]}" | med); mc=$(printf '%s\n' "${c[@]}" | med)
ms=$(printf '%s\n' "${s[@]}" | med)
echo "program: ${prog[*]} (pinned to CPU $cpu), $rounds rounds, medians"
printf 'bare %.3f s; perfgate record --call-graph dwarf %.3f s (%s samples; program %.3f s)\n' "$mb" "$mp" "$ms" "$mc"
printf 'ratio end-to-end %.3f, program %.3f (target <= 1.10)\n' "$(awk "BEGIN{print $mp / $mb}")" "$(awk "BEGIN{print $mc / $mb}")"
grep -F 'truncated' "$tmp/err" | sed 's/^/last run: /'
