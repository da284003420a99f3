#!/usr/bin/env bash
# How long `perfgate fetch` takes to bring a long shared history into a fresh
# clone (issue 41), and `history` from those notes alone. A repository of
# COMMITS first-parent commits (default 1000), each with a git note of one
# valgrind run of BENCHES benchmarks (default 50; 22 metrics each, as `run`
# writes them), one notes commit per run as `perfgate run` makes them, pushed
# to a bare remote. Each of ROUNDS rounds (default 3) clones the remote
# afresh and times `perfgate fetch` into the clone, then python3 merely
# loading the same notes as files (json.load); medians. Then, in the last
# clone: a fetch that brings nothing new, and `perfgate history` from the
# notes alone (no local store).
# (The repository and its notes: bench/tools/notes-remote.sh.)
# Targets: fetch at most 1x python's json.load; its peak memory (max RSS)
# over that of the fetch that brings nothing under twice the largest note;
# the fetch that brings nothing under 50 ms.
# PERFGATE_BASE=<another perfgate> (main's, say) times that one's fetch too,
# into a clone of its own in each round, interleaved with this one's (on a
# shared machine the two see the same load), and prints the ratio.
# NOTES_SCALE_DHAT=1: also the heap peak of a fetch into a fresh clone under
# valgrind's DHAT, and what was live then, by the first frames that name a
# function (slow: 1,000 notes take minutes).
# Usage: bench/tools/notes-scale.sh [BUILD_DIR] [COMMITS] [BENCHES] [ROUNDS]
set -euo pipefail
build=$(cd "${1:-build}" && pwd); commits=${2:-1000}; benches=${3:-50}; rounds=${4:-3}
pg=${PERFGATE:-$build/perfgate}
[ -x "$pg" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/pg-notes-scale.XXXXXX")
trap 'rm -rf "$dir"' EXIT
bash "$(dirname "$0")/notes-remote.sh" "$dir" "$commits" "$benches"
note_bytes=$(cat "$dir"/notes/*.json | wc -c)
largest=$(stat -c %s "$dir"/notes/*.json | sort -n | tail -n 1)

now() { date +%s.%N; }
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# peak KiB COMMAND...: runs COMMAND (stdout to $dir/peak.out) and prints its max RSS in KiB
# peak COMMAND...: its max RSS in KiB, -1 when it failed. GNU time, not a
# python3 parent: a child's max RSS counts the pages of the process it was
# forked from until it execs (13.9 MiB of python3 against perfgate's 9.0 for
# a fetch that brings nothing, which hid 4.9 MiB of every fetch's growth).
peak() { if /usr/bin/time -o "$dir/peak.rss" -f %M "$@" > "$dir/peak.out"; then tail -n 1 "$dir/peak.rss"; else echo -1; fi; }
base=${PERFGATE_BASE:-}
f=(); p=(); fb=()
for r in $(seq "$rounds"); do
  if [ -n "$base" ]; then
    rm -rf "$dir/clone"
    git clone -q --no-local "$dir/origin.git" "$dir/clone"
    cd "$dir/clone"
    t0=$(now); "$base" fetch > /dev/null; t1=$(now)
    fb+=("$(awk "BEGIN{print $t1 - $t0}")")
    cd "$dir"
  fi
  rm -rf "$dir/clone"
  git clone -q --no-local "$dir/origin.git" "$dir/clone"
  cd "$dir/clone"
  t0=$(now)
  "$pg" fetch > "$dir/fetch.out"
  t1=$(now)
  python3 -c 'import json,sys; [json.load(open(f)) for f in sys.argv[1:]]' "$dir"/notes/*.json
  t2=$(now)
  f+=("$(awk "BEGIN{print $t1 - $t0}")"); p+=("$(awk "BEGIN{print $t2 - $t1}")")
  cd "$dir"
done
mf=$(printf '%s\n' "${f[@]}" | med); mp=$(printf '%s\n' "${p[@]}" | med)
[ -z "$base" ] || mb=$(printf '%s\n' "${fb[@]}" | med)
cd "$dir/clone"
[ "$(git notes --ref perfgate list | wc -l)" = "$commits" ] || { echo "the fetch did not bring every note" >&2; exit 1; }
n=(); for _ in 1 2 3 4 5; do
  t0=$(now); "$pg" fetch > "$dir/noop.out"; t1=$(now); n+=("$(awk "BEGIN{print $t1 - $t0}")")
done
mn=$(printf '%s\n' "${n[@]}" | med)
t0=$(now)
"$pg" history -n "$commits" -o "$dir/history.html" > "$dir/history.out"
t1=$(now)
th=$(awk "BEGIN{print $t1 - $t0}")
rss_noop=$(peak "$pg" fetch)
cd "$dir" && rm -rf "$dir/clone" && git clone -q --no-local "$dir/origin.git" "$dir/clone" && cd "$dir/clone"
rss=$(peak "$pg" fetch)
grow=$((rss - rss_noop))
if [ "${NOTES_SCALE_DHAT:-0}" = 1 ]; then
  cd "$dir" && rm -rf "$dir/clone" && git clone -q --no-local "$dir/origin.git" "$dir/clone" && cd "$dir/clone"
  valgrind --tool=dhat --dhat-out-file="$dir/dhat.json" "$pg" fetch > /dev/null 2>&1
  python3 - "$dir/dhat.json" "$largest" > "$dir/dhat.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); names = d["ftbl"]; largest = int(sys.argv[2])
peak = sum(p.get("gb", 0) for p in d["pps"])
print("memory (DHAT): heap peak %d KiB: %.1fx the largest note; live then:" % (peak / 1024, peak / largest))
live = {}
for p in d["pps"]:
    fs = [names[i].split(": ", 1)[-1].split(" (")[0] for i in p["fs"]]
    fs = [f for f in fs if f != "???" and "alloc" not in f][:3]
    live[" < ".join(fs)] = live.get(" < ".join(fs), 0) + p.get("gb", 0)
for where, b in sorted(live.items(), key=lambda x: -x[1])[:6]:
    print("  %8d KiB  %5.1fx  %s" % (b / 1024, b / largest, where))
PY
fi
cat "$dir/fetch.out"
head -1 "$dir/noop.out"
head -1 "$dir/history.out"
printf 'notes: %d commits x %d benchmarks, %.1f MiB of JSON, largest note %d KiB\n' "$commits" "$benches" \
  "$(awk "BEGIN{print $note_bytes / 1048576}")" $((largest / 1024))
printf 'perfgate fetch into a fresh clone, %d notes: %.3f s (median of %d); python3 json.load of the same notes: %.3f s; ratio %.2f; target <= 1: %s\n' \
  "$commits" "$mf" "$rounds" "$mp" "$(awk "BEGIN{print $mf / $mp}")" "$(awk "BEGIN{print ($mf <= $mp) ? \"met\" : \"MISSED\"}")"
[ -z "$base" ] || printf '%s fetch into a fresh clone: %.3f s (median of %d; rounds: %s); this one: %s; ratio this/base %.2f\n' \
  "$base" "$mb" "$rounds" "${fb[*]}" "${f[*]}" "$(awk "BEGIN{print $mf / $mb}")"
printf 'memory: max RSS %d MiB, %d KiB over a fetch that brings nothing (%d MiB): %.1fx the largest note; target < 2x: %s\n' \
  $((rss / 1024)) "$grow" $((rss_noop / 1024)) "$(awk "BEGIN{print $grow * 1024 / $largest}")" \
  "$(awk "BEGIN{print ($grow * 1024 < 2 * $largest) ? \"met\" : \"MISSED\"}")"
[ "${NOTES_SCALE_DHAT:-0}" != 1 ] || cat "$dir/dhat.out"
printf 'perfgate fetch with nothing new: %.3f s (median of 5); target < 0.050 s: %s\n' "$mn" \
  "$(awk "BEGIN{print ($mn < 0.05) ? \"met\" : \"MISSED\"}")"
printf 'perfgate history from the notes alone, %d commits: %.3f s\n' "$commits" "$th"
