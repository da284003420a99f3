#!/usr/bin/env bash
# A bare repository DIR/origin.git of COMMITS first-parent commits, each with
# a git note of one valgrind run of BENCHES benchmarks (22 metrics each, as
# `run` writes them), one notes commit per run as `perfgate run` makes them,
# packed as a remote holds them (git gc: the notes are deltas of one another,
# in chains up to 50 deep). The notes are also left as files, DIR/notes/N.json.
# The same notes every time. NOTES_RANDOM=1: every sample a random number:
# the notes are still deltas of one another (their keys repeat: git's push
# finds the deltas, and gc keeps them), but each delta a third of its note
# rather than a seventh (300 notes of 50 benchmarks: 294 of them deltas).
# For bench/tools/notes-scale.sh and tests/e2e/notes_fetch_copy.sh.
# Usage: bench/tools/notes-remote.sh DIR COMMITS BENCHES
set -euo pipefail
dir=$1; commits=$2; benches=$3
mkdir -p "$dir"
repo=$dir/repo
git init -q -b main "$repo"
mkdir "$dir/notes"
# The commits and their notes through one fast-import: the code commits
# (marks 1..COMMITS), then one notes commit per run on refs/notes/perfgate.
python3 - "$dir/notes" "$commits" "$benches" "${NOTES_RANDOM:-0}" > "$dir/stream" <<'PY'
import json, random, sys
out, n, nb, noisy = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
rng = random.Random(41)     # the same notes every time
w = sys.stdout.buffer
def data(b): w.write(b"data %d\n" % len(b) + b + b"\n")
for i in range(1, n + 1):
    w.write(b"commit refs/heads/main\nmark :%d\ncommitter t <t@example.invalid> %d +0000\n" % (i, 1700000000 + i * 3600))
    data(b"change %d" % i)
vg = ["instructions", "cache-misses", "branch-misses", "Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw",
      "DLmw", "Bc", "Bcm", "Bi", "Bim"]
native = [("task-clock", "ns"), ("page-faults", "count"), ("context-switches", "count"), ("cpu-migrations", "count"),
          ("wall-time", "ns"), ("max-rss", "bytes")]
for i in range(1, n + 1):
    benchmarks = []
    for b in range(nb):
        m = {}
        for k, name in enumerate(vg):
            v = rng.random() * 1e7 if noisy else round(1e7 * (1 + b % 7 / 10) / (k + 1))
            m[name] = {"unit": "count", "backend": "valgrind", "samples": [v],
                       "running": [1]}
        for name, unit in native:
            m[name] = {"unit": unit, "backend": "perf",
                       "samples": [rng.random() * 2e7 if noisy else round(2e7 * (1 + rng.gauss(0, 0.05)))
                                   for _ in range(5)], "running": [1] * 5}
        benchmarks.append({"name": "bench-%03d" % b, "command": ["./bench-%03d" % b, "--size", "1000"], "repeat": 5,
                           "warmup": 1, "stdout_log": "/tmp/logs/bench-%03d.stdout" % b,
                           "stderr_log": "/tmp/logs/bench-%03d.stderr" % b,
                           "reuse_key": "%040x" % rng.getrandbits(160), "runs": 5, "status": "ok", "metrics": m})
    run = {"schema": "perfgate-run/1", "perfgate_version": "bench", "id": "2026-11-28T00:00:00Z-%d-0000cafe" % i,
           "commit": "COMMIT", "dirty": False, "start_time": "2026-11-28T00:00:00Z", "load": 0.5 + rng.random(),
           "machine": {"id": "5ca1e0000000", "cpu_model": "any", "kernel": "any", "cores": 2, "hostname": "ci-%d" % (i % 7)},
           "backend": "valgrind", "settings": {"cpu": 1, "aslr_disabled": True}, "uncontrolled": [], "notices": [],
           "benchmarks": benchmarks, "end_time": "2026-11-28T00:01:00Z"}
    # the commit's id is not known yet: its note is written with a placeholder
    with open("%s/%d.json" % (out, i), "w") as f:
        json.dump({"schema": "perfgate-notes/1", "commit": "COMMIT", "runs": [run]}, f)
PY
git -C "$repo" fast-import --quiet --export-marks="$dir/marks" < "$dir/stream"
# Each note names its commit: substituted now, then the notes commits.
python3 - "$dir/notes" "$dir/marks" "$commits" > "$dir/notes-stream" <<'PY'
import sys
out, marks, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
ids = dict(l.split() for l in open(marks))
w = sys.stdout.buffer
for i in range(1, n + 1):
    c = ids[":%d" % i]
    path = "%s/%d.json" % (out, i)
    text = open(path, "rb").read().replace(b'"COMMIT"', b'"%s"' % c.encode())
    open(path, "wb").write(text)
    w.write(b"commit refs/notes/perfgate\ncommitter t <t@example.invalid> %d +0000\n" % (1700000000 + i * 3600))
    msg = b"perfgate: run %d" % i
    w.write(b"data %d\n%s\n" % (len(msg), msg))
    w.write(b"N inline %s\ndata %d\n" % (c.encode(), len(text)) + text + b"\n")
PY
git -C "$repo" fast-import --quiet < "$dir/notes-stream"
git init -q --bare -b main "$dir/origin.git"
git -C "$repo" push -q "$dir/origin.git" main refs/notes/perfgate:refs/notes/perfgate
# a remote holds its objects packed; gc searches random notes for no deltas
# of its own (those the push found are kept)
git -C "$dir/origin.git" -c pack.window="$([ "${NOTES_RANDOM:-0}" = 1 ] && echo 0 || echo 10)" gc -q
