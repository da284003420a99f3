#!/usr/bin/env bash
# Results in git notes (refs/notes/perfgate): written by `run`, shared by
# `push` and `fetch` through a bare repository, never forced: two clones
# pushing at the same time lose no run. `show` and `compare` read them in a
# clone that has no local store.
. "$(dirname "$0")/lib/common.sh"
NOTES=refs/notes/perfgate
O=$T/origin.git
git init -q --bare -b main "$O"
make_repo "$T/seed"
git -C "$T/seed" push -q "$O" main
clone_as "$O" "$T/A" "$T/B"
# The cheapest run there is: software events only, one run of true(1).
measure() { "$PG" run --backend perf --repeat 1 --warmup 0 --no-pin "$@" -- /bin/true; }
# Run ids (not machine ids: those are 12 hex digits) in a document on stdin,
# one a line; without python, which takes seconds to start on a loaded machine.
ids() { grep -oE '"id":[[:space:]]*"[0-9]{4}-[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/'; }
note_ids() { git -C "$1" notes --ref "$NOTES" show HEAD 2>/dev/null | ids; }
# measure, keeping the run's id in $T/written (the runs that must reach the notes)
counted() { measure --format json "$@" > "$T/run-$BASHPID.json" && ids < "$T/run-$BASHPID.json" >> "$T/written"; }

cd "$T/A"
expect_exit 0 "run writes a note" counted
contains "$T/err" "notes: run added to $NOTES on"
contains "$T/err" "logs and stacks stay in the local store"
check "the note holds the run" [ "$(note_ids .)" = "$(cat "$T/written")" ]
check "one run in the note" [ "$(note_ids . | wc -l)" = 1 ]
echo changed >> README
expect_exit 0 "a dirty run" measure
contains "$T/err" "not added to $NOTES: the work tree was dirty"
git checkout -q README
expect_exit 0 "--no-notes" measure --no-notes
check "neither the dirty run nor the --no-notes one is in the note" [ "$(note_ids . | wc -l)" = 1 ]
expect_exit 0 "run again" counted
expect_exit 2 "push to a remote that does not exist" "$PG" push nosuchremote
contains "$T/err" "no remote named 'nosuchremote'"
expect_exit 0 "fetch before anything was pushed" "$PG" fetch
contains "$T/out" "origin has no perfgate notes yet"
expect_exit 0 "push (first)" "$PG" push
contains "$T/out" "$NOTES -> origin (push 1)"
first_tip=$(git -C "$O" rev-parse $NOTES)
expect_exit 0 "push again: nothing new" "$PG" push
contains "$T/out" "origin already has every note"

# B measured too, without A's notes: its push is rejected, it fetches and
# merges A's by run id, and pushes again.
cd "$T/B"
expect_exit 2 "push with no notes at all" "$PG" push
contains "$T/err" "nothing to push: this repository has no perfgate notes"
expect_exit 0 "B runs" counted
expect_exit 0 "B pushes after A" "$PG" push
contains "$T/err" "push rejected: origin has notes this repository lacks"
contains "$T/out" "(push 2)"
check "origin's note holds A's and B's runs" [ "$(note_ids "$O" | sort)" = "$(sort "$T/written")" ]
check "A's first push is an ancestor of origin's notes: nothing forced" \
  git -C "$O" merge-base --is-ancestor "$first_tip" $NOTES

# Both clones at once, three times each: run, then push.
for c in A B; do
  (cd "$T/$c" && for i in 1 2 3; do
     counted 2> /dev/null || exit 1
     "$PG" push --tries 50 > "$T/push-$c-$i.out" 2> "$T/push-$c-$i.err" || exit 1
   done) &
done
failed=0
for j in $(jobs -p); do wait "$j" || failed=$((failed + 1)); done
check "both clones ran and pushed three times" [ $failed = 0 ]
[ $failed = 0 ] || cat "$T"/push-*.err >&2
for c in A B; do (cd "$T/$c" && "$PG" fetch > /dev/null); done
written=$(sort "$T/written")
found=$(note_ids "$O" | sort)
nw=$(echo "$written" | wc -l)
nf=$(echo "$found" | wc -l)
echo "concurrent push: runs written $nw, runs found in origin's note after the merges $nf;" \
     "pushes rejected and retried: $(cat "$T"/push-*.err | grep -c 'push rejected')"
check "every run written is in origin's note ($nw written, $nf found)" [ "$written" = "$found" ]
check "9 runs in all" [ "$nf" = 9 ]
check "A's note after fetch equals origin's" [ "$(note_ids "$T/A" | sort)" = "$found" ]
check "B's note after fetch equals origin's" [ "$(note_ids "$T/B" | sort)" = "$found" ]
check "A's first push is still an ancestor: nothing forced" \
  git -C "$O" merge-base --is-ancestor "$first_tip" $NOTES

# A clone with no local store reads the notes alone.
git clone -q "$O" "$T/C"
cd "$T/C"
expect_exit 2 "show before fetching" "$PG" show
contains "$T/err" "or 'perfgate fetch' another clone's"
expect_exit 0 "fetch into a new clone" "$PG" fetch "$O"
contains "$T/out" "notes merged into $NOTES"
expect_exit 0 "show reads the notes" "$PG" show --format json
check "show lists every run" [ "$(ids < "$T/out" | sort)" = "$found" ]
expect_exit 0 "compare reads the notes" "$PG" compare HEAD HEAD --gate task-clock
contains "$T/out" "verdict:"
check "nothing was written to a local store" [ ! -e .perfgate/results ]
# A fetched note of a commit this clone has no note of is kept byte for byte
# when the gate passes it whole (not parsed, printed and written again), so a
# fresh clone's notes ref fast-forwards to the remote's; a note the gate does
# not pass whole is still merged through it, run by run.
P=$T/plain.git
git init -q --bare -b main "$P"
make_repo "$T/W"
cd "$T/W"
for i in 1 2 3 4 5; do echo "$i" >> README && git commit -qam "c$i"; done
git push -q "$P" main
expect_exit 0 "W runs" measure --format json
cp "$T/out" "$T/w.json"
# note N STMT...: a compact note (not perfgate's layout) for HEAD~N, one run
# per python statement (d: W's run as 2000-plain-N-K), `top` keys beside "runs"
# (@FF@ becomes the byte 0xff), then `tail` after the JSON.
note() {
  local n=$1; shift
  python3 - "$T/w.json" "$(git rev-parse "HEAD~$n")" "$n" "$@" > "$T/n.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1])); commit = sys.argv[2]
runs, tail, top = [], "", {}
for k, stmt in enumerate(sys.argv[4:]):
    d = json.loads(json.dumps(run)); d["commit"] = commit; d["id"] = "2000-plain-%s-%d" % (sys.argv[3], k)
    exec(stmt)
    runs.append(d)
doc = dict({"schema": "perfgate-notes/1", "commit": commit, "runs": runs}, **top)
text = json.dumps(doc, separators=(",", ":")).encode() + tail.encode()
sys.stdout.buffer.write(text.replace(b"@FF@", b"\xff"))          # a byte that is not UTF-8
PY
  git notes --ref "$NOTES" add -f -F "$T/n.json" "HEAD~$n"
}
blob_of() { git -C "$1" notes --ref "$NOTES" list "$2" 2>/dev/null; }
note 1 "pass"
git push -q "$P" "$NOTES:$NOTES"
git clone -q "$P" "$T/X"
cd "$T/X"
expect_exit 0 "fetch valid notes into a fresh clone" "$PG" fetch
contains "$T/out" "notes merged into $NOTES"
same "a note the gate passes whole is kept as it came" "$(blob_of "$T/W" HEAD~1)" "$(blob_of . HEAD~1)"
same "the notes ref fast-forwards to the remote's" "$(git -C "$P" rev-parse $NOTES)" "$(git rev-parse $NOTES)"
expect_exit 0 "show reads the note kept as it came" "$PG" show --format json HEAD~1
check "show lists its run" [ "$(ids < "$T/out")" = 2000-plain-1-0 ]
expect_exit 0 "fetch again: nothing new" "$PG" fetch
contains "$T/out" "origin has no notes this repository lacks"

# Now notes the gate does not pass whole, and one under git's fan-out.
cd "$T/W"
b0='d["benchmarks"][0]'
note 2 "pass" "$b0['metrics']['task-clock']['samples'] = [-1e9]"
note 3 "top['pad'] = '@FF@'"
note 4 "tail = ' trailing bytes'"
note 5 "pass"
# HEAD~5's note moved to a fan-out directory, as git writes large notes trees
c5=$(git rev-parse HEAD~5)
nb=$(blob_of . HEAD~5)
git notes --ref "$NOTES" remove HEAD~5 2>/dev/null
sub=$(printf '100644 blob %s\t%s\n' "$nb" "${c5:2}" | git mktree)
tree=$(git ls-tree "$NOTES" | { cat; printf '040000 tree %s\t%s\n' "$sub" "${c5:0:2}"; } | git mktree)
git update-ref "$NOTES" "$(git commit-tree "$tree" -p "$NOTES" -m fan-out)"
git push -q "$P" "$NOTES:$NOTES"
for c in X Y; do
  [ $c = Y ] && git clone -q "$P" "$T/Y"
  cd "$T/$c"
  expect_exit 0 "$c: fetch notes the gate does not pass whole" "$PG" fetch
  contains "$T/err" "run 2000-plain-2-1 dropped: the fetched note of $(git rev-parse --short=12 HEAD~2) from origin: runs[1]"
  same "$c: the note that passed whole is still the one fetched" "$(blob_of "$T/W" HEAD~1)" "$(blob_of . HEAD~1)"
  check "$c: the remote's notes were merged, not taken" [ "$(git rev-parse $NOTES)" != "$(git -C "$P" rev-parse $NOTES)" ]
  git notes --ref "$NOTES" show HEAD~2 > "$T/n2.json"
  check "$c: HEAD~2's good run is kept, its bad one is not" [ "$(ids < "$T/n2.json")" = 2000-plain-2-0 ]
  git notes --ref "$NOTES" show HEAD~3 > "$T/n3.json"
  check "$c: HEAD~3's note is written anew: valid UTF-8, its run, no unknown top-level key" \
    python3 -c 'import json,sys; d=json.loads(open(sys.argv[1],"rb").read().decode()); assert "pad" not in d and [r["id"] for r in d["runs"]] == ["2000-plain-3-0"]' "$T/n3.json"
  git notes --ref "$NOTES" show HEAD~4 > "$T/n4.json"
  check "$c: HEAD~4's note is written anew, without the bytes after its JSON" \
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [r["id"] for r in d["runs"]] == ["2000-plain-4-0"]' "$T/n4.json"
  expect_exit 0 "$c: show reads the note under a fan-out directory" "$PG" show --format json HEAD~5
  check "$c: its run" [ "$(ids < "$T/out")" = 2000-plain-5-0 ]
done

# The same notes under another notes commit: nothing to add, a merge commit
# with that tree and both parents, so that a push after it is a fast-forward.
cd "$T/Y"
tree=$(git rev-parse "$NOTES^{tree}")
git update-ref "$NOTES" "$(git commit-tree "$tree" -m same-tree)"
expect_exit 0 "fetch the same notes under another commit" "$PG" fetch
contains "$T/out" "notes merged into $NOTES"
same "the merge keeps the tree" "$tree" "$(git rev-parse "$NOTES^{tree}")"
check "the merge has both parents" [ "$(git rev-list --parents -n 1 $NOTES | wc -w)" = 3 ]

# A fetch from a local remote copies the notes on two cores (from 16 of
# them) and judges each as it copies it: as the note of the commit whose
# path it is at. The very blob that is HEAD~1's whole note is, as HEAD~2's,
# the note of another commit: kept as it came for HEAD~1, not merged for HEAD~2.
cd "$T/W"
for i in $(seq 6 22); do echo "$i" >> README && git commit -qam "c$i"; done
# one python for the 18 notes (it takes seconds to start on a loaded machine)
python3 - "$T/w.json" "$T" $(git rev-parse HEAD~1 HEAD~3 HEAD~4 HEAD~5 HEAD~6 HEAD~7 HEAD~8 HEAD~9 HEAD~10 HEAD~11 \
  HEAD~12 HEAD~13 HEAD~14 HEAD~15 HEAD~16 HEAD~17 HEAD~18) <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
for k, commit in enumerate(sys.argv[3:]):
    d = json.loads(json.dumps(run)); d["commit"] = commit; d["id"] = "2000-many-%d" % k
    with open("%s/many-%s.json" % (sys.argv[2], commit), "w") as f:
        json.dump({"schema": "perfgate-notes/1", "commit": commit, "runs": [d]}, f)
PY
for f in "$T"/many-*.json; do c=${f##*/many-}; git notes --ref "$NOTES" add -f -F "$f" "${c%.json}" 2> /dev/null; done
git notes --ref "$NOTES" add -f -C "$(blob_of . HEAD~1)" HEAD~2
git push -q "$P" main "$NOTES:$NOTES"
git clone -q --no-local "$P" "$T/Z"      # its objects not copied with it
cd "$T/Z"
expect_exit 0 "fetch 17 notes and one twice into a fresh clone" "$PG" fetch
contains "$T/err" "the fetched note of $(git rev-parse --short=12 HEAD~2) from origin not merged: the fetched note of $(git rev-parse --short=12 HEAD~2) from origin: commit: not the commit this note annotates"
same "HEAD~1's note is kept as it came" "$(blob_of "$T/W" HEAD~1)" "$(blob_of . HEAD~1)"
check "HEAD~2 has no note" [ -z "$(blob_of . HEAD~2)" ]
for n in 3 10 18; do
  same "HEAD~$n's note is kept as it came" "$(blob_of "$T/W" "HEAD~$n")" "$(blob_of . "HEAD~$n")"
done
check "17 notes here of the remote's 18" [ "$(git notes --ref "$NOTES" list | wc -l)" = \
  "$(( $(git -C "$T/W" notes --ref "$NOTES" list | wc -l) - 1 ))" ]
check "every object fetched is whole" git fsck --no-dangling --no-progress

finish
