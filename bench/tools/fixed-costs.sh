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
# Each command's CPU time (user + system, its own and its reaped
# descendants', from wait4) is printed beside: on a shared machine it moves
# less with the load than the wall time does.
# With BASE_BUILD_DIR the same commands of that build are timed in the same
# rounds too, and each one's ratio to the base's is printed: a change and
# its base measured back to back, under the same load.
# Usage: bench/tools/fixed-costs.sh [BUILD_DIR] [ROUNDS] [BASE_BUILD_DIR]
set -euo pipefail
build=${1:-build}; rounds=${2:-50}; base=${3:-}
pg=$(realpath "$build/perfgate" 2>/dev/null || true)
[ -x "$pg" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
basepg=
if [ -n "$base" ]; then
  basepg=$(realpath "$base/perfgate" 2>/dev/null || true)
  [ -x "$basepg" ] || { echo "build the base first: cmake --build $base" >&2; exit 2; }
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/pg-fixed-costs.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"       # not a git work tree: `run --no-store` looks for no commit

python3 - "$pg" "$rounds" "$basepg" <<'PY'
import json, os, statistics, subprocess, sys, time
pg, rounds, basepg = sys.argv[1], int(sys.argv[2]), sys.argv[3]
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
def perfgate_cmds(p, prefix=""):
    return [(prefix + "show", [p, "show", "a.json"]),
            (prefix + "run", [p, "run", "--backend", "perf", "--no-store", "--", "/bin/true"]),
            (prefix + "run1", [p, "run", "--backend", "perf", "--no-store", "--repeat", "1", "--warmup", "0", "--", "/bin/true"]),
            (prefix + "compare", [p, "compare", "a.json", "b.json"])]
cmds = [("true", ["/bin/true"])] + perfgate_cmds(pg) + (perfgate_cmds(basepg, "base:") if basepg else [])
for name, argv in list(cmds):   # each once, untimed: it must work (compare: 0 or 1, a verdict)
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode == 0 or (r.returncode == 1 and name.endswith("compare")):
        continue
    why = (r.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
    if "run" not in name:
        sys.exit("%s failed (exit %d): %s" % (" ".join(argv), r.returncode, why))
    print("run: the perf backend does not work here (exit %d: %s): not timed" % (r.returncode, why))
    cmds.remove((name, argv))
t = {name: [] for name, _ in cmds}
cpu = {name: [] for name, _ in cmds}
devnull = os.open(os.devnull, os.O_RDWR)
for i in range(rounds):
    k = i % len(cmds)
    for name, argv in cmds[k:] + cmds[:k]:
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                                                        (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, _, ru = os.wait4(pid, 0)
        t[name].append(time.perf_counter() - t0)
        cpu[name].append(ru.ru_utime + ru.ru_stime)
ms = lambda s: 1e3 * s
print("%d interleaved rounds; /bin/true: median %.2f ms, best %.2f ms, cpu %.2f ms" %
      (rounds, ms(statistics.median(t["true"])), ms(min(t["true"])), ms(statistics.median(cpu["true"]))))
over, cpu_over = {}, {}
for name, _ in cmds[1:]:
    over[name] = ms(statistics.median(a - b for a, b in zip(t[name], t["true"])))
    cpu_over[name] = ms(statistics.median(a - b for a, b in zip(cpu[name], cpu["true"])))
    print("%-12s median %6.2f ms, best %6.2f ms; over /bin/true: %5.2f ms (median of the rounds' differences), cpu %5.2f ms" %
          (name, ms(statistics.median(t[name])), ms(min(t[name])), over[name], cpu_over[name]))
if basepg:
    for name, _ in perfgate_cmds(pg):
        if name in over and "base:" + name in over:
            ratio = lambda v: statistics.median(a / b for a, b in zip(v[name], v["base:" + name]) if b > 0)
            print("%-8s this build over the base: wall %.3f, cpu %.3f (medians of the rounds' ratios)" %
                  (name, ratio(t), ratio(cpu)))
    for name in [n for n in over if n.startswith("base:")]:
        del over[name]
said = lambda name: "%.2f ms" % over[name] if name in over else "n/a"
print("fixed costs over /bin/true: show %s, run %s, compare %s, run of one child %s; target <= 10 ms: %s" %
      (said("show"), said("run"), said("compare"), said("run1"), "met" if max(over.values()) <= 10 else "MISSED"))
PY
