#!/usr/bin/env python3
"""Reads back the profiles perfgate writes and compares them with the folded
stacks they were made from.

  profile_check.py pprof DECODED.txt FOLDED TYPE
      DECODED.txt is `protoc --decode=perftools.profiles.Profile
      profile.proto` of the .pb (protobuf's own decoder). Checks
      string_table[0] == "", sample_type and period_type [TYPE, "count"],
      period 1, ids from 1, every location one line naming a function, and
      that the samples, read leaf first, are FOLDED's stacks with its counts.
  profile_check.py pprof-sample DECODED.txt LEAF;...;ROOT VALUE
      There is a sample whose locations, leaf first, name these functions,
      with this value.
  profile_check.py pprof-source DECODED.txt FUNCTION FILE LINE MODULE BUILD_ID
      FUNCTION has that source file and start line, its location that line
      and the mapping of MODULE, which has that build id and says it has
      functions, file names and line numbers.
  profile_check.py speedscope FILE.speedscope.json FOLDED
      Checks the file format's structure, that the weights add up to
      endValue and FOLDED's total, and that the samples, root first, are
      FOLDED's stacks with its counts.
Prints what differs and exits 1."""
import ast
import json
import sys
from collections import Counter


def folded(path):
    out = Counter()
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\r\n").strip()
        if line:
            stack, _, count = line.rpartition(" ")
            out[stack.strip()] += int(count)
    return +out


def text_format(text):
    """protoc's text format as nested dicts of lists (enough for a Profile)."""
    root, stack = {}, []
    cur = root
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            child = {}
            cur.setdefault(line[:-1].strip(), []).append(child)
            stack.append(cur)
            cur = child
        elif line == "}":
            cur = stack.pop()
        else:
            k, _, v = line.partition(":")
            v = v.strip()
            val = ast.literal_eval(v) if v.startswith('"') else {"true": True, "false": False}.get(v)
            cur.setdefault(k.strip(), []).append(int(v) if val is None else val)
    return root


def utf8(s):
    """protoc writes a string's bytes outside ASCII as octal escapes, which
    literal_eval reads as code points under 256: the bytes, read as UTF-8."""
    try:
        return s.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return s


def bad(msgs):
    for m in msgs:
        print(m)
    sys.exit(1 if msgs else 0)


def pprof(decoded, want, typ, sample=None):
    p = text_format(open(decoded, encoding="utf-8").read())
    msgs = []
    st = [utf8(s) for s in p.get("string_table", [])]
    if sample:
        names = {f["id"][0]: st[f["name"][0]] for f in p.get("function", [])}
        loc = {l["id"][0]: names[l["line"][0]["function_id"][0]] for l in p.get("location", [])}
        leaf_first, value = sample
        hit = any(";".join(loc[i] for i in s["location_id"]) == leaf_first and s["value"] == [value]
                  for s in p.get("sample", []))
        return [] if hit else ["no sample %s with value %d" % (leaf_first, value)]
    if not st or st[0] != "":
        msgs.append("string_table[0] is not the empty string")
    def vt(v):
        return [st[v.get("type", [0])[0]], st[v.get("unit", [0])[0]]]
    if [vt(v) for v in p.get("sample_type", [])] != [[typ, "count"]]:
        msgs.append("sample_type: %r" % [vt(v) for v in p.get("sample_type", [])])
    if [vt(v) for v in p.get("period_type", [])] != [[typ, "count"]] or p.get("period") != [1]:
        msgs.append("period_type/period: %r %r" % (p.get("period_type"), p.get("period")))
    funcs = {f["id"][0]: st[f["name"][0]] for f in p.get("function", [])}
    if sorted(funcs) != list(range(1, len(funcs) + 1)):
        msgs.append("function ids are not 1..%d" % len(funcs))
    if len(set(funcs.values())) != len(funcs):
        msgs.append("a function name is there twice")
    locs = {}
    for l in p.get("location", []):
        lines = l.get("line", [])
        if len(lines) != 1:
            msgs.append("location %d has %d lines" % (l["id"][0], len(lines)))
            continue
        locs[l["id"][0]] = funcs.get(lines[0]["function_id"][0], "?")
    if sorted(locs) != list(range(1, len(locs) + 1)):
        msgs.append("location ids are not 1..%d" % len(locs))
    got = Counter()
    for s in p.get("sample", []):
        if len(s.get("value", [])) != 1:
            msgs.append("a sample has %d values" % len(s.get("value", [])))
        got[";".join(locs.get(i, "?") for i in reversed(s["location_id"]))] += s["value"][0]
    return msgs + compare(got, want, "pprof")


def source(decoded, fn, file, line, module, build_id):
    p = text_format(open(decoded, encoding="utf-8").read())
    st = [utf8(s) for s in p.get("string_table", [])]
    funcs = [f for f in p.get("function", []) if st[f["name"][0]] == fn]
    if len(funcs) != 1:
        return ["%d functions named %s" % (len(funcs), fn)]
    f = funcs[0]
    got = (st[f.get("filename", [0])[0]], f.get("start_line", [0])[0])
    msgs = [] if got == (file, int(line)) else ["%s: file and line %r, expected %r" % (fn, got, (file, int(line)))]
    locs = [l for l in p.get("location", []) if l["line"][0]["function_id"] == f["id"]]
    if len(locs) != 1 or locs[0]["line"][0].get("line") != [int(line)]:
        return msgs + ["%s: its location is not one line %s: %r" % (fn, line, locs)]
    maps = {m["id"][0]: m for m in p.get("mapping", [])}
    m = maps.get(locs[0].get("mapping_id", [0])[0])
    if not m:
        return msgs + ["%s: its location has no mapping" % fn]
    got = (st[m.get("filename", [0])[0]], st[m.get("build_id", [0])[0]], m.get("has_functions"),
           m.get("has_filenames"), m.get("has_line_numbers"))
    want = (module, build_id, [True], [True], [True])
    return msgs + ([] if got == want else ["%s: mapping %r, expected %r" % (fn, got, want)])


def compare(got, want, what):
    msgs = []
    if sum(got.values()) != sum(want.values()):
        msgs.append("%s total %d, folded %d" % (what, sum(got.values()), sum(want.values())))
    for k in sorted(set(got) | set(want)):
        if got[k] != want[k]:
            msgs.append("%s: %r: %d, folded %d" % (what, k, got[k], want[k]))
    return msgs


def speedscope(path, want):
    d = json.load(open(path, encoding="utf-8"))
    msgs = []
    if d.get("$schema") != "https://www.speedscope.app/file-format-schema.json":
        msgs.append("$schema: %r" % d.get("$schema"))
    if not str(d.get("exporter", "")).startswith("perfgate "):
        msgs.append("exporter: %r" % d.get("exporter"))
    frames = d["shared"]["frames"]
    if not all(isinstance(f, dict) and isinstance(f.get("name"), str) for f in frames):
        msgs.append("a frame without a name")
    if len(d["profiles"]) != 1:
        return msgs + ["%d profiles" % len(d["profiles"])]
    p = d["profiles"][0]
    for k, v in (("type", "sampled"), ("unit", "none"), ("startValue", 0)):
        if p.get(k) != v:
            msgs.append("%s: %r" % (k, p.get(k)))
    if not isinstance(p.get("name"), str) or not isinstance(d.get("name"), str):
        msgs.append("a profile without a name")
    if len(p["samples"]) != len(p["weights"]):
        msgs.append("%d samples, %d weights" % (len(p["samples"]), len(p["weights"])))
    if sum(p["weights"]) != p["endValue"]:
        msgs.append("weights add up to %d, endValue %d" % (sum(p["weights"]), p["endValue"]))
    got = Counter()
    for s, w in zip(p["samples"], p["weights"]):
        got[";".join(frames[i]["name"] for i in s)] += w
    return msgs + compare(got, want, "speedscope")


if sys.argv[1] == "pprof":
    bad(pprof(sys.argv[2], folded(sys.argv[3]), sys.argv[4]))
elif sys.argv[1] == "pprof-sample":
    bad(pprof(sys.argv[2], None, None, (sys.argv[3], int(sys.argv[4]))))
elif sys.argv[1] == "pprof-source":
    bad(source(*sys.argv[2:8]))
elif sys.argv[1] == "speedscope":
    bad(speedscope(sys.argv[2], folded(sys.argv[3])))
sys.exit("unknown check " + sys.argv[1])
