#!/usr/bin/env bash
# The history page draws whatever the analysis makes of degenerate series:
# counts at 0, a step from 0 (no percentage), context switches of 0 and 2
# (two groups, the lower at 0: once an infinite gap, written as null, that
# stopped the page's script before any chart), counts near the largest
# double, a benchmark measured once, a history of one commit. The stored
# documents are written by hand into the store. Each page (in one file, its
# data split into files beside it, one commit, and a copy whose every value
# is null, as a value that does not exist is written) is opened in headless
# Chromium: no script error, and every chart of every metric drawn with a
# mark for each point (the null page's points have no value to draw).
. "$(dirname "$0")/lib/common.sh"
need_chromium
require git python3
LIB=$(cd "$(dirname "$0")/lib" && pwd)
R=$T/repo
make_repo "$R"
for i in 1 2 3 4 5 6 7 8; do git -C "$R" commit -q --allow-empty -m "change $i"; done
git -C "$R" rev-list --first-parent --reverse main > "$T/commits"
python3 - "$R/.perfgate/results" "$T/commits" <<'PY'
import json, os, sys
root, commits = sys.argv[1], open(sys.argv[2]).read().split()[1:]   # the first commit has no results
for ci, c in enumerate(commits):
    def m(unit, backend, samples):
        return {"unit": unit, "backend": backend, "samples": samples, "running": [1] * len(samples)}
    b = [
        {"name": "zeros", "metrics": {"instructions": m("count", "valgrind", [0]),
                                      "wall-time": m("ns", "os", [0, 0, 0])}},
        # 0 or 2 context switches a run: two groups, the lower at 0
        {"name": "ctxsw", "metrics": {"instructions": m("count", "valgrind", [1000]),
                                      "context-switches": m("count", "os", [0, 2, 2] if ci % 2 else [2, 0, 2])}},
        {"name": "from-zero", "metrics": {"instructions": m("count", "valgrind", [0 if ci < 4 else 5])}},
        {"name": "huge", "metrics": {"instructions": m("count", "valgrind", [1.7e308 if ci % 2 else 0.5e308]),
                                     "wall-time": m("ns", "os", [1e308, 1.7e308, 1.5e308])}},
    ]
    if ci == len(commits) - 1:
        b.append({"name": "once", "metrics": {"instructions": m("count", "valgrind", [7])}})
    for x in b:
        x.update(status="ok", runs=3)
    run = {"schema": "perfgate-run/1", "perfgate_version": "test", "id": "run-%d" % ci, "commit": c, "dirty": False,
           "machine": {"id": "de9e0e000000", "cpu_model": "any", "kernel": "any", "cores": 2},
           "backend": "valgrind", "settings": {}, "uncontrolled": [], "notices": [], "benchmarks": b}
    os.makedirs("%s/%s" % (root, c), exist_ok=True)
    with open("%s/%s/de9e0e000000.json" % (root, c), "w") as f:
        json.dump({"schema": "perfgate-store/1", "commit": c, "machine_id": "de9e0e000000", "runs": [run]}, f)
PY
cd "$R"
expect_exit 0 "history, one page" "$PG" history -o "$T/inline.html" --page-data inline
cat "$T/out"
contains "$T/out" "history: 9 commits, 8 with results; "
contains "$T/out" "bimodal: ctxsw context-switches: two groups, at 0 and 2 count ("
contains "$T/out" "change point: from-zero instructions +5 count from $(sed -n 6p "$T/commits" | cut -c1-12)"
contains "$T/out" "regressed: from-zero instructions +5 count at $(sed -n 6p "$T/commits" | cut -c1-12)"
lacks "$T/out" "inf" "no infinite figure on the terminal"
lacks "$T/out" "nan" "no figure that is not a number on the terminal"
lacks "$T/inline.html" "_files/data" "a page asked for in one file names no data files"
expect_exit 0 "history, data split" "$PG" history -o "$T/split.html" --page-data split
contains "$T/out" "its data in 8 files beside it"
check "one data file per chart" [ "$(ls "$T/split_files/data" | wc -l)" = 8 ]
expect_exit 0 "history of one commit" "$PG" history -n 1 -o "$T/one.html"
contains "$T/out" "history: 1 commits, 1 with results; "
# Every value of the page's data null: a value that does not exist.
python3 - "$T/inline.html" "$T/nulls.html" <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
m = re.search(r'(<script type="application/json" id="perfgate-data">)(.*?)(</script>)', page, re.S)
d = json.loads(m.group(2))
VALUES = ("threshold", "floor", "spread", "modeGap", "modeShare", "modeLow", "modeHigh", "last")
for s in d["series"]:
    for k in VALUES:
        s[k] = None
    s["changes"] = [[c[0]] + [None] * 6 + [c[7], c[8], c[9]] + [None] * 3 for c in s["changes"]]
    s["marks"] = [[k[0], k[1], k[2], k[3], None, None, None] for k in s["marks"]]
for chunk in d["chunks"]:
    for e in chunk:
        e[1] = [[p[0], None, None, None, None, None, p[6], p[7], None, None, None, None, None] for p in e[1]]
text = json.dumps(d).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
open(sys.argv[2], "w").write(page[:m.start(2)] + text + page[m.end(2):])
PY
mkdir "$T/profile"
python3 "$LIB/history_charts_browser.py" "$CHROMIUM" "$T/profile" \
  "$T/inline.html={\"cards\": {\"instructions\": 5, \"context-switches\": 1, \"wall-time\": 2}, \"findings\": [\"two groups, at 0 and 2\"]}" \
  "$T/split.html={\"cards\": {\"instructions\": 5, \"context-switches\": 1, \"wall-time\": 2}, \"first_screen\": true}" \
  "$T/one.html={\"cards\": {\"instructions\": 5}}" \
  "$T/nulls.html={\"cards\": {\"instructions\": 5}, \"points\": false}"
rc=$?
[ $rc -eq 0 ] && ok || { bad "browser checks (exit $rc)"; tail -5 "$T/profile/chromium.log" >&2; }
finish
