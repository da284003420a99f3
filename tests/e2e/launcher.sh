#!/usr/bin/env bash
# The launcher every measured run of the perf backend starts from
# (launch/perfgate-launch.c, harness/measure/launch.h): built without the C
# library, it costs each run a few hundred instructions of its own, not the
# static C library's start-up (about 40,000 instructions, CPUID traps in a VM among
# them); and it finds the program as execvp(3) did: on PATH, past a file
# found but not executable, a script without #! run by /bin/sh, and a
# missing or forbidden program said as such. It is perfgate's watchdog too.
. "$(dirname "$0")/lib/common.sh"
require valgrind
L=$(dirname "$PG")/perfgate-launch
check "the launcher is built beside perfgate" test -x "$L"

# Its own count, exact under cachegrind: GO_FD 3 says go at once, ERR_FD 4
# gets its messages (ready with the pid, then done with the status).
printf g > "$T/go"
expect_exit 0 "the launcher runs /bin/true under cachegrind" valgrind --tool=cachegrind --cache-sim=no \
  --cachegrind-out-file="$T/cg.out" "$L" 3 4 -- /bin/true 3<"$T/go" 4>"$T/msgs"
ir=$(sed -n 's/^summary: //p' "$T/cg.out")
check "the launcher's own instructions ($ir) are fewer than 1000" [ "${ir:-999999}" -lt 1000 ]
msgs=$(od -An -td4 -w8 -N16 "$T/msgs" | awk '{print $1}' | tr '\n' ' ')
same "it said ready (0), then done (16)" "0 16 " "$msgs"

RUN=(run --backend perf --no-store --warmup 0 --repeat 1 --no-pin)
mkdir -p "$T/a" "$T/b" "$T/w"
printf '#!/bin/sh\nexit 0\n' > "$T/a/pgprog"            # not executable: skipped
printf '#!/bin/sh\necho from-b\n' > "$T/b/pgprog" && chmod +x "$T/b/pgprog"
printf 'echo no-hashbang\n' > "$T/w/script" && chmod +x "$T/w/script"
expect_exit 0 "a name found on PATH, past a file there that is not executable" \
  env PATH="$T/a:$T/b:$PATH" "$PG" "${RUN[@]}" -- pgprog
expect_exit 0 "a script without #! is run by /bin/sh" "$PG" "${RUN[@]}" -- "$T/w/script"
expect_exit 1 "a program found only where it cannot be executed" env PATH="$T/a:$PATH" "$PG" "${RUN[@]}" -- pgprog
contains "$T/out" "cannot execute pgprog: Permission denied"
expect_exit 1 "a program on no PATH entry" "$PG" "${RUN[@]}" -- pg-no-such-program
contains "$T/out" "cannot execute pg-no-such-program: No such file or directory"

# The watchdog (harness/measure/watchdog.h) is the launcher exec'd, not a
# fork of perfgate: a few pages of its own, no copy of perfgate's memory
# (a fork held 1.5 MB resident, and cost perfgate a copy-on-write fault on
# each page it wrote after). And it sleeps through the runs: what it needs
# is written where it reads it when perfgate ends (a message per change
# woke it twice a run).
cp "$(command -v sleep)" "$T/hold"
cat > "$T/wd.json" <<JSON
{ "defaults": { "repeat": 5, "warmup": 0 },
  "benchmarks": [ { "name": "quick", "command": ["/bin/true"] },
                  { "name": "hold", "command": ["$T/hold", "2"] } ] }
JSON
"$PG" run --backend perf --no-store --no-pin "$T/wd.json" > /dev/null 2>&1 &
pg=$!
for _ in $(seq 200); do
  pgrep -f "^$T/hold" > /dev/null && break
  sleep 0.05
done
wd=$(pgrep -P $pg -x perfgate-watch)
check "the run has a watchdog" test -n "$wd"
exe=$(readlink "/proc/$wd/exe")
same "the watchdog is the launcher" "$(readlink -f "$L")" "$exe"
rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$wd/status")
check "the watchdog's resident set (${rss:-?} kB) is under 256 kB" [ "${rss:-99999}" -lt 256 ]
woke=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "/proc/$wd/status")
check "the watchdog slept through 6 runs (woken ${woke:-?} times)" [ "${woke:-99}" -le 2 ]
wait $pg

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
