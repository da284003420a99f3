#!/usr/bin/env bash
# What perfgate says on stderr comes after the tables it printed before on
# stdout, also when stdout is a pipe (fully buffered) and both go to one
# place, as in CI logs: the notes line ("notes: run added to ...") follows
# the last benchmark's table, not lands among them. And run's --manifest.
. "$(dirname "$0")/lib/common.sh"
require valgrind
R=$T/repo
make_repo "$R"
mkdir -p "$R/bench"
cat > "$R/bench/perfgate.json" <<JSON
{ "benchmarks": [ { "name": "one", "command": ["$PROGS/work", "1000"] },
                  { "name": "two", "command": ["$PROGS/work", "2000"] },
                  { "name": "three", "command": ["$PROGS/work", "3000"] } ] }
JSON
git -C "$R" add bench && git -C "$R" commit -q -m bench
cd "$R"
"$PG" run --backend valgrind --no-native --metrics instructions bench/ 2>&1 | cat > "$T/all"
cat "$T/all"
notes=$(grep -n 'perfgate: notes: run added to refs/notes/perfgate' "$T/all" | cut -d: -f1)
last=$(grep -n '^three  (1 run)' "$T/all" | cut -d: -f1)
check "the notes line is there (line ${notes:-none})" [ -n "$notes" ]
check "the last table is there (line ${last:-none})" [ -n "$last" ]
check "the notes line ($notes) comes after the last table ($last)" [ "${notes:-0}" -gt "${last:-0}" ]
check "...and after its rows" [ "${notes:-0}" -gt "$(grep -n '^  instructions' "$T/all" | tail -1 | cut -d: -f1)" ]
# --manifest PATH is the same as the PATH operand (the name compare, bisect
# and backfill give the manifest), from a subdirectory too.
mkdir -p sub && cd sub
expect_exit 0 "run --manifest" "$PG" run --manifest ../bench --filter one --no-store --backend valgrind --no-native --metrics instructions
contains "$T/out" "perfgate run: 1 benchmark, backend valgrind"
contains "$T/out" "one  (1 run)"
finish
