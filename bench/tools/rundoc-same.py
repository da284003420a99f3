#!/usr/bin/env python3
"""Two perfgate builds read the same result documents the same way: every
output byte and exit code of show, show --format json and compare (text,
markdown, json; each document as baseline and as candidate) on valid,
mutated, malformed and truncated documents, small and large (10^3
benchmarks, compact and pretty-printed, arrays crossing the 64 KiB pieces
a file is read in). For a change to the reader (harness/store/rundoc_read.c,
util/json_scratch.c), whose output must not move.

    bench/tools/rundoc-same.py OLD/perfgate NEW/perfgate [WORKDIR] [--every N]

--every N keeps every Nth document (tests/e2e/bench_tools.sh's short mode).

Prints each difference and "N documents, M invocations, K different";
exits 1 when K > 0.
"""
import concurrent.futures, copy, json, os, random, subprocess, sys, tempfile

args = sys.argv[1:]
every = 1
if "--every" in args:
    at = args.index("--every")
    every = int(args[at + 1])
    del args[at:at + 2]
old, new = args[:2]
scratch = None if len(args) > 2 else tempfile.TemporaryDirectory(prefix="rundoc-same.")   # removed at exit
work = args[2] if len(args) > 2 else scratch.name
os.makedirs(work, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
rng = random.Random(7)


def run_doc(nb, ns, seed=1, floats=False):
    r = random.Random(seed)
    metrics = [("instructions", "count", 1e7, 0.001), ("cycles", "count", 2e7, 0.03), ("wall-time", "ns", 5e6, 0.04)]
    bs = []
    for i in range(nb):
        m = {}
        for name, unit, base, noise in metrics:
            v = [base * (1 + r.gauss(0, noise)) for _ in range(ns)]
            v = [round(x, 3) if floats and unit == "ns" else round(x) for x in v]
            m[name] = {"unit": unit, "backend": "os" if unit == "ns" else "perf", "samples": v, "running": [1] * ns}
        bs.append({"name": "bench-%05d" % i, "status": "ok", "runs": ns, "metrics": m})
    return {"schema": "perfgate-run/1", "perfgate_version": "t", "id": "x", "commit": None, "dirty": False,
            "machine": {"id": "5ca1e0000001", "cpu_model": "any", "kernel": "any", "cores": 2},
            "backend": "perf", "settings": {}, "uncontrolled": [], "notices": [], "benchmarks": bs}


docs = []          # (name, text)
small = run_doc(3, 4)
big = run_doc(1000, 10, seed=2)
bigf = run_doc(1000, 10, seed=3, floats=True)
for name, d in [("small", small), ("big", big), ("bigfloat", bigf)]:
    docs.append((name, json.dumps(d)))
    docs.append((name + "-pretty", json.dumps(d, indent=1)))
    docs.append((name + "-tabs", json.dumps(d, indent="\t", separators=(" ,\r\n", " :\t"))))
    docs.append((name + "-store", json.dumps({"schema": "perfgate-store/1", "commit": None, "machine_id": "m", "runs": [d, d]})))
    docs.append((name + "-array", json.dumps([d])))
for sub in ("corpus", "regressions"):
    dd = os.path.join(root, "tests/fuzz", sub, "result")
    for f in sorted(os.listdir(dd)) if os.path.isdir(dd) else []:
        docs.append((sub + "-" + f, open(os.path.join(dd, f), "rb").read()))

# Text-level mutations of a sample (the reader's fast path: numbers in arrays).
tokens = ["-5", "1.5", "1e3", "1E+2", "01", "-0", "-", "1.", "1e", "0", "00", "-01", "+1", ".5", "123456789012345",
          "-123456789012345", "1234567890123456", "12345678901234567890", "9007199254740993", "0.1", "-0.0", "1e999",
          "-1e999", "123456789012345678901234567890123456789", "\"x\"", "null", "true", "[2]", "{}", "", " ", "1 2",
          "1,", ",1", "1]", "[1", "NaN", "Infinity", "0x10", "1\n", "\t7\r\n", "4294967296", "2.5e-3", "1e-400",
          "\"\\u0000\"", "\"[1,2]\"", "99999999", "100000000", "12345678"]
base_text = json.dumps(small)
for where in ("samples\": [", "running\": ["):
    at = base_text.index(where) + len(where)
    end = base_text.index("]", at)
    for t in tokens:
        docs.append(("first %s%s" % (where, t), base_text[:at] + t + base_text[at:]))
        docs.append(("only %s%s" % (where, t), base_text[:at] + t + base_text[end:]))
        docs.append(("last %s%s" % (where, t), base_text[:end] + ", " + t + base_text[end:]))
for t in ["[]", "[ ]", "[1,]", "[,1]", "[1 2]", "[1,,2]", "[1]]", "[[1]]", "[1, [2]]", "[1, {}]", "[1, null]", "[0.5, 1]",
          "[1, 1, 1]", "[1, 1, 1, 1, 1]", "[2, 1, 1, 1]", "\"x\"", "{}", "null", "[\n1\n,\n2\n,\n3,4]"]:
    for key in ("samples", "running"):
        at = base_text.index('"%s": [' % key) + len('"%s": ' % key)
        end = base_text.index("]", at) + 1
        docs.append(("%s = %s" % (key, t), base_text[:at] + t + base_text[end:]))
# A metric object (read member by member outside yajl while its members are
# plain) broken at each place: each object replaces the first metric's.
objs = ['{"unit": "count", "backend": "perf", "samples": [1, 2, 3, 4], "running": [1, 1, 1, 1],}',
        '{"unit": "count" "backend": "perf", "samples": [1, 2, 3, 4]}', '{"unit": "count", "backend" "perf"}',
        '{"unit": "count", "backend": "perf", "samples": [1, 2, 3, 4]', '{"unit": "count", "backend": perf}',
        '{"unit": "count", "backend": "perf", "samples": [1, 2, 3, 4] "running": [1]}', '{,"unit": "count"}',
        '{"unit": "count", "backend": "perf", "samples": [1, 2, 3, 4], "runs": 01}', '{"unit": "count",, "x": 1}',
        '{"unit": "count", "backend": "perf", "samples": [1, 2, 3, 4], "n": 1.5}', '{"unit": "count", "unit": "ns"}',
        '{"unit": "count", "backend": "perf", "samples": [1, 2, 3, 4], "n": -}', '{"unit": "count", "b": tru}',
        '{"unit": "count", "backend": "perf", "samples": [1, 2, 3, 4], "x": true, "running": [1, 1, 1, 1]}',
        '{"unit": "count", "backend": "perf", "samples": [1, 2, 3, 4], "x": null}', '{"unit": "c\\u00e9"}',
        '{"unit": "count", "backend": "perf", "samples": [1, 2, 3, 4], "running": [1, 1, 1, 1], "k\\u0000": 1}',
        '{"unit": "count", "backend": "p\\u0000", "samples": [1, 2, 3, 4]}', '{"unit": "count", "backend": "perf", '
        '"samples": [1, 2, 3, 4], "x": {"a": [1, 2]}, "running": [1, 1, 1, 1]}', '{"unit": "count", "x": [1, 2}',
        '{"unit": "count", "x": [1, 2]}}', '{"unit": "count", "x": 123456789012345678, "backend": "perf", '
        '"samples": [1, 2, 3, 4]}', '{"unit": "count", "x": 12x}', '{"unit": "count", "x": 12 }',
        '{"unit":"count","backend":"perf","samples":[1,2,3,4],"running":[1,1,1,1]}', '{ }', '{}', '{"unit"}',
        '{"unit": "\u00e9", "backend": "perf", "samples": [1, 2, 3, 4]}', '{"unit": "count", "x": "\t"}',
        '{"unit": "count", "backend": "perf", "samples": [1, 2, 3, 4], "running": [1, 1, 1, 1]} x']
at = base_text.index('{"unit": "count"')
end = base_text.index("}", at) + 1
for o in objs:
    docs.append(("metric %s" % o, base_text[:at] + o + base_text[end:]))
    docs.append(("bench %s" % o, base_text.replace('"status": "ok", ', o[1:-1] + ", ", 1) if o.endswith("}") and len(o) > 3 else base_text))
for depth in (996, 997, 998, 999):
    docs.append(("deep object %d" % depth, base_text.replace('"runs": 4', '"runs": 4, "d": ' + '{"a": ' * depth + '{"n": 1, "s": [1, 2]}' + "}" * depth, 1)))
    docs.append(("deep mixed %d" % depth, base_text.replace('"runs": 4', '"runs": 4, "d": ' + '[{"a": ' * (depth // 2) + '{"n": [1, 2]}' + "}]" * (depth // 2), 1)))
# Strings and keys the quote-following scan must see right.
names = ["x: [1, 2]", "a\\\"[1]", "a\\\\", "a\\\\\\\"[3]\\\\", "[", "]", "\\u005b1]", "tab\\there", "\\u0000", "a\\u0000b",
         "\\ud800", "\u00e9", "\\\\[1,2]\\\\"]
for n in names:
    docs.append(("name %s" % n, base_text.replace('"bench-00001"', '"%s"' % n, 1)))
    docs.append(("unit %s" % n, base_text.replace('"unit": "count"', '"unit": "%s"' % n, 1)))
    docs.append(("key %s" % n, base_text.replace('"runs": 4', '"%s": [1, 2], "runs": 4' % n, 1)))
docs.append(("bad utf-8 name", base_text.replace("bench-00001", "bench-\udcff", 1)))
docs.append(("duplicate key in a metric", base_text.replace('"unit": "count"', '"unit": "count", "unit": "ns"', 1)))
docs.append(("duplicate samples", base_text.replace('"samples": [', '"samples": [1], "samples": [', 1)))
docs.append(("unknown key in a metric", base_text.replace('"unit": "count"', '"unit": "count", "extra": [1, 2]', 1)))
docs.append(("unknown key in a bench", base_text.replace('"runs": 4', '"runs": 4, "zz": {"a": [1, 2.5]}', 1)))
docs.append(("metric twice", base_text.replace('"cycles"', '"instructions"', 1)))
docs.append(("benchmark twice", base_text.replace('"bench-00001"', '"bench-00000"', 1)))
docs.append(("running short", base_text.replace('"running": [1, 1, 1, 1]', '"running": [1, 1, 1]', 1)))
docs.append(("no running", base_text.replace(', "running": [1, 1, 1, 1]', '', 1)))
docs.append(("unit null", base_text.replace('"unit": "count"', '"unit": null', 1)))
docs.append(("no unit", base_text.replace('"unit": "count", ', '', 1)))
docs.append(("backend number", base_text.replace('"backend": "perf"', '"backend": 5', 1)))
docs.append(("metric empty name", base_text.replace('"cycles"', '""', 1)))
docs.append(("metric not an object", base_text.replace('"cycles": {', '"cycles": [1, 2], "x": {', 1)))
docs.append(("samples object", base_text.replace('"samples": [', '"samples": {"a": [', 1).replace("]", "]}", 1)))
docs.append(("deep", base_text.replace('"runs": 4', '"runs": 4, "d": ' + "[" * 1100 + "1" + "]" * 1100, 1)))
docs.append(("deep 999", base_text.replace('"runs": 4', '"runs": 4, "d": ' + "[" * 996 + "1" + "]" * 996, 1)))
docs.append(("deep 1000", base_text.replace('"runs": 4', '"runs": 4, "d": ' + "[" * 997 + "1" + "]" * 997, 1)))
docs.append(("benchmarks numbers", base_text.replace('"benchmarks": [', '"benchmarks": [1, 2, ', 1)))
docs.append(("benchmarks only numbers", base_text[:base_text.index('"benchmarks": [')] + '"benchmarks": [1, 2]}'))
docs.append(("runs numbers", json.dumps({"schema": "perfgate-store/1", "commit": None, "machine_id": "m", "runs": [1, 2]})))
docs.append(("root numbers", "[1, 2, 3]"))
docs.append(("root number", "7"))
docs.append(("empty", ""))
docs.append(("trailing", base_text + " [1]"))
docs.append(("trailing garbage", base_text + "x"))
docs.append(("a long string with brackets", base_text.replace('"runs": 4', '"runs": 4, "s": "%s"' % ("[1, 2] \\\" " * 20000), 1)))
docs.append(("a long string then arrays", base_text.replace('"runs": 4', '"runs": 4, "s": "%s", "t": [%s]' % ("\\\\" * 40000, ", ".join(["12345678"] * 9000)), 1)))
# Truncated at many places, small and large.
for i in sorted(set(rng.randrange(1, len(base_text)) for _ in range(150))):
    docs.append(("small cut at %d" % i, base_text[:i]))
big_text = json.dumps(big)
for i in sorted(set(rng.randrange(1, len(big_text)) for _ in range(25))) + [65536, 65537, 131071, 131072]:
    docs.append(("big cut at %d" % i, big_text[:i]))
# A byte changed in the large document, here and there.
for i in sorted(set(rng.randrange(1, len(big_text)) for _ in range(40))):
    for c in "x]-":
        docs.append(("big byte %d = %s" % (i, c), big_text[:i] + c + big_text[i + 1:]))
# Every key of a small store document deleted, every value replaced (as
# tests/e2e/lib/mutate.py, fewer replacements).
def paths(v, p=()):
    yield p
    for k, x in (v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()):
        yield from paths(x, p + (k,))


def get(v, p):
    for k in p:
        v = v[k]
    return v


store = {"schema": "perfgate-store/1", "commit": None, "machine_id": "m", "runs": [run_doc(2, 3, seed=5)]}
for p in list(paths(store))[1:]:
    if isinstance(get(store, p[:-1]), dict):
        d = copy.deepcopy(store)
        del get(d, p[:-1])[p[-1]]
        docs.append(("delete %s" % (p,), json.dumps(d)))
    for r in ["x", "", -1, 0, 0.5, 1e308, 2**63, None, True, [], {}, [1, "x"], [7], {"a": [1]}]:
        d = copy.deepcopy(store)
        get(d, p[:-1])[p[-1]] = r
        docs.append(("set %s = %r" % (p, r), json.dumps(d)))

ref = os.path.join(work, "ref.json")
with open(ref, "w") as f:
    f.write(json.dumps(run_doc(3, 4, seed=9)))


def invocations(path):
    yield ["show", path]
    yield ["show", "--format", "json", path]
    for fmt in ("text", "markdown", "json"):
        yield ["compare", "--allow-missing", "--format", fmt, ref, path]
    yield ["compare", "--allow-missing", path, ref]


jobs = []
docs = docs[::every]
for i, (what, text) in enumerate(docs):
    p = os.path.join(work, "d%04d.json" % i)
    with open(p, "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"))
    for argv in invocations(p):
        jobs.append((what, argv))


exits = {}


def check(job):
    what, argv = job
    a = subprocess.run([old] + argv, capture_output=True, timeout=300)
    b = subprocess.run([new] + argv, capture_output=True, timeout=300)
    exits[a.returncode] = exits.get(a.returncode, 0) + 1
    if (a.returncode, a.stdout, a.stderr) != (b.returncode, b.stdout, b.stderr):
        return "DIFFERENT: %s: perfgate %s\n  old: exit %d %r\n  new: exit %d %r" % (
            what, " ".join(argv), a.returncode, a.stderr[:300], b.returncode, b.stderr[:300])
    return None


with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    problems = [p for p in pool.map(check, jobs) if p]
for p in problems:
    print(p)
print("%d documents, %d invocations (exit %s), %d different" % (
    len(docs), len(jobs), ", ".join("%d: %d" % kv for kv in sorted(exits.items())), len(problems)))
sys.exit(1 if problems else 0)
