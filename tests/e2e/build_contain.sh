#!/usr/bin/env bash
# The manifest's build command is contained and timed like a benchmark
# (harness/measure/build.h): a daemon it starts does not outlive it; a build that
# hangs is killed at --build-timeout (or the manifest's "build_timeout") with
# one line and exit 2; a build's output goes to its log, and only a failing
# build's tail comes to stderr.
. "$(dirname "$0")/lib/common.sh"
cp "$PROGS/daemon" "$T/daemon-b"     # a private copy: pgrep finds this test's
PIDS=$T/build-daemon.pids
R=$T/repo
make_repo "$R"
mkdir -p "$R/b"
manifest() {   # BUILD [EXTRA]: the build command and more top-level keys
  cat > "$R/b/perfgate.json" <<JSON
{ "build": "$1"${2:-},
  "defaults": { "repeat": 1, "warmup": 0 },
  "benchmarks": [ { "name": "quick", "command": ["$PROGS/work", "1000"] } ] }
JSON
}
running() { [ -e /proc/$1 ] && ! grep -q '^State:.*Z' /proc/$1/status 2>/dev/null; }
gone() {   # waits (bounded, generously, for a loaded machine) until PID is gone
  for _ in $(seq 300); do running "$1" || return 0; sleep 0.1; done
  return 1
}
RUN=("$PG" run --backend perf --no-notes --no-pin)
cd "$R"

# A build that leaves a daemon (setsid, double fork): killed when the build ends.
manifest "echo building the benchmarks; $T/daemon-b $PIDS exit; echo built"
git add b && git commit -q -m bench
expect_exit 0 "a build that starts a daemon" "${RUN[@]}" b/
check "the daemon wrote its pid" test -s "$PIDS"
daemon=$(head -1 "$PIDS")
check "the daemon the build started is gone" gone "$daemon"
contains "$T/err" "perfgate: building: echo building the benchmarks;"
contains "$T/err" "(log: $R/.perfgate/logs/$(git rev-parse HEAD)/build.log)"
check "the build's own output is in its log, not on stderr" sh -c "! grep -qx built '$T/err'"
check "the log holds the build's output" grep -qx built ".perfgate/logs/$(git rev-parse HEAD)/build.log"

# A build that hangs: killed at the timeout, everything it started with it.
manifest "$T/daemon-b $PIDS hang"
: > "$PIDS"
expect_exit 2 "a build that hangs, --build-timeout 2" "${RUN[@]}" --build-timeout 2 --no-store b/
contains "$T/err" "perfgate: the manifest's build command timed out after 2 s (--build-timeout, or \"build_timeout\" in the manifest); everything it started was killed"
check "one error line" [ "$(grep -c "^perfgate: the manifest's build" "$T/err")" = 1 ]
check "nothing was measured" [ -z "$(grep quick "$T/out")" ]
check "the hung build's daemon is gone" gone "$(head -1 "$PIDS")"
check "the hung build is gone" [ -z "$(pgrep -f "daemon-b $PIDS hang")" ]
# ... and from the manifest
manifest "sleep 600" ', "build_timeout": 1'
expect_exit 2 "the manifest's build_timeout" "${RUN[@]}" --no-store b/
contains "$T/err" "timed out after 1 s"
manifest "sleep 600" ', "build_timeout": -3'
expect_exit 2 "a build_timeout that is not a time" "${RUN[@]}" --no-store b/
contains "$T/err" "b/perfgate.json: build_timeout: expected a number of seconds > 0"

# A failing build: its last lines and where the rest is.
manifest "echo first line; echo 'error: bench.c:3: expected ;' >&2; exit 3"
expect_exit 2 "a failing build" "${RUN[@]}" --no-store b/
contains "$T/err" "error: bench.c:3: expected ;"
contains "$T/err" "the manifest's build command failed (exit status 3)"
contains "$T/err" "(log: $T/perfgate-build-"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
