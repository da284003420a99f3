#!/usr/bin/env python3
"""A stand-in for GitHub's and GitLab's comment APIs, for ci/comment.py's tests.

    mock_forge.py STATE.json PORTFILE

Serves on 127.0.0.1 (a free port, written to PORTFILE once listening) the
endpoints ci/comment.py uses, paginated with page/per_page as the real ones:
  GitHub  GET/POST /repos/O/R/issues/N/comments, PATCH /repos/O/R/issues/comments/ID
  GitLab  GET/POST /api/v4/projects/P/merge_requests/N/notes, PUT .../notes/ID
Every comment lives in STATE.json ({"comments": [{"id", "forge", "thread",
"author", "body"}], "requests": [...]}), read at each request and written
after each change, so a test can seed it and read it. A request without the
token "test-token" gets 401; editing a comment whose author is not "perfgate"
gets 403, as editing someone else's comment does. A thread listed in the
state's "raw" ({"THREAD": TEXT}) is answered TEXT as its listing, whatever
it is: an API answering nonsense.
"""
import json
import os
import re
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

STATE, PORTFILE = sys.argv[1], sys.argv[2]


def load():
    with open(STATE) as f:
        return json.load(f)


def save(s):
    with open(STATE + ".tmp", "w") as f:
        json.dump(s, f, indent=1)
    os.replace(STATE + ".tmp", STATE)


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def reply_raw(self, text):
        data = text.encode("utf-8", "surrogatepass")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def route(self, method):
        u = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(u.query))
        gh = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(?:(\d+)/comments|comments/(\d+))", u.path)
        gl = re.fullmatch(r"/api/v4/projects/[^/]+/merge_requests/(\d+)/notes(?:/(\d+))?", u.path)
        m, forge = (gh, "github") if gh else (gl, "gitlab") if gl else (None, None)
        s = load()
        s["requests"].append(f"{method} {self.path}")
        auth = self.headers.get("Authorization", "") if forge == "github" else self.headers.get("PRIVATE-TOKEN", "")
        if not m:
            save(s)
            return self.reply(404, {"message": "Not Found"})
        if not auth.endswith("test-token"):
            save(s)
            return self.reply(401, {"message": "Bad credentials"})
        body = None
        if method in ("POST", "PATCH", "PUT"):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}").get("body")
        thread = m.group(1) if forge == "gitlab" or m.group(1) else None
        cid = m.group(2)
        mine = [c for c in s["comments"] if c["forge"] == forge]
        if method == "GET" and cid is None and thread in s.get("raw", {}):
            save(s)
            return self.reply_raw(s["raw"][thread])
        if method == "GET" and cid is None:
            per, page = int(q.get("per_page", 30)), int(q.get("page", 1))
            rows = [c for c in mine if c["thread"] == thread]
            save(s)
            return self.reply(200, [{"id": c["id"], "body": c["body"], "user": {"login": c["author"]}, "system": False}
                                    for c in rows[(page - 1) * per:page * per]])
        if method == "POST" and cid is None:
            c = {"id": 1000 + len(s["comments"]), "forge": forge, "thread": thread, "author": "perfgate", "body": body}
            s["comments"].append(c)
            save(s)
            return self.reply(201, {"id": c["id"], "body": body})
        if method in ("PATCH", "PUT") and cid is not None:
            hit = [c for c in mine if str(c["id"]) == cid]
            if not hit:
                save(s)
                return self.reply(404, {"message": "Not Found"})
            if hit[0]["author"] != "perfgate":
                save(s)
                return self.reply(403, {"message": "Forbidden"})
            hit[0]["body"] = body
            save(s)
            return self.reply(200, {"id": hit[0]["id"], "body": body})
        save(s)
        return self.reply(405, {"message": "Method Not Allowed"})

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_PATCH(self):
        self.route("PATCH")

    def do_PUT(self):
        self.route("PUT")


srv = HTTPServer(("127.0.0.1", 0), H)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.replace(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
