#!/usr/bin/env python3
"""ci/comment.py - one living perfgate comment on a pull or merge request.

    comment.py github REPORT.md     (the action, ci/github/action.yml)
    comment.py gitlab REPORT.md     (the GitLab job, ci/gitlab/perfgate.gitlab-ci.yml)

A reviewer wants one comment that says where the pull request stands now,
not one more comment per push. The comment perfgate writes starts with a
hidden marker (MARKER); each run finds it among the request's comments and
edits it in place, and only when there is none yet (or none this token may
edit: anyone can paste the marker into a comment of their own) posts a new
one. The body is the markdown report (at most 60,000 characters, which
perfgate compare's markdown never exceeds) and, when the run's page is known,
a line saying where the differential flamegraphs are.

GitHub (the action passes these): PG_TOKEN (a token with pull-requests:
write), PG_API (github.api_url), PG_REPO (owner/name), PG_PR (the number),
PG_RUN_URL (the run's page, where its artifacts are). GitLab:
PERFGATE_GITLAB_TOKEN (a project or personal access token with api scope:
CI_JOB_TOKEN may not write notes), CI_API_V4_URL, CI_PROJECT_ID,
CI_MERGE_REQUEST_IID, CI_PIPELINE_URL.

A comment is a courtesy, not the gate: when it cannot be written (no token,
a fork's read-only token, the API down or answering nonsense) this says why
in one warning line and exits 0, and the job's status stays perfgate's. A
usage error exits 2. What it prints is escaped (ci/workflow.py): an API's
answer or a PG_REPO cannot start a workflow command of its own.
Python's standard library only: it runs on any runner with python3.
"""
import http.client
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

sys.dont_write_bytecode = True      # no __pycache__ left in the action's checkout
from workflow import escape, printable, warning  # noqa: E402  (ci/, beside this file)

MARKER = "<!-- perfgate-report: edited in place by each run (ci/comment.py) -->"
MAX_BODY = 65000          # GitHub's limit is 65,536 characters; GitLab's is 1,000,000
PER_PAGE = 100
MAX_PAGES = 50            # 5,000 comments: past that, a new comment is fine


class Skip(Exception):
    """The comment cannot be written: said once, and the job goes on."""


def request(method, url, headers, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read().decode() or "null"), r.headers


def listing(url, headers, sep):
    """Every item of a paginated list (GitHub and GitLab both take page/per_page)."""
    items = []
    for page in range(1, MAX_PAGES + 1):
        got, _ = request("GET", f"{url}{sep}per_page={PER_PAGE}&page={page}", headers)
        if not isinstance(got, list):
            raise Skip(f"unexpected answer listing comments: {str(got)[:200]}")
        items += got
        if len(got) < PER_PAGE:
            break
    return items


def upsert(comments, body_key, edit, create, body):
    """Edits the first comment of ours that we may edit, else creates one."""
    for c in comments:
        if isinstance(c, dict) and str(c.get(body_key) or "").startswith(MARKER):
            try:
                edit(c["id"], body)
                return "updated", c["id"]
            except urllib.error.HTTPError as e:
                if e.code not in (401, 403, 404):
                    raise
                # someone else's comment carrying the marker: not ours to edit
    got = create(body)
    return "created", got.get("id") if isinstance(got, dict) else None


def github(body):
    token, api, repo, pr = (os.environ.get(k, "") for k in ("PG_TOKEN", "PG_API", "PG_REPO", "PG_PR"))
    if not token:
        raise Skip("no token (the action's token input is empty)")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repo) or not re.fullmatch(r"[0-9]+", pr):
        raise Skip(f"not a pull request (repository '{repo}', number '{pr}')")
    api = (api or "https://api.github.com").rstrip("/")
    h = {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
         "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "perfgate"}
    base = f"{api}/repos/{repo}/issues"
    comments = listing(f"{base}/{pr}/comments", h, "?")
    return upsert(comments, "body",
                  lambda cid, b: request("PATCH", f"{base}/comments/{cid}", h, {"body": b}),
                  lambda b: request("POST", f"{base}/{pr}/comments", h, {"body": b})[0], body)


def gitlab(body):
    token = os.environ.get("PERFGATE_GITLAB_TOKEN", "")
    api, project, iid = (os.environ.get(k, "") for k in ("CI_API_V4_URL", "CI_PROJECT_ID", "CI_MERGE_REQUEST_IID"))
    if not token:
        raise Skip("no PERFGATE_GITLAB_TOKEN (a token with api scope; CI_JOB_TOKEN may not write notes)")
    if not api or not project or not re.fullmatch(r"[0-9]+", iid):
        raise Skip("not a merge request pipeline (CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID)")
    h = {"PRIVATE-TOKEN": token, "User-Agent": "perfgate"}
    base = f"{api.rstrip('/')}/projects/{urllib.parse.quote(project, safe='')}/merge_requests/{iid}/notes"
    notes = [n for n in listing(f"{base}?sort=asc", h, "&") if isinstance(n, dict) and not n.get("system")]
    return upsert(notes, "body",
                  lambda nid, b: request("PUT", f"{base}/{nid}", h, {"body": b}),
                  lambda b: request("POST", base, h, {"body": b})[0], body)


def compose(report, run_url):
    text = report if len(report) <= MAX_BODY else report[:MAX_BODY] + "\n\n(cut: the complete report is the job's artifact)\n"
    body = MARKER + "\n" + text.rstrip("\n") + "\n"
    if run_url:
        body += (f"\nDifferential flamegraphs of the regressed benchmarks (`perfgate-flamegraphs/NAME.diff.svg`) "
                 f"are in the artifacts of [this run]({run_url}).\n")
    return body


def main(argv):
    printable()
    if len(argv) != 3 or argv[1] not in ("github", "gitlab"):
        print("usage: comment.py github|gitlab REPORT.md", file=sys.stderr)
        return 2
    forge, path = argv[1], argv[2]
    try:
        report = open(path, encoding="utf-8", errors="replace").read()
    except OSError as e:
        print(escape(f"comment.py: cannot read the report {path}: {e.strerror}"), file=sys.stderr)
        return 2
    run_url = os.environ.get("PG_RUN_URL" if forge == "github" else "CI_PIPELINE_URL", "")
    try:
        what, cid = (github if forge == "github" else gitlab)(compose(report, run_url))
        print(escape(f"perfgate: {what} the {'pull' if forge == 'github' else 'merge'} request comment (id {cid})"))
    except (Skip, urllib.error.URLError, OSError, ValueError, RecursionError, http.client.HTTPException) as e:
        why = e.reason if isinstance(e, urllib.error.URLError) and not isinstance(e, urllib.error.HTTPError) else e
        if isinstance(e, urllib.error.HTTPError):
            why = f"HTTP {e.code} {e.reason}" + (" (a fork's pull request gets a read-only token)" if e.code == 403 else "")
        msg = f"the report was not commented on the request: {why}"
        print(warning(msg) if forge == "github" else f"perfgate: warning: {escape(msg)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
