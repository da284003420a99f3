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
finish
