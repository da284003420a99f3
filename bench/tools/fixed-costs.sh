#!/usr/bin/env bash
# What perfgate costs before it does any work (issue 41, target 3): process
# starts of /bin/true, `perfgate show` of a small document, `perfgate run
# --backend perf --no-store -- /bin/true` (its default 1 warm-up and 5
# measured runs of /bin/true, and once more with --repeat 1 --warmup 0: one
# run's worth, perfgate's own cost around a single child) and `perfgate
# compare` of two small documents, timed in interleaved rounds (each round runs every command once,
# in an order rotated round by round, so that a busy moment of a shared
# machine falls on all of them alike). Each command's cost over /bin/true is
# the median of its per-round differences. Target: at most 10 ms each.
# Usage: bench/tools/fixed-costs.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
build=${1:-build}; rounds=${2:-50}
pg=$(realpath "$build/perfgate" 2>/dev/null || true)
[ -x "$pg" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/pg-fixed-costs.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"       # not a git work tree: `run --no-store` looks for no commit

python3 - "$pg" "$rounds" <<'PY'
import json, statistics, subprocess, sys, time
pg, rounds = sys.argv[1], int(sys.argv[2])
for side, shift in (("a", 1.0), ("b", 1.02)):
    bench = [{"name": "bench-%d" % i, "status": "ok", "runs": 5,
              "metrics": {"instructions": {"unit": "count", "backend": "perf", "samples": [round(1e6 * shift)] * 5,
                                           "running": [1] * 5},
                          "wall-time": {"unit": "ns", "backend": "os",
                                        "samples": [round(2e6 * shift) + k for k in range(5)], "running": [1] * 5}}}
             for i in range(3)]
    doc = {"schema": "perfgate-run/1", "perfgate_version": "bench", "id": side, "commit": None, "dirty": False,
           "machine": {"id": "5ca1e0000001", "cpu_model": "any", "kernel": "any", "cores": 2},
           "backend": "perf", "settings": {}, "uncontrolled": [], "notices": [], "benchmarks": bench}
    with open(side + ".json", "w") as f:
        json.dump(doc, f)
cmds = [("true", ["/bin/true"]),
        ("show", [pg, "show", "a.json"]),
        ("run", [pg, "run", "--backend", "perf", "--no-store", "--", "/bin/true"]),
        ("run1", [pg, "run", "--backend", "perf", "--no-store", "--repeat", "1", "--warmup", "0", "--", "/bin/true"]),
        ("compare", [pg, "compare", "a.json", "b.json"])]
for name, argv in list(cmds):   # each once, untimed: it must work (compare: 0 or 1, a verdict)
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode == 0 or (r.returncode == 1 and name == "compare"):
        continue
    why = (r.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
    if not name.startswith("run"):
        sys.exit("%s failed (exit %d): %s" % (" ".join(argv), r.returncode, why))
    print("run: the perf backend does not work here (exit %d: %s): not timed" % (r.returncode, why))
    cmds.remove((name, argv))
t = {name: [] for name, _ in cmds}
for i in range(rounds):
    k = i % len(cmds)
    for name, argv in cmds[k:] + cmds[:k]:
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t[name].append(time.perf_counter() - t0)
ms = lambda s: 1e3 * s
print("%d interleaved rounds; /bin/true: median %.2f ms, best %.2f ms" %
      (rounds, ms(statistics.median(t["true"])), ms(min(t["true"]))))
over = {}
for name, _ in cmds[1:]:
    over[name] = ms(statistics.median(a - b for a, b in zip(t[name], t["true"])))
    print("%-8s median %6.2f ms, best %6.2f ms; over /bin/true: %5.2f ms (median of the rounds' differences)" %
          (name, ms(statistics.median(t[name])), ms(min(t[name])), over[name]))
said = lambda name: "%.2f ms" % over[name] if name in over else "n/a"
print("fixed costs over /bin/true: show %s, run %s, compare %s, run of one child %s; target <= 10 ms: %s" %
      (said("show"), said("run"), said("compare"), said("run1"), "met" if max(over.values()) <= 10 else "MISSED"))
PY
