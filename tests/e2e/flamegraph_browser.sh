#!/usr/bin/env bash
# The SVG works in a real browser: headless Chromium, driven over the DevTools
# protocol with real mouse and keyboard events (tests/e2e/lib/flamegraph_browser.py):
# a click zooms (the frame becomes full width), Reset Zoom restores, Ctrl-F and
# the Search button highlight matches and show the matched share, and a
# function name carrying a script tag does not run.
. "$(dirname "$0")/lib/common.sh"
CHROMIUM=
for c in chromium chromium-browser google-chrome; do
  if command -v "$c" >/dev/null 2>&1; then CHROMIUM=$(command -v "$c"); break; fi
done
if [ -z "$CHROMIUM" ]; then echo "skip: no chromium (ci/install-deps.sh installs it)"; exit 77; fi
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to drive the browser" >&2; exit 1; }

cd "$T"
{
  printf 'main;parse;hash 30\nmain;parse 20\nmain;sort;compare 50\n'
} > p.folded
expect_exit 0 "render" "$PG" flamegraph -o p.svg p.folded
mkdir profile
python3 "$(dirname "$0")/lib/flamegraph_browser.py" "$CHROMIUM" "$T/p.svg" "$T/profile"
rc=$?
[ $rc -eq 0 ] && ok || { bad "browser checks (exit $rc)"; tail -5 "$T/profile/chromium.log" >&2; }

# A hostile name: escaped in the file, inert in the browser.
printf 'main;<script>window.pwned=1</script>&x 5\nmain;<img src=x onerror="window.pwned=2"> 5\n' > evil.folded
expect_exit 0 "render hostile names" "$PG" flamegraph -o evil.svg evil.folded
lacks evil.svg "<script>window.pwned"
lacks evil.svg "<img src"
mkdir profile2
python3 - "$CHROMIUM" "$T/evil.svg" "$T/profile2" "$(dirname "$0")/lib" <<'PY'
import sys, os
sys.path.insert(0, sys.argv[4])
sys.argv = sys.argv[:4]
import flamegraph_browser as fb
b = fb.Browser()
try:
    t = b.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
    b.session = b.call("Target.attachToTarget", {"targetId": t, "flatten": True}, session=False)["sessionId"]
    b.call("Page.enable")
    b.send("Page.navigate", {"url": "file://" + sys.argv[2]})
    b.wait(lambda m: m.get("method") == "Page.loadEventFired")
    pwned = b.js("typeof window.pwned")
    name = b.js("all.map(function(g){return g.pgName;}).join('|')")
finally:
    b.close()
ok = pwned == "undefined" and "<script>window.pwned=1</script>&x" in name
print("hostile names inert and shown verbatim:", ok, pwned, name)
sys.exit(0 if ok else 1)
PY
[ $? -eq 0 ] && ok || bad "hostile names must be shown as text and never run"
finish
