#!/usr/bin/env bash
# perfgate's speedscope files in the real speedscope: valid against the
# file-format schema speedscope ships, and opened by its release build in
# headless Chromium (tests/e2e/lib/speedscope_browser.py), whose sandwich
# view must list each function with the total and self `perfgate top` gives
# (fib recurses: once per stack in both).
. "$(dirname "$0")/lib/common.sh"
need_chromium
SS=$(npm root -g 2>/dev/null)/speedscope/dist/release
if [ ! -f "$SS/index.html" ]; then echo "skip: no speedscope npm package (ci/install-deps.sh installs it)"; exit 77; fi
cd "$T"

printf 'prog;main;parse;hash 30\nprog;main;parse 20\nprog;main;sort;compare 40\nprog;main;fib;fib;fib 7\nprog;main;fib 3\n' > p.folded
expect_exit 0 "speedscope file" "$PG" flamegraph -o p.speedscope.json p.folded
python3 - "$SS/file-format-schema.json" p.speedscope.json <<'PY' && ok || bad "valid against speedscope's schema"
import json, sys
import jsonschema
schema, doc = (json.load(open(p)) for p in sys.argv[1:3])
jsonschema.validate(doc, schema)
PY
"$PG" top --format json -n 0 p.folded > top.json
want=$(json top.json "' '.join('%s=%d/%d' % (r['name'], r['total'], r['self']) for r in d['rows'])")
mkdir profile
# shellcheck disable=SC2086  # one argument per function
python3 "$(dirname "$0")/lib/speedscope_browser.py" "$CHROMIUM" "$SS" "$T/profile" "$T/p.speedscope.json" p.folded $want
rc=$?
[ $rc -eq 0 ] && ok || { bad "speedscope checks (exit $rc)"; tail -5 "$T/profile/chromium.log" >&2; }
finish
