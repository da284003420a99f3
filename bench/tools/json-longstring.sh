#!/usr/bin/env bash
# How the time to read a result document grows with one long JSON string in
# it (issue 37, item 4): documents holding one string of 4, 16 and 64 MiB (by
# default; SIZES in MiB), read by `perfgate show FILE`, the CPU time of each
# (user + system, the median of ROUNDS) and that time per MiB. A reader that
# is linear keeps the time per MiB flat: the last ratio, the largest size's
# time per MiB over the smallest's, is near 1 (it was 10 for 4 -> 64 MiB when
# yajl scanned a string cut by the file's 64 KiB pieces again with each piece).
# SHAPE: "string" (a notice of plain bytes), "escaped" (the same with a "\n"
# escape every 16 bytes: yajl's slow path) or "number" (a number of that many
# digits, in a benchmark's `timeout`: refused by the reader, after the parse).
# Usage: bench/tools/json-longstring.sh [BUILD_DIR] [SIZES] [ROUNDS] [SHAPE]
set -euo pipefail
build=${1:-build}; sizes=${2:-4 16 64}; rounds=${3:-3}; shape=${4:-string}
pg=$build/perfgate
[ -x "$pg" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
case $shape in string|escaped|number) ;; *) echo "SHAPE: string, escaped or number, not '$shape'" >&2; exit 2;; esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/pg-json-longstring.XXXXXX")
trap 'rm -rf "$dir"' EXIT

first=""
for mib in $sizes; do
  python3 - "$dir/d.json" "$mib" "$shape" <<'PY'
import sys
path, mib, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
n = mib << 20
if shape == "escaped":
    s = ('"' + ("a" * 14 + "\\n") * (n // 16) + '"')
else:
    s = '"' + "x" * n + '"'
timeout = ("1" + "0" * (n - 1)) if shape == "number" else "1"
with open(path, "w") as f:
    f.write('{"schema": "perfgate-run/1", "perfgate_version": "bench", "id": "r1", "commit": null, '
            '"dirty": false, "machine": {"id": "5ca1e0000001", "cpu_model": "any", "kernel": "any", '
            '"cores": 2}, "backend": "perf", "settings": {}, "uncontrolled": [], "notices": [')
    f.write(s if shape != "number" else '"n"')
    f.write('], "benchmarks": [{"name": "b", "status": "ok", "runs": 1, "timeout": ' + timeout + ', '
            '"metrics": {"instructions": {"unit": "count", "backend": "perf", "samples": [1]}}}]}')
PY
  # CPU seconds of one `perfgate show`, the median of ROUNDS.
  t=$(python3 - "$rounds" "$shape" "$pg" show "$dir/d.json" <<'PY'
import resource, subprocess, sys
rounds, shape, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
ts = []
for _ in range(rounds):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    st = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # a number that long is no timeout: read whole, then refused
    if st.returncode != (2 if shape == "number" else 0):
        sys.exit("perfgate show: exit %d: %s" % (st.returncode, st.stderr.decode(errors="replace").strip()))
    ts.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
print(sorted(ts)[len(ts) // 2])
PY
)
  per=$(awk "BEGIN{print $t / $mib}")
  [ -n "$first" ] || first=$per
  printf '%4d MiB %s: perfgate show %.3f s CPU, %.4f s per MiB\n' "$mib" "$shape" "$t" "$per"
  last=$per
  rm -f "$dir/d.json"
done
printf 'time per MiB, largest over smallest (%s): %.2f (linear: near 1)\n' "$shape" "$(awk "BEGIN{print ($first > 0) ? $last / $first : 0}")"
