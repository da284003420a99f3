#!/usr/bin/env python3
"""A small local stand-in for the GitHub Actions runner, enough to run
perfgate's action (ci/github/action.yml) and workflow template the way the
runner would: step by step, with `${{ }}` expressions evaluated in `env:`,
`with:`, `if:`, `working-directory:` and outputs; each `run:` script written
to a file and run by `bash --noprofile --norc -eo pipefail`; per-step
GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY files read back
after the step; workflow commands (::error::, ::stop-commands::) parsed from
the output. Local actions (`uses: ./dir`) run; remote ones (actions/checkout)
are skipped and recorded with their evaluated `with:`.

It refuses a `run:` script that holds an expression: inputs must reach
scripts through env (script injection), and an expression it cannot evaluate
is an error, never an empty string.

Usage:
  gha_run.py [options] action ACTION.yml      run a composite action
  gha_run.py [options] workflow WORKFLOW.yml  run every job's steps
  gha_run.py scripts FILE.yml OUTDIR          write each run: script to OUTDIR/N.sh
Options: --input NAME=VALUE (repeatable: the action's with:, or the local
action's inputs over the workflow's with:), --local-root DIR (where `uses: ./x`
resolves; default $GITHUB_WORKSPACE), --result FILE (JSON: conclusion,
exit_code, outputs, steps, annotations, skipped uses).
The caller's environment gives GITHUB_WORKSPACE, GITHUB_EVENT_PATH,
GITHUB_EVENT_NAME, RUNNER_TEMP; GITHUB_STEP_SUMMARY, GITHUB_OUTPUT and
GITHUB_PATH, when set, receive what the steps wrote (an action's outputs go
to GITHUB_OUTPUT, as the runner exposes them to the calling workflow).
Exit status: the first failed step's, 0 when the job succeeded, 3 for an
error of this script (bad YAML, unsupported expression).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml


class Unsupported(Exception):
    pass


# ---- expressions -----------------------------------------------------------

TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>-?\d+(?:\.\d+)?)|(?P<op>\|\||&&|==|!=|!|\(|\)|,)"
                   r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*))")


def tokenize(src):
    out, pos = [], 0
    while pos < len(src):
        if src[pos:].strip() == "":
            break
        m = TOKEN.match(src, pos)
        if not m:
            raise Unsupported(f"cannot parse expression at {src[pos:]!r} in {src!r}")
        pos = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


def truthy(v):
    return v not in (None, "", 0, False)


def as_string(v):
    if v is None:
        return ""
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


class Expr:
    """Recursive descent over: or := and ('||' and)*; and := cmp ('&&' cmp)*;
    cmp := unary (('=='|'!=') unary)?; unary := '!' unary | primary;
    primary := literal | name | name '(' ')' | '(' or ')'."""

    def __init__(self, src, ctx, status):
        self.src, self.ctx, self.status = src, ctx, status
        self.toks, self.i = tokenize(src), 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def parse(self):
        v = self.or_()
        if self.i != len(self.toks):
            raise Unsupported(f"unexpected {self.peek()[1]!r} in {self.src!r}")
        return v

    def or_(self):
        v = self.and_()
        while self.peek() == ("op", "||"):
            self.take()
            r = self.and_()
            v = v if truthy(v) else r
        return v

    def and_(self):
        v = self.cmp()
        while self.peek() == ("op", "&&"):
            self.take()
            r = self.cmp()
            v = r if truthy(v) else v
        return v

    def cmp(self):
        v = self.unary()
        if self.peek() in (("op", "=="), ("op", "!=")):
            op = self.take()[1]
            r = self.unary()
            a, b = as_string(v).lower(), as_string(r).lower()   # GitHub compares strings case-insensitively
            return (a == b) if op == "==" else (a != b)
        return v

    def unary(self):
        if self.peek() == ("op", "!"):
            self.take()
            return not truthy(self.unary())
        return self.primary()

    def primary(self):
        kind, text = self.take()
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind == "num":
            return float(text) if "." in text else int(text)
        if kind == "op" and text == "(":
            v = self.or_()
            if self.take() != ("op", ")"):
                raise Unsupported(f"missing ) in {self.src!r}")
            return v
        if kind == "name":
            if self.peek() == ("op", "("):
                self.take()
                if self.take() != ("op", ")"):
                    raise Unsupported(f"only functions without arguments are supported: {self.src!r}")
                return self.call(text)
            if text in ("true", "false"):
                return text == "true"
            if text == "null":
                return None
            return self.lookup(text)
        raise Unsupported(f"unexpected {text!r} in {self.src!r}")

    def call(self, fn):
        if fn == "always":
            return True
        if fn == "success":
            return self.status == "success"
        if fn == "failure":
            return self.status == "failure"
        if fn == "cancelled":
            return False
        raise Unsupported(f"function {fn}() is not supported here")

    def lookup(self, dotted):
        head, *rest = dotted.split(".")
        if head not in self.ctx:
            raise Unsupported(f"context {head!r} is not supported here ({self.src!r})")
        v = self.ctx[head]
        for part in rest:
            if isinstance(v, dict):
                v = v.get(part)
            else:
                return None
        return v


EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)


def evaluate(value, ctx, status="success"):
    """A YAML value with ${{ }} in it, as the runner would see it."""
    if not isinstance(value, str):
        return value
    whole = EXPR.fullmatch(value.strip()) if value.count("${{") == 1 else None
    if whole:
        return Expr(whole.group(1), ctx, status).parse()
    return EXPR.sub(lambda m: as_string(Expr(m.group(1), ctx, status).parse()), value)


def condition(step, ctx, status):
    cond = step.get("if")
    if cond is None:
        return status == "success"
    if isinstance(cond, bool):
        return cond
    cond = cond.strip()
    m = EXPR.fullmatch(cond)
    return truthy(Expr(m.group(1) if m else cond, ctx, status).parse())


# ---- files the steps write -------------------------------------------------

def read_kv(path):
    """GITHUB_OUTPUT / GITHUB_ENV: NAME=VALUE lines and NAME<<DELIM heredocs."""
    out = {}
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except FileNotFoundError:
        return out
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            body = []
            while i < len(lines) and lines[i] != delim:
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise Unsupported(f"{path}: heredoc {name} has no closing {delim}")
            i += 1
            out[name] = "\n".join(body)
        elif "=" in line:
            name, val = line.split("=", 1)
            out[name] = val
        else:
            raise Unsupported(f"{path}: a line that is neither NAME=VALUE nor NAME<<DELIM: {line!r}")
    return out


def unescape(s):
    return s.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


# ---- the runner ------------------------------------------------------------

class Job:
    def __init__(self, args, env):
        self.args = args
        self.env = env
        self.path_add = []          # GITHUB_PATH entries, newest first
        self.env_add = {}           # GITHUB_ENV
        self.annotations = []
        self.skipped_uses = []
        self.steps_log = []
        self.exit_code = 0
        self.tmp = tempfile.mkdtemp(prefix="gha-run.")
        self.nfile = 0
        event_path = env.get("GITHUB_EVENT_PATH")
        event = json.load(open(event_path)) if event_path else {}
        self.github = {k[7:].lower(): v for k, v in env.items() if k.startswith("GITHUB_")}
        self.github["event"] = event

    def newfile(self, name):
        self.nfile += 1
        p = os.path.join(self.tmp, f"{self.nfile}.{name}")
        open(p, "w").close()
        return p

    def run_script(self, step, script, shell, cwd, step_env, action_path):
        if "${{" in script:
            raise Unsupported(f"step {step.get('name') or step.get('id')!r}: an expression inside run: "
                              "(pass inputs through env:, never spliced into the script)")
        if shell == "bash":
            argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]
        elif shell == "sh":
            argv = ["sh", "-e"]
        else:
            raise Unsupported(f"shell {shell!r} is not supported")
        path = self.newfile("sh")
        with open(path, "w") as f:
            f.write(script)
        files = {k: self.newfile(k.lower()) for k in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
        env = dict(self.env)
        env.update(self.env_add)
        env.update({k: as_string(v) for k, v in step_env.items()})
        env.update(files)
        if action_path:
            env["GITHUB_ACTION_PATH"] = action_path
        env["PATH"] = os.pathsep.join(self.path_add + [env.get("PATH", "")])
        print(f"gha_run: run {step.get('name') or step.get('id') or 'step'} (cwd {cwd})", file=sys.stderr, flush=True)
        p = subprocess.Popen(argv + [path], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        stopped = None
        for raw in p.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            print(line, file=sys.stderr, flush=True)
            if stopped:
                if line == f"::{stopped}::":
                    stopped = None
                continue
            m = re.match(r"^::([a-z-]+)(?: ([^:]*))?::(.*)$", line)
            if not m:
                continue
            cmd, props, msg = m.groups()
            if cmd == "stop-commands":
                stopped = msg
            elif cmd in ("error", "warning", "notice"):
                self.annotations.append({"level": cmd, "properties": props or "", "message": unescape(msg)})
        rc = p.wait()
        outputs = read_kv(files["GITHUB_OUTPUT"])
        self.env_add.update(read_kv(files["GITHUB_ENV"]))
        for line in open(files["GITHUB_PATH"]).read().splitlines():
            if line:
                self.path_add.insert(0, line)
                self.append_caller("GITHUB_PATH", line + "\n")
        summary = open(files["GITHUB_STEP_SUMMARY"]).read()
        self.append_caller("GITHUB_STEP_SUMMARY", summary)
        return rc, outputs

    def append_caller(self, var, text):
        target = self.env.get(var)
        if target and text:
            with open(target, "a") as f:
                f.write(text)

    def run_steps(self, steps, ctx, base_env, default_cwd, action_path, where):
        """Runs STEPS in CTX; returns 'success' or 'failure'."""
        status = "success"
        ctx["steps"] = {}
        for n, step in enumerate(steps):
            sid = step.get("id") or f"__step{n}"
            label = f"{where}: {step.get('name') or step.get('uses') or sid}"
            if not condition(step, ctx, status):
                ctx["steps"][sid] = {"outputs": {}, "outcome": "skipped", "conclusion": "skipped"}
                self.steps_log.append({"step": label, "outcome": "skipped"})
                continue
            step_env = dict(base_env)
            for k, v in (step.get("env") or {}).items():
                step_env[k] = evaluate(v, ctx, status)
            ctx["env"] = {**self.env, **self.env_add, **{k: as_string(v) for k, v in step_env.items()}}
            if "run" in step:
                shell = step.get("shell") or ("bash" if action_path is None else None)
                if shell is None:
                    raise Unsupported(f"{label}: a run step of a composite action needs shell:")
                wd = evaluate(step.get("working-directory", default_cwd), ctx, status)
                cwd = os.path.join(self.env["GITHUB_WORKSPACE"], as_string(wd))
                rc, outputs = self.run_script(step, step["run"], shell, cwd, step_env, action_path)
            elif "uses" in step:
                rc, outputs = self.uses(step, ctx, status, label)
            else:
                raise Unsupported(f"{label}: neither run: nor uses:")
            ok = rc == 0 or truthy(evaluate(step.get("continue-on-error", False), ctx, status))
            ctx["steps"][sid] = {"outputs": outputs, "outcome": "success" if rc == 0 else "failure",
                                 "conclusion": "success" if ok else "failure"}
            self.steps_log.append({"step": label, "outcome": "success" if rc == 0 else "failure", "exit_code": rc})
            if not ok:
                status = "failure"
                if self.exit_code == 0:
                    self.exit_code = rc
        return status

    def uses(self, step, ctx, status, label):
        ref = step["uses"]
        with_ = {k: as_string(evaluate(v, ctx, status)) for k, v in (step.get("with") or {}).items()}
        if not ref.startswith("./"):
            print(f"gha_run: skipped {ref} (a remote action)", file=sys.stderr)
            self.skipped_uses.append({"uses": ref, "with": with_})
            return 0, {}
        root = self.args.get("local_root") or self.env["GITHUB_WORKSPACE"]
        path = os.path.normpath(os.path.join(root, ref))
        with_.update(self.args["inputs"])
        outputs, status_ = self.action(path, with_)
        return (0 if status_ == "success" else (self.exit_code or 1)), outputs

    def action(self, path, given):
        """Runs the composite action in directory PATH with inputs GIVEN;
        returns (its outputs, 'success' or 'failure')."""
        meta_file = os.path.join(path, "action.yml")
        meta = yaml.safe_load(open(meta_file))
        if (meta.get("runs") or {}).get("using") != "composite":
            raise Unsupported(f"{meta_file}: only composite actions are supported")
        declared = meta.get("inputs") or {}
        for k in given:
            if k not in declared:
                raise Unsupported(f"{meta_file}: no input named {k!r}")
        ctx = {"github": dict(self.github, action_path=path), "runner": {"temp": self.env.get("RUNNER_TEMP", ""), "os": "Linux"},
               "env": dict(self.env), "steps": {}}
        inputs = {}
        for k, spec in declared.items():
            spec = spec or {}
            if k in given:
                inputs[k] = given[k]
            elif "default" in spec:
                inputs[k] = as_string(evaluate(spec["default"], ctx))
            elif spec.get("required"):
                raise Unsupported(f"{meta_file}: input {k!r} is required")
            else:
                inputs[k] = ""
        ctx["inputs"] = inputs
        status = self.run_steps(meta["runs"]["steps"], ctx, {}, ".", path, os.path.basename(path) or path)
        outputs = {k: as_string(evaluate((spec or {}).get("value", ""), ctx, status))
                   for k, spec in (meta.get("outputs") or {}).items()}
        return outputs, status

    def workflow(self, path):
        wf = yaml.safe_load(open(path))
        status = "success"
        ctx = {"github": self.github, "runner": {"temp": self.env.get("RUNNER_TEMP", ""), "os": "Linux"},
               "env": dict(self.env), "secrets": {}, "vars": {}}
        wf_env = {k: evaluate(v, ctx) for k, v in (wf.get("env") or {}).items()}
        for name, job in (wf.get("jobs") or {}).items():
            job_env = dict(wf_env)
            job_env.update({k: evaluate(v, ctx) for k, v in (job.get("env") or {}).items()})
            cwd = ((job.get("defaults") or {}).get("run") or {}).get("working-directory", ".")
            if self.run_steps(job.get("steps") or [], ctx, job_env, cwd, None, name) != "success":
                status = "failure"
        return status


def extract_scripts(path, outdir):
    """Every run: script of an action or workflow, as OUTDIR/N.sh with the
    runner's bash options, for shellcheck. Prints the file names."""
    doc = yaml.safe_load(open(path))
    steps = list((doc.get("runs") or {}).get("steps") or [])
    for job in (doc.get("jobs") or {}).values():
        steps += job.get("steps") or []
    os.makedirs(outdir, exist_ok=True)
    n = 0
    for step in steps:
        if "run" in step:
            n += 1
            f = os.path.join(outdir, f"{n}.sh")
            with open(f, "w") as out:
                out.write(f"#!/usr/bin/env bash\n# {path}: {step.get('name', '')}\nset -eo pipefail\n{step['run']}")
            print(f)
    return 0


def main(argv):
    opts = {"inputs": {}, "local_root": None, "result": None}
    rest = []
    it = iter(argv)
    for a in it:
        if a == "--input":
            k, _, v = next(it).partition("=")
            opts["inputs"][k] = v
        elif a == "--local-root":
            opts["local_root"] = next(it)
        elif a == "--result":
            opts["result"] = next(it)
        else:
            rest.append(a)
    if len(rest) == 3 and rest[0] == "scripts":
        return extract_scripts(rest[1], rest[2])
    if len(rest) != 2 or rest[0] not in ("action", "workflow"):
        print(__doc__, file=sys.stderr)
        return 3
    env = dict(os.environ)
    if "GITHUB_WORKSPACE" not in env:
        print("gha_run.py: GITHUB_WORKSPACE is not set", file=sys.stderr)
        return 3
    job = Job(opts, env)
    result = {}
    try:
        if rest[0] == "action":
            outputs, status = job.action(os.path.dirname(os.path.abspath(rest[1])), opts["inputs"])
            job.append_caller("GITHUB_OUTPUT", "".join(f"{k}={v}\n" for k, v in outputs.items()))
            result["outputs"] = outputs
        else:
            status = job.workflow(rest[1])
    except (Unsupported, yaml.YAMLError, OSError) as e:
        print(f"gha_run.py: {e}", file=sys.stderr)
        return 3
    result.update(conclusion=status, exit_code=job.exit_code, steps=job.steps_log,
                  annotations=job.annotations, skipped_uses=job.skipped_uses)
    if opts["result"]:
        with open(opts["result"], "w") as f:
            json.dump(result, f, indent=1)
    print(f"gha_run: {status}, exit {job.exit_code}", file=sys.stderr)
    return job.exit_code if status != "success" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
