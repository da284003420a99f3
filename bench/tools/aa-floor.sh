#!/usr/bin/env bash
# The A/A noise floor of exact counts across separate checkouts, and the
# sensitivity of the default threshold (docs/metrics.md, "Why 0.1%").
#
# K fresh clones of REPO's HEAD are made at paths of different lengths and
# built once each. PAIRS A/A pairs are then measured with the valgrind backend,
# each side in a different clone and with an environment of a different size
# (the environment shifts the stack and is scanned by the loader and getenv, so
# it can change counts). Every run document is kept in OUT; then
# aa-sensitivity.py prints, per benchmark, the largest relative A/A difference
# (the floor) and the smallest injected change `perfgate compare` flags in every
# pair while flagging no A/A pair.
#
# Usage: bench/tools/aa-floor.sh [-p PAIRS] [-k CHECKOUTS] [-m MANIFEST_DIR] [-o OUT] PERFGATE REPO [BENCH]
#   perfgate's own benchmarks:  bench/tools/aa-floor.sh build/perfgate .
#   lz4 (a real program):       bench/tools/aa-floor.sh -m bench/tools/aa-lz4 build/perfgate LZ4_GIT_DIR perfgate-bench
# BENCH is the benchmark directory inside the checkout (default bench); -m
# copies a manifest directory there first (for a project without one).
set -euo pipefail
pairs=20 k=3 mdir= out=
while getopts p:k:m:o: opt; do
  case $opt in
    p) pairs=$OPTARG ;; k) k=$OPTARG ;; m) mdir=$(realpath "$OPTARG") ;; o) out=$OPTARG ;;
    *) echo "usage: $0 [-p PAIRS] [-k CHECKOUTS] [-m MANIFEST_DIR] [-o OUT] PERFGATE REPO [BENCH]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: $0 [-p PAIRS] [-k CHECKOUTS] [-m MANIFEST_DIR] [-o OUT] PERFGATE REPO [BENCH]" >&2; exit 2; }
pg=$(realpath "$1") repo=$(realpath "$2") bench=${3:-bench}
tools=$(dirname "$(realpath "$0")")
commit=$(git -C "$repo" rev-parse HEAD)
work=$(mktemp -d "${TMPDIR:-/tmp}/pg-aa.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=${out:-$work/docs}
mkdir -p "$out"

# Checkouts at paths of different lengths (7 to ~120 characters more).
dirs=()
for i in $(seq 0 $((k - 1))); do
  d=$work/c$i
  for j in $(seq 1 $((i * 4))); do d=$d/deeper-path-$j; done
  mkdir -p "$(dirname "$d")"
  git clone -q --shared --no-checkout "$repo" "$d"
  git -C "$d" checkout -q "$commit"
  [ -z "$mdir" ] || { mkdir -p "$d/$bench"; cp -r "$mdir/." "$d/$bench/"; }
  build=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("build",""))' "$d/$bench/perfgate.json")
  echo "checkout $i: $d (building)" >&2
  [ -z "$build" ] || (cd "$d" && sh -c "$build") >&2
  dirs+=("$d")
done

# Side s of pair p runs in checkout (2p+s) mod k with an environment padded
# by a different number of bytes (0 to ~6 KiB), so no two runs look alike.
for p in $(seq 0 $((pairs - 1))); do
  for s in 0 1; do
    r=$((2 * p + s))
    d=${dirs[$((r % k))]}
    pad=$(( (r * 1543) % 6151 ))
    (cd "$d" && env PG_AA_PAD="$(printf '%*s' "$pad" '' | tr ' ' x)" \
       "$pg" run --backend valgrind --no-store --no-build --repeat 1 --warmup 0 --format json "$bench" \
       >"$out/pair$p-$s.json" 2>"$out/pair$p-$s.err") || { cat "$out/pair$p-$s.err" >&2; exit 1; }
    echo "pair $p side $s: checkout $((r % k)), environment +$pad bytes" >&2
  done
done
python3 "$tools/aa-sensitivity.py" "$pg" "$out" "$pairs"
