"""Headless Chromium driven over the DevTools protocol, for the browser tests.

Speaks the protocol over --remote-debugging-pipe (fd 3 in, fd 4 out,
NUL-terminated JSON), so it needs only the standard library.
"""
import json
import os
import signal
import subprocess
import sys

passed = failed = 0


def check(ok, what):
    """Counts a check; prints what failed."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def drive(chromium, profile, body):
    """Starts the browser, opens a page target, runs body(browser) under a
    180 s alarm, prints "N passed, N failed" and exits: 0 all passed, 1 not,
    2 when the browser could not be driven."""
    def main():
        b = Browser(chromium, profile)
        signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(RuntimeError("browser did not answer in 180 s")))
        signal.alarm(180)
        try:
            target = b.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
            b.session = b.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                               session=False)["sessionId"]
            b.call("Page.enable")
            b.call("Runtime.enable")
            body(b)
        finally:
            signal.alarm(0)
            b.close()
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    try:
        sys.exit(main())
    except RuntimeError as e:
        print("browser driver: %s" % e, file=sys.stderr)
        sys.exit(2)


def watch_errors(b):
    """Turns on the log and returns the list every console error or warning,
    uncaught exception and blocked request of the page is appended to."""
    errors = []
    b.call("Log.enable")

    def on_event(m):
        meth = m["method"]
        if meth == "Runtime.exceptionThrown":
            errors.append("exception: %s" % m["params"]["exceptionDetails"].get("exception", {}).get(
                "description", m["params"]["exceptionDetails"].get("text")))
        elif meth == "Runtime.consoleAPICalled" and m["params"]["type"] in ("error", "assert", "warning"):
            errors.append("console.%s: %s" % (m["params"]["type"], m["params"]["args"]))
        elif meth == "Log.entryAdded" and m["params"]["entry"]["level"] in ("error", "warning"):
            errors.append("log: %s" % m["params"]["entry"]["text"])
    b.on_event = on_event
    return errors


class Browser:
    def __init__(self, chromium, profile):
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--user-data-dir=" + profile, "--window-size=1280,800", "--remote-debugging-pipe",
                 "about:blank"]
        # The shell moves our pipes to fds 3 and 4, where Chromium expects them.
        self.p = subprocess.Popen(["sh", "-c", 'exec "$@" 3<&0 4>&1 </dev/null >/dev/null', "sh", chromium] + flags,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(os.path.join(profile, "chromium.log"), "wb"),
                                  start_new_session=True)
        self.buf = b""
        self.next_id = 0
        self.session = None
        self.on_event = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self.p.stdin.write(json.dumps(msg).encode() + b"\0")
        self.p.stdin.flush()
        return self.next_id

    def read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def wait(self, pred):
        while True:
            m = self.read()
            if "method" in m and self.on_event:
                self.on_event(m)
            if pred(m):
                return m

    def call(self, method, params=None, session=True):
        i = self.send(method, params, session)
        m = self.wait(lambda m: m.get("id") == i)
        if "error" in m:
            raise RuntimeError("%s: %s" % (method, m["error"]))
        return m.get("result", {})

    def js(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("script failed: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def click(self, x, y):
        for t in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": t, "x": x, "y": y, "button": "left", "clickCount": 1})

    def close(self):
        try:
            self.call("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
