#!/usr/bin/env bash
# How long `perfgate history` takes on a long history: a repository of COMMITS
# first-parent commits (default 200), each with a stored run of BENCHES
# benchmarks (default 50) x 5 samples of instructions (valgrind, exact) and
# wall-time and max-rss (noisy). Benchmark 0 gains 3% at the middle commit,
# benchmark 1 creeps up 0.05% a commit, benchmark 2 is bimodal. The results
# are in the local store (bench/tools/notes-scale.sh has them in git notes, brought by
# `perfgate fetch` from a clone, and times history from the notes alone). For
# scale, the same run times python3 merely loading every stored document
# (json.load), alternately, ROUNDS times (default 5); medians. Then the
# page's size on disk, and its data directory's when the points were split
# into files (past 50,000 points, docs/history.md); with
# PG_HISTORY_CHROMIUM=/usr/bin/chromium, how long headless Chromium takes from
# opening the page to its first screen of charts drawn (one cold load).
# PG_HISTORY_KEEP=1 keeps the temporary directory (repository, page, output).
# Usage: bench/tools/history-scale.sh [BUILD_DIR] [COMMITS] [BENCHES] [ROUNDS]
set -euo pipefail
build=$(cd "${1:-build}" && pwd); commits=${2:-200}; benches=${3:-50}; rounds=${4:-5}
pg=$build/perfgate
cdp_lib=$(cd "$(dirname "$0")/../../tests/e2e/lib" && pwd)   # the browser driver of the tests
[ -x "$pg" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/pg-history-scale.XXXXXX")
trap "rm -rf \"$dir\"" EXIT; [ -n "${PG_HISTORY_KEEP:-}" ] && trap - EXIT
repo=$dir/repo
git init -q -b main "$repo"
# COMMITS empty commits through fast-import: one process, not one per commit
{
  for i in $(seq "$commits"); do
    printf 'commit refs/heads/main\ncommitter t <t@example.invalid> %d +0000\ndata <<EOM\nchange %d\nEOM\n' \
      $((1700000000 + i * 3600)) "$i"
    echo
  done
} | git -C "$repo" fast-import --quiet
git -C "$repo" rev-list --first-parent --reverse main > "$dir/commits"

python3 - "$repo/.perfgate/results" "$dir/commits" "$benches" <<'PY'
import json, os, random, sys
root, commits, nb = sys.argv[1], open(sys.argv[2]).read().split(), int(sys.argv[3])
rng = random.Random(42)     # the same documents every time
mid = len(commits) // 2
for ci, c in enumerate(commits):
    benchmarks = []
    for i in range(nb):
        level = 1e7 * (1 + i % 7 / 10)
        if i == 0 and ci >= mid: level *= 1.03
        if i == 1: level *= 1 + 0.0005 * ci
        ins = []
        for _ in range(5):
            v = level * (1.08 if i == 2 and rng.random() < 0.5 else 1)
            ins.append(round(v))
        m = {"instructions": {"unit": "count", "backend": "valgrind", "samples": ins, "running": [1] * 5},
             "wall-time": {"unit": "ns", "backend": "os", "samples": [round(2e8 * (1 + rng.gauss(0, 0.02))) for _ in range(5)],
                           "running": [1] * 5},
             "max-rss": {"unit": "bytes", "backend": "os", "samples": [4096 * 1000 + 4096 * rng.randrange(3) for _ in range(5)],
                         "running": [1] * 5}}
        benchmarks.append({"name": "bench-%03d" % i, "status": "ok", "runs": 5, "metrics": m})
    run = {"schema": "perfgate-run/1", "perfgate_version": "bench", "id": "run-%d" % ci, "commit": c, "dirty": False,
           "machine": {"id": "5ca1e0000000", "cpu_model": "any", "kernel": "any", "cores": 2},
           "backend": "valgrind", "settings": {}, "uncontrolled": [], "notices": [], "benchmarks": benchmarks}
    os.makedirs("%s/%s" % (root, c), exist_ok=True)
    with open("%s/%s/5ca1e0000000.json" % (root, c), "w") as f:
        json.dump({"schema": "perfgate-store/1", "commit": c, "machine_id": "5ca1e0000000", "runs": [run]}, f)
PY
now() { date +%s.%N; }
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
h=(); p=()
cd "$repo"
for _ in $(seq "$rounds"); do
  t0=$(now)
  "$pg" history -n "$commits" -o "$dir/history.html" > "$dir/history.out"
  t1=$(now)
  python3 -c 'import json,glob,sys; [json.load(open(f)) for f in glob.glob(sys.argv[1] + "/*/*.json")]' "$repo/.perfgate/results"
  t2=$(now)
  h+=("$(awk "BEGIN{print $t1 - $t0}")"); p+=("$(awk "BEGIN{print $t2 - $t1}")")
done
mh=$(printf '%s\n' "${h[@]}" | med); mp=$(printf '%s\n' "${p[@]}" | med)
head -1 "$dir/history.out"
grep -E "change point|bimodal" "$dir/history.out" | head -5
printf 'page: %s KiB' "$(( $(stat -c %s "$dir/history.html") / 1024 ))"
if [ -d "$dir/history_files/data" ]; then
  printf '; its data: %s files, %s KiB in all, the largest %s KiB' "$(ls "$dir/history_files/data" | wc -l)" \
    "$(du -sk "$dir/history_files/data" | cut -f1)" \
    "$(( $(ls -S "$dir/history_files/data" | head -1 | xargs -I{} stat -c %s "$dir/history_files/data/{}") / 1024 ))"
fi
echo
if [ -n "${PG_HISTORY_CHROMIUM:-}" ]; then
  mkdir -p "$dir/profile"
  PYTHONPATH=$cdp_lib python3 - "$PG_HISTORY_CHROMIUM" "$dir/history.html" \
      "$dir/profile" <<'PY'
import sys, time
from cdp import check, drive
chromium, page, profile = sys.argv[1:4]
def body(b):
    b.call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    t0 = time.monotonic()
    b.send("Page.navigate", {"url": "file://" + page})
    b.wait(lambda m: m.get("method") == "Page.loadEventFired")
    t1 = time.monotonic()
    first = ("(function(){var c=Array.from(document.querySelectorAll('.card')).filter(function(e){"
             "return e.getBoundingClientRect().top < window.innerHeight;});"
             "return c.length > 0 && c.every(function(e){return e.querySelector('svg.chart');});})()")
    while not b.js(first):
        time.sleep(0.01)
    t2 = time.monotonic()
    n = b.js("document.querySelectorAll('.card svg.chart').length")
    check(b.js("document.body.getAttribute('data-ready')") == "1", "the page's script ran to the end")
    print("chromium: page loaded in %.2f s, first screen drawn (%d charts) at %.2f s" % (t1 - t0, n, t2 - t0))
drive(chromium, profile, body)
PY
fi
printf 'perfgate history, %d commits x %d benchmarks: %.3f s (median of %d); python3 json.load of the same documents: %.3f s; ratio %.2f\n' \
  "$commits" "$benches" "$mh" "$rounds" "$mp" "$(awk "BEGIN{print $mh / $mp}")"
