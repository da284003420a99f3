#!/usr/bin/env bash
# A crashing, a hanging and a non-zero-exit benchmark are each recorded as
# failed with the reason and the tail of stderr, while the others succeed.
. "$(dirname "$0")/lib/common.sh"
# A private copy: other tests running at the same time start their own hang.
cp "$PROGS/hang" "$T/hang-fail"
HANG=$T/hang-fail

R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
cat > "$R/b/perfgate.json" <<JSON
{ "defaults": { "repeat": 2, "warmup": 0 },
  "benchmarks": [
    { "name": "good-before", "command": ["$PROGS/work", "1000"] },
    { "name": "crash",  "command": ["$PROGS/crash"] },
    { "name": "hang",   "command": ["$HANG"], "timeout": 1 },
    { "name": "fail3",  "command": ["$PROGS/fail3"] },
    { "name": "good-after", "command": ["$PROGS/work", "1000"] } ] }
JSON
cd "$R"
for backend in perf valgrind; do
  if [ $backend = valgrind ] && ! command -v valgrind >/dev/null; then continue; fi
  rm -rf .perfgate
  expect_exit 1 "$backend: run with failing benchmarks exits 1" "$PG" run --backend $backend b/
  contains "$T/out" "crash  FAILED: killed by signal 11 (SIGSEGV)"
  contains "$T/out" "about to crash"
  contains "$T/out" "hang  FAILED: timeout"
  contains "$T/out" "fail3  FAILED: exit status 3"
  contains "$T/out" "input file missing"
  contains "$T/out" "good-after  (2 runs)"
  contains "$T/err" "3 of 5 benchmarks failed"
  f=$(ls .perfgate/results/*/*.json | head -1)
  check "$backend: statuses stored" [ "$(json "$f" "','.join(b['status'] for b in d['runs'][0]['benchmarks'])")" = "ok,failed,failed,failed,ok" ]
  check "$backend: signal stored" [ "$(json "$f" "d['runs'][0]['benchmarks'][1]['failure']['signal']")" = 11 ]
  check "$backend: exit code stored" [ "$(json "$f" "d['runs'][0]['benchmarks'][3]['failure']['exit_code']")" = 3 ]
  check "$backend: stderr tail stored" [ "$(json "$f" "d['runs'][0]['benchmarks'][3]['failure']['stderr_tail'].strip()")" = "fail3: input file missing" ]
  check "$backend: the hung process group is gone" sh -c "! pgrep -f '$T/[h]ang-fail' >/dev/null"
  log=$(json "$f" "d['runs'][0]['benchmarks'][3]['stderr_log']")
  check "$backend: the failure's stderr log, the run's own ($log)" grep -qx "fail3: input file missing" "$log"
  check "$backend: ... under logs/<commit>/<machine>/<run>/" python3 -c "
import sys, os; r = os.path.relpath(sys.argv[1], '.perfgate').split('/')
sys.exit(not (r[0] == 'logs' and len(r) == 5 and r[4] == 'fail3.stderr'))" "$log"
done

# A benchmark whose cwd does not exist fails with the directory named; with
# the valgrind backend perfgate once died of SIGPIPE there (exit 141).
mkdir -p "$T/nocwd"
printf '{ "benchmarks": [ { "name": "nocwd", "command": ["/bin/true"], "cwd": "does-not-exist" },\n  { "name": "fine", "command": ["/bin/true"] } ] }\n' \
  > "$T/nocwd/perfgate.json"
for backend in perf valgrind; do
  expect_exit 1 "$backend: a cwd that does not exist" "$PG" run --backend $backend --no-store --no-pin --repeat 1 \
    --warmup 0 "$T/nocwd"
  contains "$T/out" "nocwd  FAILED: could not start"
  contains "$T/out" "/does-not-exist: No such file or directory"
  contains "$T/out" "perfgate: cannot change directory to "
  contains "$T/out" "fine  (1 run)"
done
finish
