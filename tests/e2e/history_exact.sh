#!/usr/bin/env bash
# libdeflate's case, small: 8 commits, each measured once by `perfgate run
# --backend valgrind` (exact counts, and native runs whose times move with
# the machine's load). The newest commit makes "decompress" about 16% fewer
# instructions. History lists exactly one instructions change point, at that
# commit, and the improvement as a finding; whatever the time metrics did,
# no other count moved. (Binary segmentation cannot split off the last
# point of a series, so the step was never a change point.) The page draws
# every chart of every metric in headless Chromium with no script error.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc git python3
LIB=$(cd "$(dirname "$0")/lib" && pwd)
R=$T/repo
make_bench_repo "$R" '{ "build": "cc -O1 -fno-inline '"$(static_flag)"' -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "decompress", "command": ["./prog", "decompress"] },
                  { "name": "steady", "command": ["./prog", "steady"] } ] }'
write_prog() {  # DECOMPRESS_N
  write_mix_prog "$R/bench/prog.c" '    n = !strcmp(argv[1], "decompress") ? '"$1"' : 200000;'
}
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
c=()
write_prog 300000; c[0]=$(commit "benchmarks")
for i in 1 2 3 4 5 6 7; do
  if [ $i = 7 ]; then write_prog 251000; c[$i]=$(commit "faster decompression")
  else echo "change $i" >> "$R/README"; c[$i]=$(commit "docs: change $i"); fi
done
cd "$R"
for i in 0 1 2 3 4 5 6 7; do
  git checkout -q "${c[$i]}"
  expect_exit 0 "run at c$i" "$PG" run --backend valgrind --native-repeat 3 bench/
done
git checkout -q main

mkdir -p "$T/page"
expect_exit 0 "history" "$PG" history -o "$T/page/h.html"
cat "$T/out"
contains "$T/out" "history: 9 commits, 8 with results; "
check "exactly one change point in instructions" [ "$(grep -c '^  change point: .* instructions ' "$T/out")" = 1 ]
cp=$(sed -n "s/^  change point: decompress instructions \(-1[5-7]\.[0-9][0-9]%\) from ${c[7]:0:12}\$/\1/p" "$T/out")
check "decompress's change point is the -16% step at c7 ('$cp')" [ -n "$cp" ]
contains "$T/out" "  improved: decompress instructions $cp at ${c[7]:0:12}"
check "no other step in a count" [ "$(grep -cE '^  (regressed|improved): .* instructions ' "$T/out")" = 1 ]
# what the page's data says: the step, and that it is exact
python3 - "$T/page/h.html" "${c[7]}" > "$T/data.txt" <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
d = json.loads(re.search(r'id="perfgate-data">(.*?)</script>', page, re.S).group(1))
for s in d["series"]:
    if s["metric"] == "instructions":
        for c in s["changes"]:
            print(s["bench"], c[9], d["commits"][c[7]][0] == sys.argv[2], "exact" if s["exact"] else "noisy")
PY
check "the page's data: one change point, the exact step at c7" [ "$(cat "$T/data.txt")" = "decompress step True exact" ]

need_chromium
mkdir "$T/profile"
python3 "$LIB/history_charts_browser.py" "$CHROMIUM" "$T/profile" \
  "$T/page/h.html={\"cards\": {\"instructions\": 2, \"task-clock\": 2}, \"findings\": [\"decompress instructions improved $cp at ${c[7]:0:12}\"]}"
rc=$?
[ $rc -eq 0 ] && ok || { bad "browser checks (exit $rc)"; tail -5 "$T/profile/chromium.log" >&2; }
finish
