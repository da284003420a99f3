#!/usr/bin/env bash
# Notes from a shared remote are untrusted (docs/notes.md, "Trust"). An
# attacker clone pushes, ordinarily (no force), every kind of bad note to a
# shared bare repository; a victim clone fetches and runs every command that
# reads notes. Nothing local is lost, no bad run is merged, no file outside
# the store is read, every command ends in a clean refusal or a correct
# result (ctest runs this on the ASan+UBSan build too), and the victim's next
# push restores what the attacker removed.
. "$(dirname "$0")/lib/common.sh"
NOTES=refs/notes/perfgate
STACKS=refs/notes/perfgate-stacks
O=$T/origin.git
git init -q --bare -b main "$O"
make_repo "$T/seed"
for i in 1 2 3 4 5 6 7 8; do
  echo "$i" >> "$T/seed/README" && git -C "$T/seed" commit -qam "c$i"
done
git -C "$T/seed" push -q "$O" main
clone_as "$O" "$T/V" "$T/A"
# A secret in the environment: it must reach no output.
export PG_TEST_SECRET=pg-secret-4d1f9e

# The victim measures HEAD (software events, one run of true) and shares it.
cd "$T/V"
expect_exit 0 "victim runs" "$PG" run --backend perf --repeat 2 --warmup 0 --no-pin --format json -- /bin/true
cp "$T/out" "$T/victim.json"
vid=$(json "$T/victim.json" 'd["id"]')
expect_exit 0 "victim pushes" "$PG" push

# The attacker writes notes with plain git, from the victim's run as a model.
cd "$T/A"
git fetch -q origin "$NOTES:$NOTES"
c() { git rev-parse "HEAD~$1"; }
# mutate N EXPR...: a note for HEAD~N holding the victim's run changed by the
# python statements (d: the run), each run under its own id evil-N-K.
mutate() {
  local n=$1; shift
  python3 - "$T/victim.json" "$(c "$n")" "$n" "$@" > "$T/note.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1])); commit = sys.argv[2]
runs = []
for k, stmt in enumerate(sys.argv[4:]):
    d = json.loads(json.dumps(run)); d["commit"] = commit; d["id"] = "evil-%s-%d" % (sys.argv[3], k)
    exec(stmt)
    runs.append(d)
print(json.dumps({"schema": "perfgate-notes/1", "commit": commit, "runs": runs}))
PY
  git notes --ref "$NOTES" add -f -F "$T/note.json" "$(c "$n")"
}
b0='d["benchmarks"][0]'
# HEAD~1: one good run beside one of each bad kind
mutate 1 "pass" \
  "$b0['metrics']['task-clock']['samples'] = [-1e9, -1e9]" \
  "$b0['stacks'] = '/proc/self/environ'" \
  "$b0['stacks'] = 'stacks/../../../../../proc/self/environ'" \
  "d['commit'] = '$(c 2)'" \
  "$b0['name'] = 'a/b'" \
  "$b0['name'] = 'line\nbreak'" \
  "d['dirty'] = True" \
  "d['machine']['id'] = '../../../etc'" \
  "$b0['name'] = '@everyone #1 !2'"
# HEAD~2: two valgrind runs of one machine, task-clock measured by valgrind in
# one and natively (perf) in the other, with different sample counts: valid,
# and one side holds the metric from two backends (history once overflowed)
mutate 2 "d['backend'] = 'valgrind'; $b0['metrics']['task-clock']['samples'] = [1e6, 2e6] * 20" \
  "d['backend'] = 'valgrind'; $b0['metrics']['task-clock']['backend'] = 'valgrind'; $b0['metrics']['task-clock']['samples'] = [5e6]"
# HEAD~3: a run that is not UTF-8 (written as bytes) and one with a key twice
good=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d))' "$T/victim.json")
printf '{"schema":"perfgate-notes/1","runs":[%s,%s]}' \
  "$(printf '%s' "$good" | sed "s/\"id\": *\"[^\"]*\"/\"id\": \"evil-utf8\"/; s/\"commit\": *\"[0-9a-f]*\"/\"commit\": \"$(c 3)\"/; s/\"hostname\": *\"/\"hostname\": \"\xff\xfe/")" \
  "$(printf '%s' "$good" | sed "s/\"id\": *\"[^\"]*\"/\"id\": \"evil-dupkey\", \"id\": \"x\"/; s/\"commit\": *\"[0-9a-f]*\"/\"commit\": \"$(c 3)\"/")" \
  > "$T/bytes.json"
git notes --ref "$NOTES" add -f -F "$T/bytes.json" "$(c 3)"
# HEAD~4: not JSON at all; HEAD~5: a note over the victim's size limit
echo 'SECRET=not json' | git notes --ref "$NOTES" add -f -F - "$(c 4)"
python3 -c 'print("{\"schema\":\"perfgate-notes/1\",\"runs\":[],\"pad\":\"" + "x" * 300000 + "\"}")' > "$T/big.json"
git notes --ref "$NOTES" add -f -F "$T/big.json" "$(c 5)"
# a note on a tree object
git notes --ref "$NOTES" add -f -F "$T/note.json" "$(git rev-parse 'HEAD^{tree}')"
# HEAD: the victim's note replaced by an empty one (and then by nothing)
echo '{"schema":"perfgate-notes/1","runs":[]}' | git notes --ref "$NOTES" add -f -F - HEAD
git notes --ref "$NOTES" remove HEAD
# a stacks note whose names are paths
python3 - "$(c 1)" > "$T/stacks.json" <<'PY'
import json, sys
print(json.dumps({"schema": "perfgate-stacks/1", "commit": sys.argv[1], "runs": [
  {"id": "evil-0", "benchmarks": [{"name": "../../../x", "folded": "a;b 1\n"}]},
  {"id": "evil\tid", "benchmarks": [{"name": "true", "folded": "a;b 1\n"}]}]}))
PY
git notes --ref "$STACKS" add -f -F "$T/stacks.json" "$(c 1)"
expect_exit 0 "the attacker pushes, not forced" git push -q origin "$NOTES" "$STACKS"

# The victim fetches: every bad run is named and dropped; its own run stays.
cd "$T/V"
git update-ref refs/perfgate/fetch-2147483646 "$(git rev-parse HEAD)"   # left by a killed fetch
git config perfgate.fetchMax 64k
expect_exit 0 "victim fetches" "$PG" fetch
for why in "samples[0]: expected a finite number >= 0" "stacks: a path that is absolute or leaves the store" \
    "not the commit this note annotates" "a benchmark name has no '/' or newline" "dirty: a run of a dirty" \
    "machine.id: expected 12 hex digits" "a string that is not UTF-8" "a key given twice" \
    "$(c 4 | cut -c1-12) from origin:1:1: invalid JSON" "over the 64.0 KiB limit for notes (git config perfgate.fetchMax)" \
    "annotates a tree, not a commit" "name: not a benchmark name" "id: expected printable ASCII"; do
  contains "$T/err" "$why"
done
check "each dropped run is one line naming origin and its commit" \
  [ "$(grep -c "dropped: the fetched note of [0-9a-f]\{12\} from origin" "$T/err")" -ge 10 ]
lacks "$T/err" "$PG_TEST_SECRET"
check "the victim's own note of HEAD is still there" \
  sh -c "git notes --ref $NOTES show HEAD | grep -q '$vid'"
check "the good runs were merged" sh -c "git notes --ref $NOTES show HEAD~1 | grep -q evil-1-0"
check "no bad run was merged" sh -c "! git notes --ref $NOTES show HEAD~1 | grep -q 'evil-1-[1-8]'"
check "the tree's note was not merged" sh -c "! git notes --ref $NOTES show 'HEAD^{tree}' 2>/dev/null"
check "the stale fetch ref is swept" sh -c "! git rev-parse -q --verify refs/perfgate/fetch-2147483646"
expect_exit 0 "fetch again: nothing new" "$PG" fetch
lacks "$T/err" "error"

# Every command that reads notes: a result or a clean refusal, never a file
# outside the store, never the secret.
cmds=("show HEAD" "show HEAD~1" "show HEAD~2" "show HEAD~3" "compare HEAD~2 HEAD~1 --gate task-clock --format markdown"
      "compare HEAD~1 HEAD --gate task-clock --format json" "compare HEAD~2 HEAD~1 --gate task-clock --format junit"
      "history -o $T/h.html HEAD~6..HEAD" "bisect -g task-clock HEAD~2 HEAD~1")
for cmd in "${cmds[@]}"; do
  # shellcheck disable=SC2086
  $PG $cmd > "$T/out" 2> "$T/err"; rc=$?
  check "$cmd: exit $rc is 0, 1 or 2" [ "$rc" -le 2 ]
  check "$cmd: at most one error line" [ "$(grep -c '^perfgate: ' "$T/err" | tr -d ' ')" -lt 20 ]
  lacks "$T/out" "$PG_TEST_SECRET" "$cmd: the secret is not in its output"
  lacks "$T/err" "$PG_TEST_SECRET" "$cmd: the secret is not in its errors"
done
check "history wrote its page" [ -s "$T/h.html" ]
"$PG" compare HEAD HEAD~1 --gate task-clock --format markdown --allow-missing > "$T/md" 2>/dev/null
contains "$T/md" "everyone" "the markdown report names the benchmark"
lacks "$T/md" "@everyone" "no mention reaches the markdown report"
lacks "$T/h.html" "$PG_TEST_SECRET"

# The victim's push restores its run on origin (a fast-forward of theirs).
expect_exit 0 "victim pushes after the merge" "$PG" push
check "origin holds the victim's run of HEAD again" \
  sh -c "git -C '$O' notes --ref $NOTES show \$(git rev-parse HEAD) | grep -q '$vid'"

# A clone with no notes yet adopts none of the bad ones.
clone_as "$O" "$T/F"
cd "$T/F"
expect_exit 0 "a fresh clone fetches" "$PG" fetch
check "its note of HEAD~1 has only the good runs" \
  sh -c "git notes --ref $NOTES show HEAD~1 | grep -c '\"perfgate-run/1\"' | grep -qx 2"
check "and none of the bad ones" sh -c "! git notes --ref $NOTES show HEAD~1 | grep -q 'evil-1-[1-8]'"
check "its note of HEAD is the victim's" sh -c "git notes --ref $NOTES show HEAD | grep -q '$vid'"

# A notes ref that is not a commit: refused by name, the other ref still merged.
O2=$T/origin2.git
git clone -q --bare "$O" "$O2"
blob=$(echo junk | git -C "$O2" hash-object -w --stdin)
git -C "$O2" update-ref "$NOTES" "$blob"
cd "$T/V"
expect_exit 2 "fetch of a notes ref that is a blob" "$PG" fetch "$O2"
contains "$T/err" "$NOTES is a blob, not a notes commit: not merged"
check "one error line" [ "$(grep -c '^perfgate' "$T/err")" -le 2 ]
check "the victim's note is untouched" sh -c "git notes --ref $NOTES show HEAD | grep -q '$vid'"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
