#!/usr/bin/env bash
# Benchmark (not a test): how fast `perfgate flamegraph` renders a big profile.
#
#   bench/tools/flamegraph-render.sh [STACKS]       (default 200000 distinct stacks)
#
# Generates a deterministic folded file of STACKS distinct stacks (a call tree
# 4..20 frames deep with skewed fan-out, C++-like names, skewed counts),
# renders it three times each with the default --minwidth (0.1%) and with
# flamegraph.pl's default (0.1 px) and --minwidth 0 (every frame), and prints
# the best wall time and the rate in folded lines per second. If
# FLAMEGRAPH_PL names a flamegraph.pl (or `flamegraph.pl` is on PATH), it is
# timed once on the same file as the baseline and the ratio is printed.
# build/bench/flamegraph_render, when built, splits the time into parse+merge,
# sort and render. Env: PERFGATE (default build/perfgate), KEEP=1 keeps the files.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-200000}
pg=${PERFGATE:-build/perfgate}
[ -x "$pg" ] || { echo "flamegraph-render: build perfgate first ($pg not found)" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/pg-fgbench.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$dir"' EXIT

python3 - "$n" > "$dir/big.folded" <<'PY'
import random, sys, zlib
n = int(sys.argv[1])
rnd = random.Random(20261122)
mods = ["core", "io", "net", "db", "json", "http", "sched", "alloc", "hash", "sort", "std", "detail"]
verbs = ["parse", "read", "write", "lookup", "insert", "visit", "emit", "flush", "scan", "merge", "apply", "run"]
def name(level, parent, k):
    h = zlib.crc32(b"%d/%s/%d" % (level, parent.encode(), k))   # str hash() is salted per process
    return "%s::%s_%s<%d>" % (mods[h % 12], verbs[(h >> 4) % 12], "impl" if h & 1 else "step", (h >> 8) % 997)
seen = set()
out = sys.stdout
while len(seen) < n:
    depth = rnd.randint(4, 20)
    frames, parent = ["main"], "main"
    for level in range(depth):
        k = int(rnd.paretovariate(0.9)) % 40
        parent = name(level, parent, k)
        frames.append(parent)
    s = ";".join(frames)
    if s in seen:
        continue
    seen.add(s)
    out.write("%s %d\n" % (s, min(int(rnd.paretovariate(1.1)), 100000)))
PY
lines=$(wc -l < "$dir/big.folded")
bytes=$(wc -c < "$dir/big.folded")
echo "input: $lines distinct stacks, $((bytes / 1048576)) MiB ($dir/big.folded)"

best() {   # best of 3 wall times, in seconds, of "$@" with stdout to $dir/out.svg
  local b=
  for _ in 1 2 3; do
    local s e t
    s=$(date +%s.%N)
    "$@" > "$dir/out.svg"
    e=$(date +%s.%N)
    t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f", e - s }')
    if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then b=$t; fi
  done
  echo "$b"
}
report() {  # label seconds
  printf '%-42s %7.3f s  %10.0f lines/s  svg %6d KiB\n' "$1" "$2" "$(awk -v n="$lines" -v t="$2" 'BEGIN { print n / t }')" \
    $(( $(wc -c < "$dir/out.svg") / 1024 ))
}
t1=$(best "$pg" flamegraph "$dir/big.folded"); report "perfgate flamegraph (--minwidth 0.1%)" "$t1"
t2=$(best "$pg" flamegraph --minwidth 0.1px "$dir/big.folded"); report "perfgate flamegraph --minwidth 0.1px" "$t2"
t3=$(best "$pg" flamegraph --minwidth 0 "$dir/big.folded"); report "perfgate flamegraph --minwidth 0" "$t3"
t4=$(best "$pg" flamegraph --diff "$dir/big.folded" "$dir/big.folded"); report "perfgate flamegraph --diff (same file twice)" "$t4"

stages=$(dirname "$pg")/bench/flamegraph_render
if [ -x "$stages" ]; then
  echo "stages (best of 3, $stages):"
  "$stages" "$dir/big.folded" 3
fi

fgpl=${FLAMEGRAPH_PL:-$(command -v flamegraph.pl || true)}
if [ -n "$fgpl" ]; then
  s=$(date +%s.%N); perl "$fgpl" "$dir/big.folded" > "$dir/out.svg"; e=$(date +%s.%N)
  tb=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f", e - s }')
  report "baseline: $(basename "$fgpl") (minwidth 0.1 px)" "$tb"
  printf 'ratio: perfgate is %.1fx faster than the baseline at the same 0.1 px minimum width\n' \
    "$(awk -v a="$tb" -v b="$t2" 'BEGIN { print a / b }')"
else
  echo "baseline: no flamegraph.pl (Debian has no package for it; set FLAMEGRAPH_PL=/path/to/flamegraph.pl)"
fi
