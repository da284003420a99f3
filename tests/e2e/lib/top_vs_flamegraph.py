#!/usr/bin/env python3
"""top_vs_flamegraph.py SVG TOP.json: every number `perfgate top --format json
-n 0` gives equals what the flamegraph of the same stacks (drawn with
--minwidth 0) shows.

From the SVG's frames (fg:x, fg:w, and the rectangle's y for the depth): a
function's self is the width of its frames less that of the frames right
above them; its total is the width covered by its frames, nested ones
counted once (what the flamegraph's Search reports as "Matched"). Where a
function has one frame, its total percentage must be the tooltip's to the
last digit. Exit 1 naming the first difference."""
import json
import re
import sys

svg = open(sys.argv[1], encoding="utf-8").read()
top = json.load(open(sys.argv[2], encoding="utf-8"))
frames = []
for m in re.finditer(r'<g fg:x="(\d+)" fg:w="(\d+)"><title>(.*?)\n(\d+) \w+, ([\d.]+)%</title><rect x="[^"]*" y="(\d+)"',
                     svg, re.S):
    x, w, name, count, pct, y = m.groups()
    name = name.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&#39;", "'").replace("&amp;", "&")
    frames.append({"x": int(x), "w": int(w), "name": name, "pct": pct, "y": int(y)})
frames = [f for f in frames if not (f["name"] == "all" and f["y"] == max(g["y"] for g in frames))]
if not frames:
    sys.exit("no frames in " + sys.argv[1])

by_name = {}
for f in frames:
    above = sum(g["w"] for g in frames if g["y"] == f["y"] - 16 and f["x"] <= g["x"] < f["x"] + f["w"])
    f["self"] = f["w"] - above
    by_name.setdefault(f["name"], []).append(f)

def covered(fs):
    spans = sorted((f["x"], f["x"] + f["w"]) for f in fs)
    total, end = 0, -1
    for a, b in spans:
        if b > end:
            total += b - max(a, end)
            end = b
    return total

rows = {r["name"]: r for r in top["rows"]}
bad = []
if set(rows) != set(by_name):
    bad.append("functions differ: top only %s, flamegraph only %s"
               % (sorted(set(rows) - set(by_name)), sorted(set(by_name) - set(rows))))
for name, fs in by_name.items():
    r = rows.get(name)
    if not r:
        continue
    want_self, want_total = sum(f["self"] for f in fs), covered(fs)
    if r["self"] != want_self or r["total"] != want_total:
        bad.append("%s: top says self %d total %d, the flamegraph %d and %d" % (name, r["self"], r["total"], want_self, want_total))
    if len(fs) == 1 and "%.2f" % r["total_pct"] != fs[0]["pct"]:
        bad.append("%s: top says %.2f%%, the flamegraph's tooltip %s%%" % (name, r["total_pct"], fs[0]["pct"]))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
