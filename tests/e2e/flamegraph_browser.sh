#!/usr/bin/env bash
# The SVG works in a real browser: headless Chromium, driven over the DevTools
# protocol with real mouse and keyboard events (tests/e2e/lib/flamegraph_browser.py):
# a click zooms (the frame becomes full width), Reset Zoom restores, Ctrl-F and
# the Search button highlight matches and show the matched share, and a
# function name carrying a script tag does not run.
. "$(dirname "$0")/lib/common.sh"
need_chromium
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to drive the browser" >&2; exit 1; }

cd "$T"
{
  printf 'main;parse;hash 30\nmain;parse 20\nmain;sort;compare 50\n'
} > p.folded
expect_exit 0 "render" "$PG" flamegraph -o p.svg p.folded
printf 'main;<script>window.pwned=1</script>&x 5\nmain;<img src=x onerror="window.pwned=2"> 5\n' > evil.folded
expect_exit 0 "render hostile names" "$PG" flamegraph -o evil.svg evil.folded
lacks evil.svg "<script>window.pwned"
lacks evil.svg "<img src"
# One browser for both (starting Chromium is the costly part).
mkdir profile
python3 "$(dirname "$0")/lib/flamegraph_browser.py" "$CHROMIUM" "$T/p.svg" "$T/profile" "$T/evil.svg"
rc=$?
[ $rc -eq 0 ] && ok || { bad "browser checks (exit $rc)"; tail -5 "$T/profile/chromium.log" >&2; }
finish
