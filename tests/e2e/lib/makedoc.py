#!/usr/bin/env python3
"""Writes a perfgate run document (docs/result-schema.md) from a compact spec,
for the compare tests that need exact, hand-chosen samples.

    makedoc.py OUT.json MACHINE BACKEND [COMMIT] -- BENCH:METRIC=v1,v2,...[:unit] ...

A BENCH:!reason entry marks the benchmark failed. A BENCH:@thresholds=JSON entry
sets its manifest thresholds. A BENCH:^stacks=PATH entry sets its stacks file.
"""
import json, sys

args = sys.argv[1:]
sep = args.index("--")
head, specs = args[:sep], args[sep + 1:]
out, machine, backend = head[0], head[1], head[2]
commit = head[3] if len(head) > 3 else None
benches = {}
order = []

def bench(name):
    if name not in benches:
        benches[name] = {"name": name, "status": "ok", "runs": 0, "metrics": {}}
        order.append(name)
    return benches[name]

for s in specs:
    name, rest = s.split(":", 1)
    b = bench(name)
    if rest.startswith("!"):
        b["status"] = "failed"
        b["failure"] = {"reason": rest[1:], "phase": "measured run", "run": 1}
        continue
    if rest.startswith("@thresholds="):
        b["thresholds"] = json.loads(rest[len("@thresholds="):])
        continue
    if rest.startswith("^stacks="):
        b["stacks"] = rest[len("^stacks="):]
        continue
    metric, vals = rest.split("=", 1)
    unit = "count"
    if ":" in vals:
        vals, unit = vals.split(":", 1)
    samples = [float(v) if "." in v else int(v) for v in vals.split(",") if v]
    src = backend if unit == "count" else "os"
    b["metrics"][metric] = {"unit": unit, "backend": src, "samples": samples, "running": [1] * len(samples)}
    b["runs"] = max(b["runs"], len(samples))

doc = {
    "schema": "perfgate-run/1", "perfgate_version": "test", "id": "test-1", "commit": commit, "dirty": False,
    "start_time": "2026-01-01T00:00:00Z", "end_time": "2026-01-01T00:00:01Z",
    "machine": {"id": machine, "cpu_model": "Test CPU " + machine, "kernel": "Linux 6", "cores": 2,
                "backend": backend, "backend_version": "x", "hostname": "h"},
    "backend": backend, "settings": {}, "uncontrolled": [], "notices": [],
    "benchmarks": [benches[n] for n in order],
}
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
