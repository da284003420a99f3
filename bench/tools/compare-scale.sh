#!/usr/bin/env bash
# How long `perfgate compare` takes on a large suite: two result documents of
# BENCHES benchmarks (default 10,000) with SAMPLES samples each (default 10) of
# five perf metrics (noisy: every pair gets a Mann-Whitney U test and the
# Benjamini-Hochberg pass covers 50,000 p-values), compared with --format json.
# Targets: at most a fifth of the time python3 takes merely to parse the two
# documents (issue 41; issue 25's was half; json.load, timed alternately,
# ROUNDS times; medians), and a peak memory (max RSS) at most twice the two
# documents' size (issue 25).
# Usage: bench/tools/compare-scale.sh [BUILD_DIR] [BENCHES] [SAMPLES] [ROUNDS]
set -euo pipefail
build=${1:-build}; benches=${2:-10000}; samples=${3:-10}; rounds=${4:-5}
pg=$build/perfgate
[ -x "$pg" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
case $pg in /*) ;; *) pg=$PWD/$pg ;; esac     # max_rss runs it from another directory too
dir=$(mktemp -d "${TMPDIR:-/tmp}/pg-compare-scale.XXXXXX")
trap 'rm -rf "$dir"' EXIT

python3 - "$dir" "$benches" "$samples" <<'PY'
import json, random, sys
out, nb, ns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(42)     # the same documents every time
metrics = [("instructions", "count", 1e7, 0.001), ("cycles", "count", 2e7, 0.03),
           ("cache-misses", "count", 1e4, 0.05), ("branch-misses", "count", 5e4, 0.05),
           ("wall-time", "ns", 5e6, 0.04)]
for side in ("a", "b"):
    benchmarks = []
    for i in range(nb):
        # one benchmark in 100 really gets 5% slower in b
        shift = 1.05 if side == "b" and i % 100 == 0 else 1.0
        m = {}
        for name, unit, base, noise in metrics:
            v = [round(base * (1 + i % 7 / 10) * shift * (1 + rng.gauss(0, noise))) for _ in range(ns)]
            m[name] = {"unit": unit, "backend": "os" if unit == "ns" else "perf", "samples": v, "running": [1] * ns}
        benchmarks.append({"name": "bench-%05d" % i, "status": "ok", "runs": ns, "metrics": m})
    doc = {"schema": "perfgate-run/1", "perfgate_version": "bench", "id": side, "commit": None, "dirty": False,
           "machine": {"id": "5ca1e0000001", "cpu_model": "any", "kernel": "any", "cores": 2},
           "backend": "perf", "settings": {}, "uncontrolled": [], "notices": [], "benchmarks": benchmarks}
    with open("%s/%s.json" % (out, side), "w") as f:
        json.dump(doc, f)
PY
now() { date +%s.%N; }
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
c=(); p=()
for _ in $(seq "$rounds"); do
  # The last round's report goes before the clock starts: the shell's
  # truncating its 21 MB, which is not compare's work, was 10-20 ms of the
  # time measured (ext4, this VM), a tenth of compare's own.
  rm -f "$dir/report.json"
  t0=$(now)
  set +e; "$pg" compare "$dir/a.json" "$dir/b.json" --format json > "$dir/report.json"; st=$?; set -e
  t1=$(now)
  python3 -c 'import json,sys; [json.load(open(f)) for f in sys.argv[1:]]' "$dir/a.json" "$dir/b.json"
  t2=$(now)
  [ "$st" -le 1 ] || { echo "perfgate compare failed (exit $st)" >&2; exit 2; }
  c+=("$(awk "BEGIN{print $t1 - $t0}")"); p+=("$(awk "BEGIN{print $t2 - $t1}")")
done
mc=$(printf '%s\n' "${c[@]}" | med); mp=$(printf '%s\n' "${p[@]}" | med)
size=$(du -m "$dir/a.json" | cut -f1)
docs_kb=$(( ($(stat -c %s "$dir/a.json") + $(stat -c %s "$dir/b.json")) / 1024 ))
# Peak memory: one more run, outside the timed ones (its children's max RSS,
# in KiB), from here and from the documents' directory ($TMPDIR): inside a git
# repository compare opens it (libgit2) to look up the store's calibration,
# 6 MiB more than outside one (measured 44.4 against 38.4 MiB).
# GNU time, not a python3 parent, whose pages a child's max RSS counts until it execs.
max_rss() {
  (cd "$1" && { /usr/bin/time -o "$dir/rss" -f %M "$pg" compare "$dir/a.json" "$dir/b.json" --format json > /dev/null || true; } &&
   tail -n 1 "$dir/rss")
}
rss_kb=$(max_rss .); rss_out_kb=$(max_rss "$dir")
verdicts=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["benchmarks"]), "benchmarks compared,", d["counts"])' "$dir/report.json")
printf 'documents: %d benchmarks x %d samples x 5 metrics (%s MiB each); %s\n' "$benches" "$samples" "$size" "$verdicts"
printf 'perfgate compare --format json: %.3f s (median of %d); python3 json.load of both: %.3f s; ratio %.2f; target <= 0.2: %s\n' \
  "$mc" "$rounds" "$mp" "$(awk "BEGIN{print $mc / $mp}")" "$(awk "BEGIN{print ($mc <= 0.2 * $mp) ? \"met\" : \"MISSED\"}")"
printf 'memory: max RSS %d MiB for documents of %d MiB together: %.1fx; target <= 2x: %s (outside a repository: %d MiB, %.1fx)\n' \
  $((rss_kb / 1024)) $((docs_kb / 1024)) "$(awk "BEGIN{print $rss_kb / $docs_kb}")" "$(awk "BEGIN{print ($rss_kb <= 2 * $docs_kb) ? \"met\" : \"MISSED\"}")" \
  $((rss_out_kb / 1024)) "$(awk "BEGIN{print $rss_out_kb / $docs_kb}")"
