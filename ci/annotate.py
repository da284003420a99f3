#!/usr/bin/env python3
"""ci/annotate.py - a regression marked on the changed lines it runs through.

    annotate.py github REPORT.json              (the action: workflow commands on stdout)
    annotate.py gitlab REPORT.json OUT.json     (the GitLab job: a code quality report)

REPORT.json is `perfgate compare --format json` with the coverage of the
change (docs/coverage.md: the candidate's stacks were recorded). For each
changed function that a regressed benchmark runs, one annotation on the
first changed line of that function: which benchmark regressed, by how much
on its gating metric, and the function's own share of it. GitHub shows
`::warning file=F,line=L::` on the pull request's diff; GitLab shows a code
quality report's findings on the merge request's diff.

The report is data from the pull request (file and function names are the
pull request's): every field is escaped for the workflow command it goes
into (ci/workflow.py), so no name can start a command of its own. A report
that does not read (bad JSON, nested past Python's recursion limit, a number
no float holds) is one warning line and exit 0: annotations are a courtesy,
not the gate. A usage error exits 2. Python's standard library only.
"""
import hashlib
import json
import sys

sys.dont_write_bytecode = True      # no __pycache__ left in the action's checkout
from workflow import escape, printable, warning  # noqa: E402  (ci/, beside this file)

MAX = 50        # GitHub shows at most 10 warnings a step on the diff; the rest stay in the log


def gating(bench):
    """The benchmark's regressed gating metrics: 'instructions +3.50% (+7,000)'."""
    out = []
    for m in bench.get("metrics") or []:
        if isinstance(m, dict) and m.get("gating") and m.get("verdict") == "regressed":
            pct = m.get("delta_pct")
            pct = f"{pct:+.2f}%" if isinstance(pct, (int, float)) else "?"
            out.append(f"{m.get('name')} {pct}")
    return ", ".join(out) or "regressed"


def findings(report):
    """(file, line, function, message, fingerprint) per changed function a regressed benchmark runs."""
    cov = report.get("coverage")
    if not isinstance(cov, dict):
        return []
    regressed = {b.get("name"): b for b in report.get("benchmarks") or []
                 if isinstance(b, dict) and b.get("verdict") == "regressed"}
    unit = cov.get("unit") or ""
    out = []
    for f in cov.get("changed") or []:
        if not isinstance(f, dict) or not isinstance(f.get("file"), str) or not isinstance(f.get("line"), int):
            continue
        for b in f.get("benchmarks") or []:
            if not isinstance(b, dict) or b.get("name") not in regressed:
                continue
            d = b.get("delta")
            own = f"; {f.get('function')}'s own cost {d:+,.0f} {unit}" if isinstance(d, (int, float)) else ""
            msg = (f"{b['name']} regressed ({gating(regressed[b['name']])}) and runs {f.get('function')}, "
                   f"changed here{own}")
            key = f"{f['file']}\0{f.get('function')}\0{b['name']}".encode("utf-8", "surrogatepass")
            key = hashlib.sha1(key).hexdigest()
            out.append((f["file"], f["line"], f.get("function"), msg, key))
    return out[:MAX]


def main(argv):
    printable()
    if len(argv) not in (3, 4) or argv[1] not in ("github", "gitlab") or (argv[1] == "gitlab") != (len(argv) == 4):
        print("usage: annotate.py github REPORT.json | annotate.py gitlab REPORT.json OUT.json", file=sys.stderr)
        return 2
    forge, path = argv[1], argv[2]
    try:
        with open(path, encoding="utf-8") as fh:
            report = json.load(fh)
        if not isinstance(report, dict):
            raise ValueError("not a JSON object")
        found = findings(report)
    except (OSError, ValueError, TypeError, AttributeError, OverflowError, RecursionError) as e:
        msg = f"no annotations: {path}: {e}"
        print(warning(msg) if forge == "github" else f"perfgate: warning: {escape(msg)}")
        return 0
    if forge == "github":
        for file, line, _, msg, _ in found:
            print(f"::warning file={escape(file, True)},line={line},title=perfgate::{escape(msg)}")
        return 0
    quality = [{"description": msg, "check_name": "perfgate-regression", "fingerprint": key, "severity": "major",
                "location": {"path": file, "lines": {"begin": line}}} for file, line, _, msg, key in found]
    with open(argv[3], "w", encoding="utf-8") as fh:
        json.dump(quality, fh, indent=1)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
