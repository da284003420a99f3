#!/usr/bin/env bash
# What containing a run costs once per perfgate (harness/measure/contain.c,
# issue 41: fixed costs): the first run's own cgroup is the trial of whether
# cgroups can be made here, so a run makes and removes one cgroup per child
# and none besides (a trial cgroup made and removed before the first run was
# a mkdir and an rmdir of a cgroup in every perfgate). perfgate doctor, which
# makes no run, still tries one.
. "$(dirname "$0")/lib/common.sh"
"$PG" doctor > "$T/doctor" 2>&1
if ! grep -q "cgroup v2 per run  *ok" "$T/doctor"; then
  echo "no cgroup can be made here: skipped"; exit 77
fi
# Each run appends the cgroup it runs in: /perfgate-<pid>-<n>.
cat > "$T/cg.json" <<JSON
{ "defaults": { "repeat": 3, "warmup": 1 },
  "benchmarks": [ { "name": "cg", "command": ["sh", "-c", "cat /proc/self/cgroup >> $T/cgroups"] } ] }
JSON
expect_exit 0 "a run of 4 children" "$PG" run --backend perf --no-store --no-pin "$T/cg.json"
sed -n 's/^0::.*\/perfgate-[0-9]*-\([0-9]*\)$/\1/p' "$T/cgroups" > "$T/seq"
same "the children ran in cgroups 0, 1, 2 and 3 of their perfgate" "0 1 2 3" "$(tr '\n' ' ' < "$T/seq" | sed 's/ $//')"
expect_exit 0 "doctor tries a cgroup" "$PG" doctor
contains "$T/out" "cgroup v2 per run"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
