#!/usr/bin/env python3
"""Mutated result documents against perfgate's reader.

    mutate.py PERFGATE BASE.json WORKDIR [--every N]

Takes a valid run document, wraps it in a store document, and writes one
mutated copy per (JSON path, mutation): every key deleted, every value
replaced by a value of each other type, huge and non-finite numbers, "NaN"
strings, nested garbage, control characters, wrong schemas. Each copy goes
through `show --format json`, `show` and `compare` (as baseline and as
candidate, against BASE). Every invocation must exit 0, 1 or 2; an exit 2
must print exactly one line, naming the mutated file; nothing may print a
sanitizer report. --every N keeps every Nth mutation (the quick e2e run).
Prints "N inputs, M invocations, K bad" and exits 1 when K > 0.
"""
import concurrent.futures, copy, json, os, subprocess, sys

perfgate, base_path, work = sys.argv[1:4]
every = int(sys.argv[sys.argv.index("--every") + 1]) if "--every" in sys.argv else 1
os.makedirs(work, exist_ok=True)
base = json.load(open(base_path))
store = {"schema": "perfgate-store/1", "commit": base.get("commit"), "machine_id": base["machine"]["id"], "runs": [base]}

RAW_INF = "@@RAW_INF@@"
RAW_NEGINF = "@@RAW_NEGINF@@"
RAW_BIGINT = "@@RAW_BIGINT@@"
deep = []
for _ in range(60):
    deep = [deep]
replacements = [
    "x", "", "NaN", "Infinity", "\u001b[2J\u0007", "a" * 5000, -1, 0, 0.5, 1e308, -1e308, 2**31, 2**63,
    RAW_INF, RAW_NEGINF, RAW_BIGINT, None, True, False, [], {}, ["x", None, {}], {"a": {"b": [1, "x", None]}}, deep,
]


def paths(v, p=()):
    yield p
    if isinstance(v, dict):
        for k in v:
            yield from paths(v[k], p + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from paths(x, p + (i,))


def get(v, p):
    for k in p:
        v = v[k]
    return v


def dump(doc):
    t = json.dumps(doc, indent=1)
    return (t.replace('"%s"' % RAW_INF, "1e999").replace('"%s"' % RAW_NEGINF, "-1e999")
             .replace('"%s"' % RAW_BIGINT, "123456789012345678901234567890123456789"))


docs = []
for p in list(paths(store)):
    if not p:
        continue
    parent, key = get(store, p[:-1]), p[-1]
    if isinstance(parent, dict):
        d = copy.deepcopy(store)
        del get(d, p[:-1])[key]
        docs.append(("delete " + ".".join(map(str, p)), dump(d)))
    for r in replacements:
        d = copy.deepcopy(store)
        get(d, p[:-1])[key] = r
        docs.append(("set " + ".".join(map(str, p)) + " = " + repr(r)[:40], dump(d)))
# The shapes named in issue 8, the schemas, and the other document forms.
special = []
d = copy.deepcopy(store); d["runs"][0]["benchmarks"][0]["metrics"] = [{"unit": "count"}]; special.append(("metrics as an array", d))
for s in ["perfgate-run/2", "perfgate-run/1.3", "perfgate-run/1.x", "perfgate-run/", "perfgate-run/10", "PERFGATE-RUN/1"]:
    d = copy.deepcopy(store); d["runs"][0]["schema"] = s; special.append(("run schema " + s, d))
for s in ["perfgate-store/2", "perfgate-store/1.1", "perfgate-store"]:
    d = copy.deepcopy(store); d["schema"] = s; special.append(("store schema " + s, d))
d = copy.deepcopy(base); del d["schema"]; special.append(("bare run without schema", d))
special.append(("bare run", copy.deepcopy(base)))
special.append(("array of runs", [copy.deepcopy(base), copy.deepcopy(base)]))
special.append(("array of garbage", [1, "x", None]))
d = copy.deepcopy(store); d["runs"][0]["benchmarks"].append(copy.deepcopy(d["runs"][0]["benchmarks"][0])); special.append(("benchmark twice", d))
d = copy.deepcopy(store)
for b in d["runs"][0]["benchmarks"]:
    b["status"] = "failed"; b["metrics"] = {}; b["failure"] = {"reason": "boom"}
special.append(("every benchmark failed, no metrics", d))
docs = docs[::every] + [(n, dump(x)) for n, x in special]

def check(job):
    """One invocation: None when it behaved, else what was wrong."""
    what, f, argv = job
    r = subprocess.run([perfgate] + argv, capture_output=True, text=True, errors="replace", timeout=120)
    err = r.stderr
    problem = None
    if r.returncode not in (0, 1, 2):
        problem = "exit %d" % r.returncode
    elif "Sanitizer" in err or "runtime error" in err:
        problem = "sanitizer report"
    elif r.returncode == 2 and (err.count("\n") != 1 or f not in err):
        problem = "exit 2 without a one-line message naming the file"
    if problem:
        return "BAD (%s): %s: perfgate %s\n  %s" % (problem, what, " ".join(argv), err.strip()[:600].replace("\n", "\n  "))
    return None


jobs = []
for i, (what, text) in enumerate(docs):
    f = os.path.join(work, "m%04d.json" % i)
    with open(f, "w") as out:
        out.write(text)
    for argv in (["show", "--format", "json", f], ["show", f], ["compare", "--allow-missing", f, base_path], ["compare", "--allow-missing", base_path, f]):
        jobs.append((what, f, argv))
# The invocations are independent: one per CPU at a time (results in order).
with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
    problems = [p for p in pool.map(check, jobs) if p]
for p in problems:
    print(p)
print("%d inputs, %d invocations, %d bad" % (len(docs), len(jobs), len(problems)))
sys.exit(1 if problems else 0)
