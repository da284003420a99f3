#!/usr/bin/env bash
# perfgate history on a real repository of 7 commits, each measured by
# `perfgate run` with valgrind (exact counts): "mixer" gains 3% at c3 (a
# regression and a change point), "coin" alternates from run to run between
# two amounts of work 10% apart (bimodal, from its 21 samples; a counter
# file, not a random coin: with 3 samples a commit, random medians can line
# up into what looks like a level shift), and the third benchmark has a
# hostile name. Stacks are stored for c2 and c3 only. The
# page is checked in headless Chromium (tests/e2e/lib/history_browser.py);
# then a clone that has only the git notes draws the same history, and the
# errors leave an existing page alone.
. "$(dirname "$0")/lib/common.sh"
require valgrind cc git
LIB=$(cd "$(dirname "$0")/lib" && pwd)
R=$T/repo
HOSTILE='<img src=x onerror="window.pwned=1">'
make_bench_repo "$R" '{ "build": "cc -O1 -fno-inline '"$(static_flag)"' -o bench/prog bench/prog.c",
  "benchmarks": [ { "name": "mixer", "command": ["./prog", "mix"], "repeat": 1 },
                  { "name": "coin",  "command": ["./prog", "coin"], "repeat": 3 },
                  { "name": "<img src=x onerror=\"window.pwned=1\">", "command": ["./prog", "steady"], "repeat": 1 } ] }'
write_prog() {  # MIX_N
  write_mix_prog "$R/bench/prog.c" '    n = 20000;
    if (!strcmp(argv[1], "mix"))
        n = '"$1"';
    if (!strcmp(argv[1], "coin")) {
        unsigned k = 0;
        FILE *f = fopen("'"$T"'/coin.count", "r+");
        if (!f && !(f = fopen("'"$T"'/coin.count", "w+"))) return 3;
        if (fscanf(f, "%u", &k) != 1) k = 0;
        rewind(f);
        fprintf(f, "%u\n", k + 1);
        fclose(f);
        n = k & 1 ? 33000 : 30000;
    }'
}
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
c=()
write_prog 30000; c[0]=$(commit "benchmarks")
for i in 1 2 3 4 5 6; do
  if [ $i = 3 ]; then write_prog 30900; c[$i]=$(commit "mix: 3% more iterations")
  else echo "change $i" >> "$R/README"; c[$i]=$(commit "docs: change $i"); fi
done
cd "$R"
for i in 0 1 2 3 4 5 6; do
  git checkout -q "${c[$i]}"
  sample=; [ $i = 2 ] || [ $i = 3 ] && sample=--sample
  expect_exit 0 "run at c$i" "$PG" run --backend valgrind --metrics instructions --no-native $sample bench/
done
git checkout -q main

# The page, and what history says on the terminal.
URL='https://example.invalid/commit/%H'
mkdir -p "$T/page"
expect_exit 0 "history" "$PG" history --commit-url "$URL" -o "$T/page/h.html"
cat "$T/out"
# 8 commits: make_repo's first has no benchmarks. mixer's loop is 3% of
# iterations, a little less of the program's instructions.
contains "$T/out" "history: 8 commits, 7 with results; "
cp=$(sed -n "s/^  change point: mixer instructions \(+2\.[0-9][0-9]%\) from ${c[3]:0:12}\$/\1/p" "$T/out")
check "one change point for mixer at c3, +2.xx% ('$cp')" [ -n "$cp" ]
# (valgrind's own wall-time, stored beside the counts, may shift on a loaded machine)
check "no other change point in a count" [ "$(grep -c '^  change point: .* instructions ' "$T/out")" = 1 ]
contains "$T/out" "bimodal: coin instructions: two groups"
contains "$T/out" "wrote $T/page/h.html and "
check "c2's and c3's flamegraphs and their differential one" \
  test -f "$T/page/h_files/${c[2]:0:12}-0-mixer.svg" -a -f "$T/page/h_files/${c[3]:0:12}-0-mixer.svg" \
       -a -f "$T/page/h_files/${c[2]:0:12}..${c[3]:0:12}-0-mixer.diff.svg"
lacks "$T/page/h.html" '<img src=x' "the hostile name is never markup in the page"
lacks "$T/page/h.html" 'src="http' "the page loads nothing from the network"
grep -q '"mixer","metric":"instructions","unit":"count","lane":0,"threshold":0.1' "$T/page/h.html" && ok ||
  bad "the page's data names mixer's series and its 0.1% threshold"

CHROMIUM=
for b in chromium chromium-browser google-chrome; do
  command -v "$b" >/dev/null 2>&1 && { CHROMIUM=$(command -v "$b"); break; }
done
if [ -n "$CHROMIUM" ]; then
  mkdir "$T/profile"
  expect=$(python3 -c 'import json,sys; print(json.dumps({"cards": 3, "bench": "mixer", "commit": sys.argv[1],
    "change": sys.argv[3], "bimodal": "coin", "hostile": sys.argv[2],
    "commit_url": "https://example.invalid/commit/" + sys.argv[1]}))' "${c[3]}" "$HOSTILE" "$cp")
  shot=${PG_HISTORY_SCREENSHOT:-$T/history.png}
  python3 "$LIB/history_browser.py" "$CHROMIUM" "$T/page/h.html" "$T/profile" "$shot" "$expect"
  rc=$?
  [ $rc -eq 0 ] && ok || { bad "browser checks (exit $rc)"; tail -5 "$T/profile/chromium.log" >&2; }
  check "the screenshot was written" test -s "$shot"
else
  echo "no chromium: the browser checks are skipped (ci/install-deps.sh installs it)"
fi

# A range, and a clone that has only the notes (no .perfgate/): the same history.
expect_exit 0 "history A..B" "$PG" history "${c[1]}..${c[5]}" -o "$T/range.html" --flamegraphs none
contains "$T/out" "history: 4 commits, 4 with results"
git clone -q "$R" "$T/clone"
cd "$T/clone"
expect_exit 0 "fetch the notes" "$PG" fetch
expect_exit 0 "history from notes only" "$PG" history -o "$T/clone.html"
cd "$R"
contains "$T/out" "history: 8 commits, 7 with results; "
contains "$T/out" "change point: mixer instructions $cp from ${c[3]:0:12}"

# A damaged document hides its commit, not the history.
doc=$(ls .perfgate/results/"${c[5]}"/*.json | head -1)
cp "$doc" "$T/doc.bak" && echo '{"schema": "perfgate-store/1", "runs": 7}' > "$doc"
expect_exit 0 "history with a damaged document" "$PG" history -o "$T/damaged.html" --flamegraphs none
contains "$T/out" "history: 8 commits, 6 with results; "
contains "$T/err" "${c[5]:0:12} is left out of the history"
check "one warning line" [ "$(wc -l < "$T/err")" = 1 ]
cp "$T/doc.bak" "$doc"

# Commits not measured between two measured ones: a change found there is a
# range, and bisect is named to find it. (A clone without c1-c3's results.)
git clone -q "$R" "$T/gaps"
cd "$T/gaps"
expect_exit 0 "fetch the notes" "$PG" fetch
for i in 1 2 3; do git notes --ref refs/notes/perfgate remove "${c[$i]}" 2>/dev/null; done
expect_exit 0 "history with commits not measured" "$PG" history -o "$T/gaps.html" --flamegraphs none
contains "$T/out" "history: 8 commits, 4 with results; "
contains "$T/out" "regressed: mixer instructions +2."
contains "$T/out" "at ${c[4]:0:12} (between ${c[0]:0:12} and ${c[4]:0:12}: 3 commits not measured; 'perfgate bisect ${c[0]:0:12} ${c[4]:0:12}' finds it)"
if [ -n "$CHROMIUM" ]; then   # the page's findings, as its script writes them
  "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$T/profile2" --dump-dom "file://$T/gaps.html" \
    > "$T/gaps-dom.html" 2>/dev/null
  contains "$T/gaps-dom.html" "between ${c[0]:0:12} and ${c[4]:0:12} (3 commits not measured; perfgate bisect ${c[0]:0:12} ${c[4]:0:12} finds it)"
  lacks "$T/gaps-dom.html" '.5</text>' "whole-number axis ticks for counts"
fi
cd "$R"

# Errors: one line, exit 2, the existing page untouched.
cp "$T/page/h.html" "$T/before.html"
expect_exit 2 "unknown revision" "$PG" history nosuchrev -o "$T/page/h.html"
check "one line naming the revision" [ "$(wc -l < "$T/err")" = 1 ]
contains "$T/err" "nosuchrev"
expect_exit 2 "--commit-url without %H" "$PG" history --commit-url https://x.invalid/ -o "$T/page/h.html"
contains "$T/err" "--commit-url 'https://x.invalid/' has no %H"
expect_exit 2 "A not an ancestor of B" "$PG" history "${c[5]}..${c[1]}" -o "$T/page/h.html"
contains "$T/err" "first-parent ancestor"
expect_exit 2 "A..B..C" "$PG" history "${c[1]}..${c[5]}..HEAD" -o "$T/page/h.html"
contains "$T/err" "..HEAD': a range is A..B"
expect_exit 2 "-o in a directory that does not exist" "$PG" history -o "$T/nodir/h.html"
contains "$T/err" "--output $T/nodir/h.html: no directory $T/nodir to write it in"
make_repo "$T/empty"
cd "$T/empty"
expect_exit 2 "no results" "$PG" history -o "$T/page/h.html"
cd "$R"
contains "$T/err" "no results stored for any of the 1 commit of HEAD"
check "the page is untouched by the failures" cmp -s "$T/before.html" "$T/page/h.html"
finish
