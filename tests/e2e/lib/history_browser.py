#!/usr/bin/env python3
"""Opens a `perfgate history` page in headless Chromium as a user would.

Checks that it loads with no console error, no uncaught exception and no
blocked request; that it draws one chart per benchmark with the regression
and the change point marked where EXPECT says; that the bimodal benchmark is
flagged; that a hostile benchmark name is shown as text and never runs; and
that a real mouse click on the regression opens its links (commit,
flamegraph, differential flamegraph), whose files exist. Saves a screenshot
of the whole page. Prints one line per failed check and "N passed, N failed";
exit 0 when all passed, 1 otherwise, 2 when the browser could not be driven.

usage: history_browser.py CHROMIUM PAGE.html USER_DATA_DIR SCREENSHOT.png EXPECT_JSON
EXPECT_JSON: {"cards": 3, "bench": "mixer", "commit": "<id>", "change": "+3.00%",
              "bimodal": "coin", "hostile": "<img ...>", "commit_url": "https://.../<id>"}
"""
import base64
import json
import os
import sys

from cdp import check, drive, watch_errors

chromium, page, profile, shot, expect = sys.argv[1:6]
want = json.loads(expect)


def body(b):
    errors = watch_errors(b)
    b.call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1,
                                                  "mobile": False})
    b.send("Page.navigate", {"url": "file://" + os.path.abspath(page)})
    b.wait(lambda m: m.get("method") == "Page.loadEventFired")
    check(b.js("document.body.getAttribute('data-ready')") == "1", "the page's script ran to the end")
    cards = b.js("document.querySelectorAll('.card').length")
    check(cards == want["cards"], "one chart per benchmark: %r, expected %r" % (cards, want["cards"]))
    check(b.js("document.querySelectorAll('svg.chart .pt').length") > 0, "points are drawn")

    sel = ".card[data-bench=%s]" % json.dumps(want["bench"])
    reg = b.js("Array.from(document.querySelectorAll(%s)).map(function(e){return e.getAttribute('data-commit');})"
               % json.dumps(sel + " .pt.regressed"))
    check(reg == [want["commit"]], "%s: the regression is marked at %s only: %r" % (want["bench"], want["commit"], reg))
    cps = b.js("Array.from(document.querySelectorAll(%s)).map(function(e){return e.textContent;})"
               % json.dumps(sel + " .changepoint-label"))
    check(cps == [want["change"]], "%s: one change point, %s: %r" % (want["bench"], want["change"], cps))
    badges = b.js("Array.from(document.querySelectorAll('.card[data-bench=%s] .badge')).map(function(e){"
                  "return e.textContent;})" % json.dumps(want["bimodal"]))
    check(badges is not None and "bimodal" in badges, "%s is flagged bimodal: %r" % (want["bimodal"], badges))
    findings = b.js("document.getElementById('findings').textContent")
    check("bimodal" in findings and want["bimodal"] in findings, "the findings list the bimodal benchmark")
    titles = b.js("Array.from(document.querySelectorAll('.card h3')).map(function(e){return e.firstChild.textContent;})")
    check(want["hostile"] in titles, "the hostile name is shown as text: %r" % titles)
    check(b.js("typeof window.pwned") == "undefined", "the hostile name did not run")

    # A real click on the regression opens its links.
    r = b.js("(function(){var r=document.querySelector(%s).getBoundingClientRect();"
             "window.scrollTo(0, r.top + window.scrollY - 200);"
             "r=document.querySelector(%s).getBoundingClientRect();"
             "return {x:r.x+r.width/2,y:r.y+r.height/2};})()" % (json.dumps(sel + " .pt.regressed"),
                                                                 json.dumps(sel + " .pt.regressed")))
    b.click(r["x"], r["y"])
    shown = b.js("getComputedStyle(document.getElementById('details')).display")
    check(shown == "block", "a click on the point opens its details: %r" % shown)
    links = b.js("(function(){var o={};document.querySelectorAll('#details a').forEach(function(a){"
                 "o[a.id]=a.getAttribute('href');});return o;})()") or {}
    check(links.get("commit-link") == want["commit_url"], "the commit link: %r" % links.get("commit-link"))
    base = os.path.dirname(os.path.abspath(page))
    for k in ("flamegraph-link", "diff-link"):
        href = links.get(k)
        check(href and href.endswith(".svg") and os.path.isfile(os.path.join(base, href)),
              "%s names a flamegraph beside the page: %r" % (k, href))

    b.js("window.scrollTo(0, 0)")
    h = b.js("Math.ceil(document.documentElement.scrollHeight)")
    b.call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": min(int(h), 4000),
                                                  "deviceScaleFactor": 1, "mobile": False})
    png = b.call("Page.captureScreenshot", {"format": "png"})["data"]
    with open(shot, "wb") as f:
        f.write(base64.b64decode(png))
    check(not errors, "no console errors, exceptions or blocked requests: %r" % errors)


if __name__ == "__main__":
    drive(chromium, profile, body)
