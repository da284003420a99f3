#!/usr/bin/env bash
# Ctrl-C during a run: perfgate stops the benchmark's whole process group,
# exits 130, and the store holds nothing of the interrupted run (while an
# earlier, complete run stays intact).
. "$(dirname "$0")/lib/common.sh"
# A private copy: other tests running at the same time start their own hang.
cp "$PROGS/hang" "$T/hang-int"
HANG=$T/hang-int
R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
cat > "$R/b/perfgate.json" <<JSON
{ "defaults": { "repeat": 1, "warmup": 0 },
  "benchmarks": [
    { "name": "quick", "command": ["$PROGS/work", "1000"] },
    { "name": "hang",  "command": ["$HANG"], "timeout": 60 } ] }
JSON
cd "$R"
expect_exit 0 "a complete run first" "$PG" run --backend perf --filter quick b/
stored=$(ls .perfgate/results/*/*.json)
cp "$stored" "$T/before.json"

"$PG" run --backend perf b/ > "$T/out" 2> "$T/err" &
pid=$!
for _ in $(seq 50); do pgrep -f "$T/[h]ang-int" >/dev/null && break; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
check "interrupted run exits 130 (got $rc)" [ $rc = 130 ]
contains "$T/err" "interrupted; nothing was stored"
check "the store is exactly as before" cmp -s "$stored" "$T/before.json"
check "no temporary files left in the store" [ -z "$(find .perfgate/results -name '*.tmp*' -o -name '.*tmp*')" ]
# perfgate has killed and reaped them before it returned; the wait is only a bound.
for _ in $(seq 100); do pgrep -f "$T/[h]ang-int" >/dev/null || break; sleep 0.1; done
check "the hung benchmark's process group is gone" sh -c "! pgrep -f '$T/[h]ang-int' >/dev/null"
finish
