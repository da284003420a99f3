#!/usr/bin/env python3
"""speedscope_browser.py CHROMIUM RELEASE_DIR PROFILE_DIR FILE.speedscope.json NAME FUNC...

Opens FILE in the real speedscope viewer (its npm package's release build,
RELEASE_DIR) in headless Chromium, served from 127.0.0.1 as speedscope's
#profileURL= loads it, and checks that it loaded: the title speedscope sets
from the profile's NAME, no error shown, and each FUNC found by its search
in its sandwich view, with its total and self when given as FUNC=TOTAL/SELF.
"""
import functools
import http.server
import os
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

chromium, release, profile, path, name = sys.argv[1:6]
funcs = sys.argv[6:]
root = os.path.dirname(os.path.abspath(path))
if not os.path.exists(os.path.join(root, "speedscope")):
    os.symlink(release, os.path.join(root, "speedscope"))


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=root))
threading.Thread(target=server.serve_forever, daemon=True).start()
base = "http://127.0.0.1:%d/" % server.server_address[1]
url = base + "speedscope/index.html#profileURL=" + urllib.parse.quote(base + os.path.basename(path))


def until(b, expr, seconds=60):
    end = time.time() + seconds
    while time.time() < end:
        v = b.js(expr)
        if v:
            return v
        time.sleep(0.2)
    return None


def body(b):
    b.call("Page.navigate", {"url": url})
    title = until(b, "document.title.endsWith(' - speedscope') && document.title")
    cdp.check(title == name + " - speedscope", "speedscope's title names the profile: %r" % title)
    text = b.js("document.body.innerText")
    cdp.check("error" not in text.lower() and "something went wrong" not in text.lower(),
              "no error shown: %r" % text[:300])
    cdp.check(b.js("document.querySelectorAll('canvas').length") > 0, "the flame chart is drawn (a canvas)")
    # The sandwich view lists every function with its total and self (DOM
    # text, where the flame charts are canvases): each FUNC is there with
    # the numbers given as FUNC=TOTAL/SELF.
    b.js("[...document.querySelectorAll('div')].find(d => d.textContent.trim().endsWith('Sandwich') "
         "&& d.children.length <= 2).click()")
    until(b, "document.body.innerText.includes('Symbol Name') && document.body.innerText.includes('%)')", 20)
    text = b.js("document.body.innerText")
    # Each row reads "TOTAL (P%)", "SELF (P%)", "NAME" on lines of their own.
    lines = [l.strip("\t ") for l in text.split("\n")]
    for f in funcs:
        fname, _, nums = f.partition("=")
        row = [i for i, l in enumerate(lines) if l == fname and i >= 2]
        cdp.check(bool(row), "the sandwich view lists %s: %r" % (fname, text[:500]))
        if row and nums:
            total, _, self_ = nums.partition("/")
            got = (lines[row[0] - 2].split(" ")[0], lines[row[0] - 1].split(" ")[0])
            cdp.check(got == (total, self_), "%s: total and self %s, expected %s" % (fname, got, (total, self_)))


try:
    cdp.drive(chromium, profile, body)
finally:
    server.shutdown()
