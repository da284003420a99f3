#!/usr/bin/env python3
"""Opens `perfgate history` pages in headless Chromium and draws every chart.

For each page: it loads with no console error, no uncaught exception and no
blocked request; its script runs to the end; then for every metric of its
selector, every card is scrolled into view (a page whose data is split
loads a chart's file only then) until each one has drawn its chart, an
<svg class="chart">. EXPECT (JSON, optional, after the page and an '='):
{"cards": {"metric": N}, "findings": ["text", ...], "first_screen": true, "points": false}
- cards: how many charts a metric shows;
- points (default true): every chart draws a mark for each of its points;
- findings: texts the findings list must contain;
- first_screen: the charts in the first screen are drawn without scrolling
  (a split page loads what is shown at once).
Prints one line per failed check and "N passed, N failed"; exit 0 when all
passed, 1 otherwise, 2 when the browser could not be driven.

usage: history_charts_browser.py CHROMIUM USER_DATA_DIR PAGE.html[=EXPECT_JSON]...
"""
import json
import os
import sys
import time

from cdp import check, drive, watch_errors

chromium, profile = sys.argv[1:3]
pages = []
for arg in sys.argv[3:]:
    page, _, expect = arg.partition("=")
    pages.append((page, json.loads(expect) if expect else {}))


def wait_for(b, expr, what, limit=2000):
    """Polls expr until it is true (the 180 s alarm of cdp.drive bounds it)."""
    for _ in range(limit):
        if b.js(expr):
            return True
        time.sleep(0.02)
    check(False, what)
    return False


def one(b, page, want, errors):
    del errors[:]
    name = os.path.basename(page)
    b.send("Page.navigate", {"url": "file://" + os.path.abspath(page)})
    b.wait(lambda m: m.get("method") == "Page.loadEventFired")
    check(b.js("document.body.getAttribute('data-ready')") == "1", "%s: the page's script ran to the end" % name)
    if want.get("first_screen"):
        wait_for(b, "(function(){var c=Array.from(document.querySelectorAll('.card')).filter(function(e){"
                    "return e.getBoundingClientRect().top < window.innerHeight;});"
                    "return c.length > 0 && c.every(function(e){return e.querySelector('svg.chart');});})()",
                 "%s: the first screen's charts are drawn" % name)
    metrics = b.js("Array.from(document.querySelectorAll('#metric option')).map(function(o){return o.value;})") or []
    check(len(metrics) > 0, "%s: the page offers metrics" % name)
    for metric in metrics:
        b.js("(function(){var s=document.getElementById('metric'); s.value=%s;"
             "s.dispatchEvent(new Event('change'));})()" % json.dumps(metric))
        cards = b.js("document.querySelectorAll('.card').length")
        # Scroll each card not yet drawn into view, as a reader would.
        for i in range(cards):
            b.js("document.querySelectorAll('.card')[%d].scrollIntoView()" % i)
            if not wait_for(b, "!!document.querySelectorAll('.card')[%d].querySelector('svg.chart')" % i,
                            "%s: %s: chart %d is drawn" % (name, metric, i), limit=250):
                break
        drawn = b.js("document.querySelectorAll('.card svg.chart').length")
        check(drawn == cards and cards > 0, "%s: %s: every chart drawn: %r of %r" % (name, metric, drawn, cards))
        if want.get("points", True):
            # every point of the card's series is drawn (none lost to a coordinate that is no number)
            short = b.js("Array.from(document.querySelectorAll('.card')).filter(function(c){"
                         "var n=c.perfgateList.reduce(function(a,s){return a+s.np;},0);"
                         "return c.querySelectorAll('svg.chart .pt').length !== n;})"
                         ".map(function(c){return c.getAttribute('data-bench');})")
            check(short == [], "%s: %s: charts missing points: %r" % (name, metric, short))
        if metric in want.get("cards", {}):
            check(cards == want["cards"][metric], "%s: %s: %r charts, expected %r" % (name, metric, cards,
                                                                                    want["cards"][metric]))
    findings = b.js("document.getElementById('findings').textContent") or ""
    for text in want.get("findings", []):
        check(text in findings, "%s: the findings say %r: %r" % (name, text, findings[:2000]))
    check(not errors, "%s: no console errors, exceptions or blocked requests: %r" % (name, errors))


def body(b):
    errors = watch_errors(b)
    b.call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1,
                                                  "mobile": False})
    for page, want in pages:
        one(b, page, want, errors)


if __name__ == "__main__":
    drive(chromium, profile, body)
