#!/usr/bin/env python3
"""A/A floor and sensitivity of `instructions`, from run documents of A/A pairs.

Usage: aa-sensitivity.py PERFGATE DIR PAIRS [METRIC]
DIR holds pair<P>-0.json and pair<P>-1.json (perfgate run --format json), as
bench/tools/aa-floor.sh writes them. Thresholds stored from the manifest are
dropped, so perfgate's default threshold for METRIC is the one judged.

For each benchmark it prints
  floor      the largest |B - A| / A over the pairs (the A/A noise floor)
  median     the median of |B - A| / A
  false      A/A pairs `perfgate compare` did not call unchanged (must be 0)
  flagged    the smallest injected change (B's samples scaled by 1 + x) that
             `perfgate compare` calls regressed in every pair: the sensitivity
             of the default threshold, found by bisection to 1/1000 of itself
  best       the smallest change any threshold could flag in every pair with
             no false alarm: min over pairs of the injected delta must exceed
             the floor, i.e. about twice the floor
"""
import json, os, subprocess, sys, tempfile

pg, d, npairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
metric = sys.argv[4] if len(sys.argv) > 4 else "instructions"
tmp = tempfile.mkdtemp(prefix="pg-aa-sens.")


def load(p, s):
    with open(os.path.join(d, f"pair{p}-{s}.json")) as f:
        doc = json.load(f)
    for b in doc["benchmarks"]:
        b.pop("thresholds", None)
    return doc


def value(doc, bench):
    for b in doc["benchmarks"]:
        if b["name"] == bench:
            return b["metrics"][metric]["samples"][0]
    raise KeyError(bench)


def scaled(doc, xs):
    """`doc` with benchmark n's samples of the metric scaled by 1 + xs[n]."""
    doc = json.loads(json.dumps(doc))
    for b in doc["benchmarks"]:
        m = b["metrics"].get(metric)
        if m and b["name"] in xs:
            m["samples"] = [round(v * (1 + xs[b["name"]])) for v in m["samples"]]
    return doc


def verdicts(a, b):
    pa, pb = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
    for p, doc in ((pa, a), (pb, b)):
        with open(p, "w") as f:
            json.dump(doc, f)
    # from a directory outside any repository: no store, so no calibration
    r = subprocess.run([pg, "compare", "--gate", metric, "--format", "json", pa, pb],
                       capture_output=True, text=True, cwd=tmp)
    if r.returncode not in (0, 1):
        sys.exit(f"perfgate compare failed: {r.stderr.strip()}")
    rep = json.loads(r.stdout)
    for b in rep["benchmarks"]:
        for m in b["metrics"]:
            if m["name"] == metric:
                threshold[b["name"]] = m["threshold_pct"]
    return {b["name"]: b["verdict"] for b in rep["benchmarks"]}


threshold = {}
pairs = [(load(p, 0), load(p, 1)) for p in range(npairs)]
names = [b["name"] for b in pairs[0][0]["benchmarks"]]

rel = {n: [abs(value(b, n) - value(a, n)) / value(a, n) for a, b in pairs] for n in names}
false = {n: 0 for n in names}
for a, b in pairs:
    for n, v in verdicts(a, b).items():
        false[n] += v != "unchanged"
# Bisection per benchmark, all benchmarks in the same compare calls: an
# injected change x is "caught" when every pair calls it regressed. The
# threshold rule is monotonic in x, so [lo, hi] brackets the smallest caught.
lo = {n: 0.0 for n in names}
hi = {n: 0.1 for n in names}
def caught(xs):
    hits = {n: 0 for n in xs}
    for a, b in pairs:
        v = verdicts(a, scaled(b, xs))
        for n in xs:
            hits[n] += v.get(n) == "regressed"
    return {n: hits[n] == npairs for n in xs}
if not all(caught(hi).values()):
    sys.exit("an injected change of 10% is not caught in every pair: the threshold is above 10%?")
while True:
    left = [n for n in names if hi[n] - lo[n] > hi[n] / 1000]
    if not left:
        break
    mid = {n: (lo[n] + hi[n]) / 2 for n in left}
    for n, ok in caught(mid).items():
        if ok:
            hi[n] = mid[n]
        else:
            lo[n] = mid[n]
flagged = hi


def best(n):
    # smallest x with min_i (b_i (1+x) - a_i) / a_i > floor
    floor = max(rel[n])
    return max((a * (1 + floor) / b) - 1 for a, b in ((value(pa, n), value(pb, n)) for pa, pb in pairs))


def pct(x):
    return "-" if x is None else f"{100 * x:.5f}%"


if any(false.values()):
    print("false alarms in A/A pairs: the default threshold is below the floor")


print(f"{npairs} A/A pairs, metric {metric}, perfgate's default threshold: "
      + ", ".join(sorted({f"{t:g}%" for t in threshold.values()})))
print(f"{'benchmark':<16} {'median':>14} {'floor':>11} {'med |d|':>11} {'false':>5} {'flagged':>11} {'best':>11}")
for n in names:
    vals = sorted(value(a, n) for a, _ in pairs)
    r = sorted(rel[n])
    print(f"{n:<16} {vals[len(vals) // 2]:>14,} {pct(r[-1]):>11} {pct(r[len(r) // 2]):>11} {false[n]:>5} "
          f"{pct(flagged.get(n)):>11} {pct(best(n)):>11}")
