#!/usr/bin/env bash
# What each child run costs perfgate (issue 41, fixed costs), seen in its
# system calls (strace, perfgate's own process only):
#   - the kernel counts page-faults, context-switches and cpu-migrations
#     behind a static key per event, switched on by the first such event and
#     off by the last, and each switch rewrites kernel text on every CPU; so
#     perfgate holds one disabled event of each on itself from the first run
#     to the last, and the runs' own events, opened and closed around each
#     child, switch nothing (counters/evlist.c, keep_keys);
#   - no child is a copy of perfgate's memory: a warm-up, which nothing
#     attaches to, shares it until its exec, as the measured runs' launcher
#     does (harness/measure/spawn.c); a fork copied perfgate's page tables and
#     cost it a fault on the first write to each of its pages after;
#   - a run that prints nothing allocates no log buffers: 128 KiB had and
#     freed around each run grew and shrank perfgate's heap (brk) 3 times;
#   - a hardware event the kernel has no PMU for (a VM) is asked for once,
#     and said unavailable at each run as before, not asked again each run;
#   - an empty cgroup is removed without a second cgroup.kill;
#   - outside every repository (here: $T), no thread is started to look for
#     one (harness/cli/cmd_run.c, start_facts): the file system said so;
#   - the launcher (launch/perfgate-launch.c) does not copy itself either:
#     the benchmark's process shares its few pages until its exec (x86-64).
. "$(dirname "$0")/lib/common.sh"
require strace
cd "$T"
# (LeakSanitizer cannot work under ptrace: off for this run of the ASan build.)
expect_exit 0 "a run of 1 warm-up and 5 measured children under strace" \
  env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -qq -o "$T/st" -e trace=perf_event_open,close,clone,clone3,fork,vfork,brk,openat,mkdir \
  "$PG" run --backend perf --no-store --no-pin --warmup 1 --repeat 5 -- /bin/true
python3 - "$T/st" > "$T/facts" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
held, child_opens, closed_at, last_child = {}, 0, {}, -1
for i, l in enumerate(lines):
    m = re.match(r'perf_event_open\(\{.*config=PERF_COUNT_SW_PAGE_FAULTS.*\}, (-?\d+), -1, -?\d+, .*\) = (-?\d+)', l)
    if m and int(m.group(1)) == 0 and int(m.group(2)) >= 0:
        held[int(m.group(2))] = i
    elif m and int(m.group(1)) > 0 and int(m.group(2)) >= 0:
        child_opens += 1
        last_child = i
    m = re.match(r'close\((\d+)\)', l)
    if m and int(m.group(1)) in held and int(m.group(1)) not in closed_at:
        closed_at[int(m.group(1))] = i
kept = [fd for fd, at in held.items() if closed_at.get(fd, len(lines)) > last_child]
copies = sum(1 for l in lines if re.match(r'(clone3?|fork|vfork)\(', l) and 'CLONE_VM' not in l)
brks = sum(1 for l in lines if re.match(r'brk\(0x', l))
absent = {}     # hardware events refused for want of a PMU, by event, on the children
for l in lines:
    m = re.match(r'perf_event_open\(\{type=PERF_TYPE_HARDWARE, .*config=(\w+).*\}, (\d+), .*= -1 (ENOENT|EOPNOTSUPP)', l)
    if m and int(m.group(2)) > 0:
        absent[m.group(1)] = absent.get(m.group(1), 0) + 1
cgroups = sum(1 for l in lines if re.match(r'mkdir\(".*/perfgate-\d+-\d+", .*\) = 0', l))
kills = sum(1 for l in lines if re.match(r'openat\(AT_FDCWD, ".*/perfgate-\d+-\d+/cgroup\.kill"', l))
threads = sum(1 for l in lines if re.match(r'clone3?\(.*CLONE_THREAD', l))
print("held %d kept %d children %d copies %d brks %d absent %d asked %d cgroups %d kills %d threads %d" %
      (len(held), len(kept), child_opens, copies, brks, len(absent), max(absent.values(), default=0), cgroups, kills,
       threads))
PY
read -r _ held _ kept _ children _ copies _ brks _ absent _ asked _ cgroups _ kills _ threads < "$T/facts"
contains "$T/out" ", no commit" "the run is keyed to no commit"
same "no thread started to look for a repository outside every one" 0 "$threads"
check "perfgate's heap grew or shrank $brks times over 6 runs: fewer than once a run" [ "$brks" -lt 6 ]
if [ "$absent" -gt 0 ]; then
  same "each hardware event without a PMU asked of the kernel on one child only" 1 "$asked"
else
  echo "hardware events all counted here: their asking not judged"
fi
if [ "$cgroups" -gt 0 ]; then
  same "one cgroup.kill per run of a program that left nothing ($cgroups cgroups)" "$cgroups" "$kills"
else
  echo "no cgroup made here: their removal not judged"
fi
same "page-faults opened on each measured child" 5 "$children"
same "page-faults opened once on perfgate itself" 1 "$held"
same "and held until after the last child's were opened" 1 "$kept"
if nm "$PG" 2>/dev/null | grep -q __asan_init || [ "$(uname -m)" != x86_64 ]; then
  echo "spawns not judged: children share perfgate's memory only on x86-64 and not under ASan (the plain build's test judges them)"
else
  same "no child was a copy of perfgate's memory (a fork)" 0 "$copies"
fi
L=$(dirname "$PG")/perfgate-launch
if [ "$(uname -m)" = x86_64 ] && [ -x "$L" ]; then
  # GO_FD 3 says go at once, ERR_FD 4 gets its messages (tests/e2e/launcher.sh).
  printf g > "$T/go"
  expect_exit 0 "the launcher runs /bin/true under strace -f" \
    strace -f -qq -o "$T/lst" -e trace=clone,clone3,fork,vfork "$L" 3 4 -- /bin/true 3<"$T/go" 4>"$T/msgs"
  same "the launcher's child shares its memory until its exec" 1 "$(grep -c 'flags=CLONE_VM|CLONE_VFORK' "$T/lst")"
  msgs=$(od -An -td4 -w8 -N16 "$T/msgs" | awk '{print $1}' | tr '\n' ' ')
  same "it said ready (0), then done (16)" "0 16 " "$msgs"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
