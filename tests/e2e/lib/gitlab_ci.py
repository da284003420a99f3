#!/usr/bin/env python3
"""Checks a GitLab CI file against the keywords GitLab accepts, and turns one
job into the shell script a GitLab runner would run.

  gitlab_ci.py check FILE        one line per problem; exit 1 when any
  gitlab_ci.py script FILE JOB   prints the job's variables (the caller's
                                 environment wins, as project CI/CD variables
                                 do), before_script and script as one bash
                                 script run with `set -eo pipefail`, as the
                                 runner runs them: one shell for both lists
"""
import shlex
import sys

import yaml

GLOBAL = {"default", "include", "stages", "variables", "workflow", "spec"}
JOB = {"after_script", "allow_failure", "artifacts", "before_script", "cache", "coverage", "dast_configuration",
       "dependencies", "environment", "extends", "hooks", "id_tokens", "identity", "image", "inherit",
       "interruptible", "manual_confirmation", "needs", "pages", "parallel", "release", "resource_group", "retry",
       "rules", "run", "script", "secrets", "services", "stage", "tags", "timeout", "trigger", "variables", "when"}
RULE = {"if", "changes", "exists", "when", "allow_failure", "variables", "needs", "interruptible"}
ARTIFACTS = {"paths", "exclude", "expire_in", "expose_as", "name", "public", "access", "reports", "untracked", "when"}
REPORTS = {"accessibility", "annotations", "api_fuzzing", "browser_performance", "coverage_report", "codequality",
           "container_scanning", "coverage_fuzzing", "cyclonedx", "dast", "dependency_scanning", "dotenv", "junit",
           "license_scanning", "load_performance", "metrics", "requirements", "repository_xray", "sast",
           "secret_detection", "terraform"}
DEFAULT_STAGES = [".pre", "build", "test", "deploy", ".post"]


def strings(v):
    """A script list: a string, or a list of strings (nested lists are flattened by GitLab)."""
    if isinstance(v, str):
        return [v]
    if isinstance(v, list):
        out = []
        for x in v:
            out += strings(x) if isinstance(x, list) else ([x] if isinstance(x, str) else [None])
        return out
    return [None]


def check(path):
    doc = yaml.safe_load(open(path))
    bad = []
    if not isinstance(doc, dict):
        return [f"{path}: the top level is not a mapping"]
    stages = doc.get("stages", DEFAULT_STAGES)
    for name, job in doc.items():
        if name in GLOBAL or name.startswith("."):
            continue
        where = f"{path}: job {name}"
        if not isinstance(job, dict):
            bad.append(f"{where}: not a mapping (and {name!r} is no global keyword)")
            continue
        for k in job:
            if k not in JOB:
                bad.append(f"{where}: unknown keyword {k!r}")
        if "script" not in job and "trigger" not in job and "run" not in job:
            bad.append(f"{where}: no script")
        for k in ("before_script", "script", "after_script"):
            if k in job and (None in strings(job[k]) or not strings(job[k])):
                bad.append(f"{where}: {k} must be a string or a list of strings")
        if job.get("stage", "test") not in stages:
            bad.append(f"{where}: stage {job.get('stage')!r} is not among the stages {stages}")
        for i, rule in enumerate(job.get("rules", [])):
            if not isinstance(rule, dict) or set(rule) - RULE:
                bad.append(f"{where}: rules[{i}] has unknown keys {sorted(set(rule) - RULE) if isinstance(rule, dict) else rule}")
        for k, v in (job.get("variables") or {}).items():
            if isinstance(v, bool) or not isinstance(v, (str, int, float, dict)):
                bad.append(f"{where}: variable {k} must be a string or a number, not {v!r}")
        img = job.get("image")
        if img is not None and not (isinstance(img, str) or (isinstance(img, dict) and "name" in img)):
            bad.append(f"{where}: image must be a string or have a name")
        art = job.get("artifacts")
        if art is not None:
            for k in set(art) - ARTIFACTS:
                bad.append(f"{where}: artifacts: unknown keyword {k!r}")
            if art.get("when", "on_success") not in ("on_success", "on_failure", "always"):
                bad.append(f"{where}: artifacts: when {art['when']!r}")
            for k in set(art.get("reports") or {}) - REPORTS:
                bad.append(f"{where}: artifacts: reports: unknown report {k!r}")
            if None in strings(art.get("paths", [])):
                bad.append(f"{where}: artifacts: paths must be strings")
    return bad


def script(path, name):
    job = yaml.safe_load(open(path))[name]
    out = ["set -eo pipefail"]
    for k, v in (job.get("variables") or {}).items():
        v = v.get("value", "") if isinstance(v, dict) else str(v)
        out.append(f'if [ -z "${{{k}+set}}" ]; then export {k}={shlex.quote(v)}; fi')
    for line in strings(job.get("before_script", [])) + strings(job["script"]):
        out.append(line)
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) == 2 and argv[0] == "check":
        problems = check(argv[1])
        for p in problems:
            print(p)
        print(f"gitlab_ci.py: {len(problems)} problem{'' if len(problems) == 1 else 's'} in {argv[1]}")
        return 1 if problems else 0
    if len(argv) == 3 and argv[0] == "script":
        sys.stdout.write(script(argv[1], argv[2]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
