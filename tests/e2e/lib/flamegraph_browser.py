#!/usr/bin/env python3
"""Drives a perfgate flamegraph SVG in headless Chromium like a user would.

Speaks the Chrome DevTools protocol over --remote-debugging-pipe (fd 3 in,
fd 4 out, NUL-terminated JSON), so it needs only the standard library. Real
input events: a mouse click on a frame, Ctrl-F answered in the prompt
dialog, a click on "Search" and on "Reset Zoom". Prints one line per check
and "N passed, N failed"; exit 0 when all passed, 1 otherwise, 2 when the
browser could not be driven at all.

usage: flamegraph_browser.py CHROMIUM FILE.svg USER_DATA_DIR [HOSTILE.svg]

HOSTILE.svg (checked in the same browser, which is costly to start): a
flamegraph of a function named "<script>window.pwned=1</script>&x" and one
with an <img onerror>; neither may run, and the first is shown verbatim.
"""
import json
import os
import sys

from cdp import check, drive

chromium, svg, profile = sys.argv[1:4]
hostile = sys.argv[4] if len(sys.argv) > 4 else None
def frame_js(name, what):
    """An expression about the frame whose name is `name`."""
    return ("(function(){var gs=document.querySelectorAll('#frames > g');"
            "for (var i=0;i<gs.length;i++){var g=gs[i];"
            "if (g.querySelector('title').textContent.split('\\n')[0]===%s){%s}} return null;})()"
            % (json.dumps(name), what))


def box(b, name):
    return b.js(frame_js(name, "var r=g.querySelector('rect').getBoundingClientRect();"
                               "return {x:r.x,y:r.y,w:r.width,h:r.height,hidden:g.classList.contains('hide')"
                               "||getComputedStyle(g).display==='none',fill:g.querySelector('rect').getAttribute('fill'),"
                               "label:g.querySelector('text').textContent};"))


def body(b):
    answers = []

    def on_event(m):    # answer prompt() dialogs with the next queued text
        if m["method"] == "Page.javascriptDialogOpening":
            text = answers.pop(0) if answers else ""
            b.send("Page.handleJavaScriptDialog", {"accept": True, "promptText": text})
    b.on_event = on_event
    b.send("Page.navigate", {"url": "file://" + os.path.abspath(svg)})
    b.wait(lambda m: m.get("method") == "Page.loadEventFired")
    total_w = b.js("document.getElementById('frames').getBoundingClientRect().width")
    check(total_w and total_w > 1000, "the frames area is drawn (%r px)" % total_w)
    check(b.js("typeof all !== 'undefined' && all.length") == 6, "the script found the 6 frames")

    parse, sort, hash_ = box(b, "parse"), box(b, "sort"), box(b, "hash")
    check(abs(parse["w"] - total_w / 2) < 1, "parse (50%%) is half the width: %r of %r" % (parse["w"], total_w))
    check(abs(hash_["w"] - total_w * 0.3) < 1, "hash (30%%) is 0.3 of the width: %r" % hash_["w"])

    # Click on parse: it fills the width, its child scales, its sibling goes.
    b.click(parse["x"] + parse["w"] / 2, parse["y"] + parse["h"] / 2)
    parse, sort, hash_, main_ = box(b, "parse"), box(b, "sort"), box(b, "hash"), box(b, "main")
    check(abs(parse["w"] - total_w) < 1, "clicked frame is full width after zoom: %r of %r" % (parse["w"], total_w))
    check(abs(hash_["w"] - total_w * 0.6) < 1, "its child is 30/50 of the width: %r" % hash_["w"])
    check(sort["hidden"], "the sibling frame is hidden while zoomed")
    check(not main_["hidden"] and abs(main_["w"] - total_w) < 1, "the parent stays, full width")
    check(b.js("document.getElementById('unzoom').classList.contains('hide')") is False,
          "Reset Zoom is shown")

    # Reset Zoom puts everything back.
    r = b.js("(function(){var r=document.getElementById('unzoom').getBoundingClientRect();return {x:r.x+r.width/2,y:r.y+r.height/2};})()")
    b.click(r["x"], r["y"])
    parse, sort = box(b, "parse"), box(b, "sort")
    check(abs(parse["w"] - total_w / 2) < 1 and not sort["hidden"], "Reset Zoom restores the widths")
    check(b.js("document.getElementById('unzoom').classList.contains('hide')") is True, "Reset Zoom hides itself")

    # Ctrl-F opens the search prompt; a regular expression highlights.
    answers.append("^h.sh$")
    b.call("Input.dispatchKeyEvent", {"type": "rawKeyDown", "modifiers": 2, "key": "f", "code": "KeyF",
                                      "windowsVirtualKeyCode": 70})
    b.call("Input.dispatchKeyEvent", {"type": "keyUp", "modifiers": 2, "key": "f", "code": "KeyF",
                                      "windowsVirtualKeyCode": 70})
    hash_, parse = box(b, "hash"), box(b, "parse")
    check(hash_["fill"] == "rgb(230,0,230)", "the match is highlighted: %r" % hash_["fill"])
    check(parse["fill"] != "rgb(230,0,230)", "a non-match is not")
    matched = b.js("document.getElementById('matched').textContent")
    check(matched == "Matched: 30.00% (1 frames)", "the matched share is shown: %r" % matched)
    check(b.js("getComputedStyle(document.getElementById('matched')).display") != "none", "and visible")

    # The Search button: first click resets, second asks; plain text that
    # is not a valid regular expression still matches as text.
    s = b.js("(function(){var r=document.getElementById('search').getBoundingClientRect();return {x:r.x+r.width/2,y:r.y+r.height/2};})()")
    b.click(s["x"], s["y"])
    check(box(b, "hash")["fill"] != "rgb(230,0,230)", "Reset Search clears the highlight")
    answers.append("pars")
    b.click(s["x"], s["y"])
    check(box(b, "parse")["fill"] == "rgb(230,0,230)", "the Search button searches")
    matched = b.js("document.getElementById('matched').textContent")
    check(matched == "Matched: 50.00% (1 frames)", "substring match share: %r" % matched)
    b.click(s["x"], s["y"])
    answers.append("(")
    b.click(s["x"], s["y"])
    check(b.js("document.getElementById('matched').textContent") == "Matched: 0.00% (0 frames)",
          "an invalid regex is searched as text, not an error")

    # A search term in the URL is applied on load.
    b.send("Page.navigate", {"url": "file://" + os.path.abspath(svg) + "?s=compare"})
    b.wait(lambda m: m.get("method") == "Page.loadEventFired")
    check(box(b, "compare")["fill"] == "rgb(230,0,230)", "?s= searches on load")

    # Hostile names are text: no script runs, and the name is shown as it is.
    if hostile:
        b.send("Page.navigate", {"url": "file://" + os.path.abspath(hostile)})
        b.wait(lambda m: m.get("method") == "Page.loadEventFired")
        pwned = b.js("typeof window.pwned")
        name = b.js("all.map(function(g){return g.pgName;}).join('|')")
        check(pwned == "undefined" and "<script>window.pwned=1</script>&x" in name,
              "hostile names must be shown as text and never run: %r %r" % (pwned, name))


if __name__ == "__main__":
    drive(chromium, profile, body)
